//! How far each projection is behind the log, in the verification's
//! snapshot: a projection's tables differ from the replay while it catches
//! up, and that is lag, not corruption.
//!
//! A projection records the position of the last event it was given
//! (`projection_positions`); the relay hands events out in the store's order
//! (`tx_id`, `position`), so the events after that one are the ones it has
//! not applied yet.

use std::time::Duration;

use tokio_postgres::GenericClient;

use strum::VariantArray;

use crate::domain::projection::Projection;

/// Where one projection stands against the log's head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lag {
    pub projection: Projection,
    /// The position of the last event it applied (`None`: none yet).
    pub position: Option<i64>,
    /// The position of the log's last event in the store's order (`None`: no events).
    pub head: Option<i64>,
    /// Events after `position`, which it has not applied.
    pub behind: i64,
}

impl Lag {
    pub fn is_behind(&self) -> bool {
        self.behind > 0
    }
}

/// Whether no event ever removes a row of `table`: then a row only the
/// live table has cannot be lag (a projection behind holds a prefix of the
/// log, whose rows the whole log still makes). Such a row was written by
/// something else: another store's events, or a hand.
pub fn keys_kept(table: &str) -> bool {
    Projection::TemplateStats.tables().contains(&table)
}

const LAG: &str = "
    WITH head AS (SELECT position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1)
    SELECT p.name, pp.position, (SELECT position FROM head),
           CASE WHEN pp.position IS NULL THEN (SELECT count(*) FROM events)
                ELSE (SELECT count(*) FROM events e, events last
                       WHERE last.position = pp.position
                         AND (e.tx_id, e.position) > (last.tx_id, last.position))
           END
      FROM unnest($1::text[]) AS p (name)
      LEFT JOIN projection_positions pp ON pp.projection = p.name
     ORDER BY p.name";

/// Every projection's lag, as `client` sees the tables.
pub async fn lags(client: &impl GenericClient) -> Result<Vec<Lag>, tokio_postgres::Error> {
    let names: Vec<&str> = Projection::VARIANTS.iter().map(|p| p.as_str()).collect();
    let rows = client.query(LAG, &[&names]).await?;
    let lag = |row: &tokio_postgres::Row| {
        let name: &str = row.get(0);
        let projection = *Projection::VARIANTS.iter().find(|p| p.as_str() == name)?;
        if projection.optional() && row.get::<_, Option<i64>>(1).is_none() {
            return None;
        }
        Some(Lag {
            projection,
            position: row.get(1),
            head: row.get(2),
            behind: row.get(3),
        })
    };
    Ok(rows.iter().filter_map(lag).collect())
}

/// Waits, at most `timeout`, until no projection is behind; the lags last seen.
pub async fn wait(
    client: &impl GenericClient,
    timeout: Duration,
) -> Result<Vec<Lag>, tokio_postgres::Error> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let lags = lags(client).await?;
        if !lags.iter().any(Lag::is_behind) || tokio::time::Instant::now() >= deadline {
            return Ok(lags);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
