//! The names of templates and channels, for reports that group by their
//! ids (the finance page shows a name beside each sn and channel id).

use std::collections::HashMap;

use tokio_postgres::GenericClient;
use uuid::Uuid;

/// Name of each template of `sns` that exists.
pub async fn template_names(
    client: &impl GenericClient,
    sns: &[&str],
) -> Result<HashMap<String, String>, tokio_postgres::Error> {
    let sql = "SELECT sn, name FROM templates WHERE sn = ANY($1::text[])";
    let rows = client.query(sql, &[&sns]).await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Name of each channel of `ids` that exists, keyed by the id as text.
pub async fn channel_names(
    client: &impl GenericClient,
    ids: &[Uuid],
) -> Result<HashMap<String, String>, tokio_postgres::Error> {
    let sql = "SELECT id, name FROM channels WHERE id = ANY($1::uuid[])";
    let rows = client.query(sql, &[&ids]).await?;
    Ok(rows
        .iter()
        .map(|r| (r.get::<_, Uuid>(0).to_string(), r.get(1)))
        .collect())
}
