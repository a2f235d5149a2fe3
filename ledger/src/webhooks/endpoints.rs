//! The enabled endpoints as the sender needs them: URL, retry window and
//! the secrets that sign now (the current one, and the one before during a
//! rotation's overlap), opened from their sealed columns.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use crate::secret_box::{Keyring, Sealed};

#[derive(Clone, Debug)]
pub struct Endpoint {
    pub url: String,
    pub retry_hours: i32,
    /// The signing secrets, or why they do not open (a delivery then
    /// records that error instead of being sent unsigned).
    pub secrets: Result<Vec<String>, String>,
}

/// Every enabled endpoint by id.
pub async fn load(
    client: &impl GenericClient,
    keys: &Keyring,
    now: DateTime<Utc>,
) -> Result<HashMap<Uuid, Endpoint>, tokio_postgres::Error> {
    let rows = client
        .query(
            "SELECT id, url, retry_hours, key_id, nonce, ciphertext,
                    CASE WHEN previous_valid_until > $1 THEN previous_key_id END,
                    previous_nonce, previous_ciphertext
               FROM webhooks WHERE enabled",
            &[&now],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let id: Uuid = r.get(0);
            let current = Sealed::from_row(r, 3);
            let previous = Sealed::from_row(r, 6);
            let secrets = [current, previous]
                .into_iter()
                .flatten()
                .map(|s| {
                    keys.open(id, &s)
                        .map_err(|e| format!("signing secret: {e}"))
                })
                .collect();
            let endpoint = Endpoint {
                url: r.get(1),
                retry_hours: r.get(2),
                secrets,
            };
            (id, endpoint)
        })
        .collect())
}
