//! How a verification splits the replay so that its memory does not grow
//! with the store: the coupons are folded and compared in `count` passes,
//! each over the coupons whose stream id hashes to it, and the per-user
//! tables (balances, claims, reminders) in as many buckets of users.
//!
//! Postgres computes every partition (`hashtext`, on text both sides hold
//! alike: a coupon's canonical stream id and `'coupon-' || id`, an order's
//! stream id and `'order-' || order_id`, a user id), so a pass's `COPY`
//! is filtered on the server and carries each event's partitions along;
//! nothing has to reproduce Postgres' hash.

use std::num::NonZeroU32;

use tokio_postgres::GenericClient;

use crate::domain::ledger_event::EventType;
use crate::domain::stream::StreamKind;

/// The coupons one pass holds at most when the count is chosen: 580 to
/// 710 MiB at the peak with the buckets of users (docs/benchmarks.md),
/// under [`MEMORY_BOUND_MB`].
pub const COUPONS_PER_PARTITION: u64 = 1_000_000;
/// What an order's row weighs against a coupon's (it keeps the order's
/// JSON), when the count is chosen.
pub const ORDER_WEIGHT: u64 = 8;
/// What a coupon weighs, in halves, when its reminders are checked too
/// (their rows are rebuilt beside the last pass).
pub const REMINDED_COUPON_HALVES: u64 = 3;
/// The peak RSS a verification stays under with the chosen count, whatever
/// the number of coupons.
pub const MEMORY_BOUND_MB: u64 = 1024;
/// The most passes: each reads the whole log (filtered), keeps a spill file
/// open per bucket of users, and a bucket merges a file per pass (two
/// buckets at once: 512 files, within the usual limit of 1024). Up to
/// this, a store of 256 million coupons stays within the bound.
pub const MAX_PARTITIONS: u32 = 256;

/// How many passes (and buckets of users) a verification makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partitions(NonZeroU32);

impl Partitions {
    /// One pass over everything: no filter, no hashing.
    pub const ONE: Partitions = Partitions(NonZeroU32::MIN);

    /// `count` passes, if it is between 1 and [`MAX_PARTITIONS`].
    pub fn new(count: u32) -> Option<Self> {
        NonZeroU32::new(count)
            .filter(|n| n.get() <= MAX_PARTITIONS)
            .map(Self)
    }

    pub fn count(self) -> u32 {
        self.0.get()
    }

    /// The buckets of users, as many as the passes: the two connections
    /// rebuild one each at a time, once the last pass has dropped its
    /// coupons (see `users`).
    pub fn buckets(self) -> u32 {
        self.count()
    }

    /// Enough passes that none holds more than [`COUPONS_PER_PARTITION`]
    /// coupons' worth (orders and reminders weighed in).
    pub fn for_store(size: StoreSize, reminders: bool) -> Self {
        let coupons = if reminders {
            size.coupons.saturating_mul(REMINDED_COUPON_HALVES) / 2
        } else {
            size.coupons
        };
        let weight = coupons.saturating_add(size.orders.saturating_mul(ORDER_WEIGHT));
        let count = weight.div_ceil(COUPONS_PER_PARTITION);
        let count = u32::try_from(count).unwrap_or(MAX_PARTITIONS);
        Self::new(count.clamp(1, MAX_PARTITIONS)).unwrap_or(Self::ONE)
    }

    /// The pass of the text `expr` (SQL), 0 to count - 1.
    fn of(self, expr: &str) -> String {
        hash_mod(expr, self.count())
    }

    /// The condition on a live table's rows for pass `part`, whose
    /// partition key is the text `key` (SQL); none with one pass.
    fn filter(self, part: u32, key: &str) -> Option<String> {
        (self.count() > 1).then(|| format!("{} = {part}", self.of(key)))
    }

    /// The live `coupons` rows of pass `part`.
    pub fn coupons(self, part: u32) -> Option<String> {
        self.filter(part, &format!("'{}' || id", StreamKind::Coupon.prefix()))
    }

    /// The live `orders` and `refunds` rows of pass `part`.
    pub fn orders(self, part: u32) -> Option<String> {
        self.filter(
            part,
            &format!("'{}' || order_id", StreamKind::Order.prefix()),
        )
    }

    /// The live rows of bucket `bucket` in a table keyed by `user_id`.
    pub fn users(self, bucket: u32) -> Option<String> {
        let of = hash_mod("user_id", self.buckets());
        (self.buckets() > 1).then(|| format!("{of} = {bucket}"))
    }

