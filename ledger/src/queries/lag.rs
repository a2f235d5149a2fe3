//! How far behind the log each consumer of the events is, for operators
//! (`/metrics`, `/readyz`): each of the relay's routes (events committed
//! but not yet published to that destination: `relay:<queue or exchange>`)
//! and every projection (events not yet applied). All follow the store's
//! order (`tx_id`, `position`).
//!
//! `replay` has its own exact measure (`replay::lag`) inside its snapshot;
//! this one is cheap enough to poll: the count stops at [`COUNT_CAP`].

use serde::Serialize;
use tokio_postgres::GenericClient;
use utoipa::ToSchema;

use crate::domain::names;
use crate::domain::projection::Projection;
use crate::messaging::routes;

/// Events counted at most per consumer: beyond it, the gauge reads the cap.
pub const COUNT_CAP: i64 = 1_000_000;

/// One consumer's distance from the log's head.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct ConsumerLag {
    /// `relay:<route>` (e.g. `relay:coupon.events.balances`) or a
    /// projection's name.
    pub consumer: String,
    /// Events after the last one it handled (at most 1,000,000).
    pub events_behind: i64,
    /// Age of the oldest event it has not handled (0 when caught up).
    pub seconds_behind: f64,
}

const LAG: &str = "
    WITH cursors AS (
        SELECT p.name, e.tx_id, e.position
          FROM unnest($1::text[]) AS p (name)
          LEFT JOIN projection_positions pp ON pp.projection = p.name
          LEFT JOIN events e ON e.position = pp.position
        UNION ALL
        SELECT 'relay:' || r.name, c.tx_id, c.position
          FROM unnest($2::text[]) AS r (name)
          LEFT JOIN relay_cursors c ON c.name = r.name
    )
    SELECT c.name,
           (SELECT count(*) FROM (
               SELECT 1 FROM events e
                WHERE (e.tx_id, e.position) > (coalesce(c.tx_id, -1), coalesce(c.position, -1))
                LIMIT $3) AS behind),
           coalesce((SELECT extract(epoch FROM now() - e.recorded_at)::float8 FROM events e
                      WHERE (e.tx_id, e.position) > (coalesce(c.tx_id, -1), coalesce(c.position, -1))
                      ORDER BY e.tx_id, e.position LIMIT 1), 0)
      FROM cursors c";

/// Every relay route's and every projection's lag, as `client` sees the
/// tables now.
pub async fn consumer_lags(
    client: &impl GenericClient,
) -> Result<Vec<ConsumerLag>, tokio_postgres::Error> {
    let projections: Vec<&str> = names::names::<Projection>().collect();
    let rows = client
        .query(LAG, &[&projections, &routes::names(), &COUNT_CAP])
        .await?;
    Ok(rows
        .iter()
        .map(|r| ConsumerLag {
            consumer: r.get(0),
            events_behind: r.get(1),
            seconds_behind: r.get::<_, f64>(2).max(0.0),
        })
        .collect())
}

/// Position of the last event in the store's read order (0: none).
pub async fn head_position(client: &impl GenericClient) -> Result<i64, tokio_postgres::Error> {
    let row = client
        .query_opt(
            "SELECT position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1",
            &[],
        )
        .await?;
    Ok(row.map_or(0, |r| r.get(0)))
}
