//! The event pipeline's progress (docs/design.md §5, §14), read from Postgres by
//! [`crate::observability::refresh::every`]: the log's head, where each relay route and
//! each projection stands, and how many events each relay route has
//! published (a counter: its `rate()` is the publish rate). How far behind
//! each of them is (events and seconds) is `lag_metrics`.
//!
//! Label values are only the known route and projection names.

use std::sync::Mutex;

use deadpool_postgres::Pool;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use rustc_hash::FxHashMap;

use crate::domain::names::names;
use crate::domain::projection::Projection;
use crate::messaging::routes;
use crate::queries::gauges::{self, RelayCursor};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabel {
    pub route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ProjectionLabel {
    pub projection: &'static str,
}

/// Every projection that stores a position.
pub fn projection_names() -> Vec<&'static str> {
    names::<Projection>().collect()
}

#[derive(Clone, Default)]
pub struct PipelineMetrics {
    head: Gauge,
    relay_position: Family<RouteLabel, Gauge>,
    relay_published: Family<RouteLabel, Counter>,
    relay_sent: Family<RouteLabel, Counter>,
    relay_unroutable: Family<RouteLabel, Counter>,
    projection_position: Family<ProjectionLabel, Gauge>,
    /// `relay_cursors.published`, `.sent` and `.unroutable` last read per route, so
    /// the counters move by what happened since.
    seen: std::sync::Arc<Mutex<FxHashMap<(&'static str, Tally), i64>>>,
}

/// The relay's running totals, per route.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
enum Tally {
    Published,
    Sent,
    Unroutable,
}

impl PipelineMetrics {
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "events_head_position",
            "Position of the last event in the store's read order (0: none)",
            self.head.clone(),
        );
        registry.register(
            "relay_position",
            "Position of the last event a relay route published (0: none yet)",
            self.relay_position.clone(),
        );
        registry.register(
            "relay_published_events",
            "Events a relay route has published (rate() is the publish rate)",
            self.relay_published.clone(),
        );
        registry.register(
            "relay_sent_messages",
            "Messages a relay route handed to the broker (a run of events counts once; \
             coupon.events with no subscriber: one probe per batch)",
            self.relay_sent.clone(),
        );
        registry.register(
            "relay_unroutable_events",
            "Events a relay route sent that no queue was bound to take (coupon.events \
             with no subscriber: expected, not an error)",
            self.relay_unroutable.clone(),
        );
        registry.register(
            "projection_position",
            "Position of the last event a projection applied (0: none yet)",
            self.projection_position.clone(),
        );
    }

    pub async fn refresh(&self, pool: &Pool) -> anyhow::Result<()> {
        let mut client = pool.get().await?;
        let tx = crate::observability::refresh::bounded(&mut client).await?;
        let head = crate::queries::lag::head_position(&*tx).await?;
        let route_names = routes::names();
        let relay = gauges::relay_cursors(&*tx, &route_names).await?;
        let projection_names = projection_names();
        let projections = gauges::projection_positions(&*tx, &projection_names).await?;
        tx.commit().await?;
        self.head.set(head);
        for cursor in &relay {
            if let Some(route) = route_names.iter().copied().find(|r| *r == cursor.name) {
                self.relay_row(route, cursor);
            }
        }
        for (name, position) in &projections {
            let Some(projection) = projection_names.iter().copied().find(|p| p == name) else {
                continue;
            };
            self.projection_position
                .get_or_create(&ProjectionLabel { projection })
                .set(position.unwrap_or(0));
        }
        Ok(())
    }

    /// One route's cursor row: its position and its three running totals.
    fn relay_row(&self, route: &'static str, cursor: &RelayCursor) {
        let label = RouteLabel { route };
        self.relay_position
            .get_or_create(&label)
            .set(cursor.position.unwrap_or(0));
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        for (tally, total, family) in [
            (Tally::Published, cursor.published, &self.relay_published),
            (Tally::Sent, cursor.sent, &self.relay_sent),
            (Tally::Unroutable, cursor.unroutable, &self.relay_unroutable),
        ] {
            let total = total.unwrap_or(0);
            let last = seen.insert((route, tally), total).unwrap_or(0);
            // A cursor rewound (a backfill) counts from its new value on.
            if let Ok(more) = u64::try_from(total - last) {
                family.get_or_create(&label).inc_by(more);
            }
        }
    }
}