    /// The events of pass `part`, in the store's order, as a binary COPY
    /// (the columns `pass::fold` reads).
    pub fn events(self, part: u32) -> String {
        let (own, bucket, filter) = if self.count() == 1 {
            ("true".to_owned(), "0".to_owned(), "true".to_owned())
        } else {
            self.routing(part)
        };
        format!(
            "COPY (SELECT position, stream_id, stream_version, event_type, payload, occurred_at,
                          schema_version, tx_id, {own}, {bucket}
                     FROM events WHERE {filter} ORDER BY tx_id, position)
             TO STDOUT (FORMAT binary)"
        )
    }

    /// Pass `part`'s columns `own` (the stream's rows are this pass's to
    /// build: always for coupons, by the order id for orders) and `bucket`
    /// (an issue's user's), and its filter: its coupons' streams; its own
    /// orders and those that touch its coupons (discounts, costs); the
    /// templates and channels in the first pass.
    fn routing(self, part: u32) -> (String, String, String) {
        let (coupon, order) = (StreamKind::Coupon.prefix(), StreamKind::Order.prefix());
        let stream = self.of("stream_id");
        let own =
            format!("CASE WHEN stream_id LIKE '{order}%' THEN {stream} = {part} ELSE true END");
        // Read in SQL, so not upcast (docs/design.md "Event versions"): a
        // new version of the types below must keep `user_id` where it is,
        // or bucket its older versions here by where they had it.
        let user = hash_mod("payload->>'user_id'", self.buckets());
        // A package's claim events name their user too: a reserved claim's
        // counts of the templates are that user's (`codes_fold::ahead`).
        let by_user = [
            EventType::CouponIssued,
            EventType::PackageClaimReserved,
            EventType::PackageClaimReleased,
            EventType::PackageClaimed,
        ]
        .map(|t| format!("'{}'", t.as_str()))
        .join(", ");
        let bucket = format!("CASE WHEN event_type IN ({by_user}) THEN {user} ELSE 0 END");
        let touches = |path: &str| {
            let id = self.of(&format!("'{coupon}' || (c.id #>> '{{}}')::uuid"));
            format!(
                "EXISTS (SELECT FROM jsonb_path_query(payload, '{path}') AS c (id) WHERE {id} = {part})"
            )
        };
        let filter = format!(
            "CASE WHEN stream_id LIKE '{coupon}%' THEN {stream} = {part}
                  WHEN stream_id LIKE '{order}%' THEN {stream} = {part}
                       OR {} OR {}
                  ELSE {} END",
            touches("lax $.coupon_ids[*]"),
            touches("lax $.refund.coupons[*].coupon_id"),
            part == 0
        );
        (own, bucket, filter)
    }
}

/// `hashtext(expr) mod n`, 0 to n - 1 (SQL; `& 2147483647` drops the sign,
/// where `abs` would fail on the smallest int).
fn hash_mod(expr: &str, n: u32) -> String {
    format!("((hashtext({expr}) & 2147483647) % {n})")
}

/// What the replay will hold, as the snapshot's log says (not the live
/// tables, which may have lost rows).
#[derive(Clone, Copy, Debug)]
pub struct StoreSize {
    /// Coupons issued.
    pub coupons: u64,
    /// Orders locked or cancelled (an order cancelled after its lock counts twice).
    pub orders: u64,
}

impl StoreSize {
    /// Counted on the `event_type` index (an index-only scan: a tenth of a
    /// second per million events here).
    pub async fn count(client: &impl GenericClient) -> Result<Self, tokio_postgres::Error> {
        // The names are in the text, not parameters: the planner sees the
        // values it always saw.
        let [issued, locked, cancelled] = [
            EventType::CouponIssued,
            EventType::OrderLocked,
            EventType::OrderCancelled,
        ]
        .map(EventType::as_str);
        let sql = format!(
            "SELECT count(*) FILTER (WHERE event_type = '{issued}'),
                        count(*) FILTER (WHERE event_type <> '{issued}')
                   FROM events
                  WHERE event_type IN ('{issued}', '{locked}', '{cancelled}')"
        );
        let row = client.query_one(sql.as_str(), &[]).await?;
        let count = |i| u64::try_from(row.get::<_, i64>(i)).unwrap_or(0);
        Ok(StoreSize {
            coupons: count(0),
            orders: count(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_holds_the_budget_and_its_bounds() {
        let n =
            |coupons, orders| Partitions::for_store(StoreSize { coupons, orders }, false).count();
        assert_eq!(n(0, 0), 1);
        assert_eq!(n(COUPONS_PER_PARTITION, 0), 1);
        assert_eq!(n(COUPONS_PER_PARTITION + 1, 0), 2);
        assert_eq!(n(5 * COUPONS_PER_PARTITION, 0), 5);
        assert_eq!(
            n(COUPONS_PER_PARTITION, COUPONS_PER_PARTITION / ORDER_WEIGHT),
            2
        );
        assert_eq!(n(u64::MAX, u64::MAX), MAX_PARTITIONS);
        // Reminders checked too: a coupon weighs one and a half.
        let reminded = StoreSize {
            coupons: 2 * COUPONS_PER_PARTITION,
            orders: 0,
        };
        assert_eq!(Partitions::for_store(reminded, true).count(), 3);
        assert_eq!(Partitions::new(0), None);
        assert_eq!(Partitions::new(MAX_PARTITIONS + 1), None);
    }

    #[test]
    fn one_pass_reads_everything_unfiltered() {
        let one = Partitions::ONE;
        assert_eq!(one.coupons(0), None);
        assert!(
            one.events(0)
                .contains("WHERE true ORDER BY tx_id, position")
        );
        let four = Partitions::new(4).unwrap();
        assert_eq!(
            four.users(3).as_deref(),
            Some("((hashtext(user_id) & 2147483647) % 4) = 3")
        );
        // Templates and channels are folded in the first pass only.
        assert!(four.events(0).contains("ELSE true END"));
        assert!(four.events(1).contains("ELSE false END"));
    }
}
