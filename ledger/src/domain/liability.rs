//! What the ledger owes and what its coupons cost, as the events say, per
//! group (template, channel and the business day a coupon was issued): a
//! pure fold. Rows grouped by shop are the template groups labelled by
//! their template's shop ([`TemplateShops`]): a template's shop is fixed
//! when it is created, so the groups need not carry it. `ledger report liability` folds the events after a snapshot
//! (or from the start) onto it; the sealer folds each checkpoint's events
//! onto the snapshot before it. Counts and cents only: no I/O, no floats.
//!
//! A coupon moves between status buckets by the coupon state machine
//! (`projection::status_after`), costs come from `projection::order_effect`
//! (the live `template_stats` worker's own rules), so "now" equals the stats.

use crate::domain::ids::{ShopId, TemplateSn};
use crate::domain::names::name_list;
pub use crate::domain::report_labels::{NO_CHANNEL, PLATFORM, TOTAL};
use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDate;
use chrono_tz::Tz;
use rust_decimal::Decimal;
use uuid::Uuid;

use crate::domain::ids::ChannelId;

use crate::domain::coupon_state::{CouponChange, CouponStatus};
use crate::domain::events::CouponIssued;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::projection::{Effect, order_effect, status_after};
use crate::domain::stream::Stream;

/// Where a coupon is counted.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupKey {
    pub template_sn: TemplateSn,
    /// None for coupons no channel asked for (operators, bulk issuance).
    pub channel_id: Option<ChannelId>,
    /// The business day (`LEDGER_TZ`) the coupon was issued.
    pub day: NaiveDate,
}

impl GroupKey {
    pub fn of(issued: &CouponIssued, tz: Tz) -> GroupKey {
        GroupKey {
            template_sn: issued.template_sn.clone(),
            channel_id: issued.channel_id,
            day: issued.issued_at.with_timezone(&tz).date_naive(),
        }
    }

    /// The group's label when rows are grouped `by` (`shops` is read only
    /// by [`By::Shop`]).
    pub fn label(&self, by: By, shops: &TemplateShops) -> String {
        match by {
            By::Template => self.template_sn.to_string(),
            By::Channel => self
                .channel_id
                .map_or_else(|| NO_CHANNEL.to_owned(), |c| c.to_string()),
            By::Day => self.day.to_string(),
            By::Shop => shops
                .of(&self.template_sn)
                .map_or_else(|| PLATFORM.to_owned(), ShopId::to_string),
        }
    }
}

/// The shop of each template that belongs to one, as its `TemplateCreated`
/// says; a template not listed is the platform's ([`PLATFORM`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateShops(HashMap<TemplateSn, ShopId>);

impl TemplateShops {
    pub fn new(shops: impl IntoIterator<Item = (TemplateSn, ShopId)>) -> Self {
        Self(shops.into_iter().collect())
    }

    pub fn of(&self, sn: &TemplateSn) -> Option<&ShopId> {
        self.0.get(sn)
    }
}

name_list! {
    /// How report rows are grouped.
    #[derive(clap::ValueEnum)]
    pub enum By {
        Template,
        Channel,
        Day,
        /// The shop of the coupon's template, `(platform)` for none.
        Shop,
    }
}

/// One group's numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Every `CouponIssued` (reissues after a refund included, as in the stats).
    pub issued: i64,
    pub unused: i64,
    pub locked: i64,
    pub used: i64,
    pub refunded: i64,
    pub expired: i64,
    pub void: i64,
    /// Face value of the unused and locked coupons, in cents.
    pub outstanding: i64,
    /// Discounts granted on confirmed orders, net of refund reversals, in cents.
    pub cost: i64,
}

impl Totals {
    fn count(&mut self, status: CouponStatus) -> &mut i64 {
        match status {
            CouponStatus::Unused => &mut self.unused,
            CouponStatus::Locked => &mut self.locked,
            CouponStatus::Used => &mut self.used,
            CouponStatus::Refunded => &mut self.refunded,
            CouponStatus::Expired => &mut self.expired,
            CouponStatus::Void => &mut self.void,
        }
    }

    pub fn add(&mut self, other: &Totals) {
        self.issued += other.issued;
        self.unused += other.unused;
        self.locked += other.locked;
        self.used += other.used;
        self.refunded += other.refunded;
        self.expired += other.expired;
        self.void += other.void;
        self.outstanding += other.outstanding;
        self.cost += other.cost;
    }

    pub fn outstanding_value(&self) -> Decimal {
        Decimal::new(self.outstanding, 2)
    }

    pub fn cost_value(&self) -> Decimal {
        Decimal::new(self.cost, 2)
    }
}

/// Whether a coupon in `status` is still owed.
fn owed(status: CouponStatus) -> bool {
    matches!(status, CouponStatus::Unused | CouponStatus::Locked)
}

/// The numbers of every group.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Liability {
    keys: Vec<GroupKey>,
    index: HashMap<GroupKey, u32>,
    totals: Vec<Totals>,
}

impl Liability {
    /// The group's slot, made on first sight.
    pub fn group(&mut self, key: GroupKey) -> u32 {
        if let Some(&slot) = self.index.get(&key) {
            return slot;
        }
        let slot = u32::try_from(self.keys.len()).expect("fewer than 2^32 groups");
        self.keys.push(key.clone());
        self.index.insert(key, slot);
        self.totals.push(Totals::default());
        slot
    }

    pub fn totals_mut(&mut self, slot: u32) -> &mut Totals {
        &mut self.totals[slot as usize]
    }

    /// Every group and its numbers, in the order first seen.
    pub fn rows(&self) -> impl Iterator<Item = (&GroupKey, &Totals)> {
        self.keys.iter().zip(&self.totals)
    }

    /// The rows added up by `by`'s label, in label order.
    pub fn by(&self, by: By, shops: &TemplateShops) -> BTreeMap<String, Totals> {
        let mut out: BTreeMap<String, Totals> = BTreeMap::new();
        for (key, totals) in self.rows() {
            out.entry(key.label(by, shops)).or_default().add(totals);
        }
        out
    }

    /// The templates of every group, each once.
    /// Keeps the groups of the templates `keep` says yes to (a merchant's
    /// report: its shops' templates only).
    pub fn retain_templates(&mut self, keep: impl Fn(&TemplateSn) -> bool) {
        let kept: Vec<(GroupKey, Totals)> = self
            .keys
            .drain(..)
            .zip(self.totals.drain(..))
            .filter(|(key, _)| keep(&key.template_sn))
            .collect();
        self.index.clear();
        for (key, totals) in kept {
            let slot = self.group(key);
            self.totals[slot as usize] = totals;
        }
    }

    pub fn templates(&self) -> BTreeSet<&TemplateSn> {
        self.keys.iter().map(|k| &k.template_sn).collect()
    }

    /// All groups added up.
    pub fn total(&self) -> Totals {
        let mut out = Totals::default();
        self.totals.iter().for_each(|t| out.add(t));
        out
    }
}

/// What the fold knows of one coupon: its group, face value and status.
#[derive(Clone, Copy, Debug)]
struct Tracked {
    group: u32,
    face: i64,
    status: CouponStatus,
}

/// Folds events onto a [`Liability`]. Coupons and orders that began before
/// the base must be made known first ([`LiabilityFold::know_coupon`],
/// [`LiabilityFold::know_lock`]); [`LiabilityFold::needs`] says which.
pub struct LiabilityFold {
    pub liability: Liability,
    tz: Tz,
    coupons: HashMap<Uuid, Tracked>,
    /// Locked orders: what each coupon takes off, until confirmed or let go.
    locks: HashMap<String, Vec<(Uuid, i64)>>,
    /// Events about a coupon or order the fold never saw begin (its start
    /// happened after the instant the report is as of).
    pub unmatched: u64,
}

/// What a page of events refers to that began before the base.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Needs {
    pub coupons: Vec<Uuid>,
    pub orders: Vec<String>,
}

impl LiabilityFold {
    pub fn new(base: Liability, tz: Tz) -> Self {
        LiabilityFold {
            liability: base,
            tz,
            coupons: HashMap::new(),
            locks: HashMap::new(),
            unmatched: 0,
        }
    }

    /// A coupon issued before the base, and its changes up to the base:
    /// already counted in the base, now followed.
    pub fn know_coupon(&mut self, issued: &CouponIssued, changes: &[CouponChange]) {
        let status = changes.iter().fold(CouponStatus::Unused, status_after);
        let group = self.liability.group(GroupKey::of(issued, self.tz));
        let face = issued.face_value.cents();
        self.coupons.insert(
            issued.coupon_id,
            Tracked {
                group,
                face,
                status,
            },
        );
    }

    /// An order locked before the base (its `OrderLocked`).
    pub fn know_lock(&mut self, order_id: &str, locked: &LedgerEvent) {
        if let Effect::Discounts(discounts) = order_effect(locked) {
            self.locks.insert(order_id.to_owned(), discounts);
        }
    }

    /// The coupons and orders `events` refer to whose start the fold has
    /// not seen and will not see earlier in `events`.
    pub fn needs(&self, events: &[(Stream<'_>, LedgerEvent)]) -> Needs {
        let mut issued: Vec<Uuid> = vec![];
        let mut locked: Vec<&str> = vec![];
        let mut needs = Needs::default();
        let coupon = |id: Uuid, issued: &[Uuid], needs: &mut Needs| {
            if !self.coupons.contains_key(&id)
                && !issued.contains(&id)
                && !needs.coupons.contains(&id)
            {
                needs.coupons.push(id);
            }
        };
        for (stream, event) in events {
            match (stream, order_effect(event)) {
                (Stream::Coupon(id), _) if matches!(event, LedgerEvent::CouponIssued(_)) => {
                    issued.push(*id)
                }
                (Stream::Coupon(id), _) => coupon(*id, &issued, &mut needs),
                (Stream::Order(order), Effect::Discounts(_)) => locked.push(order),
                (Stream::Order(order), Effect::Confirmed(ids)) => {
                    let order = *order;
                    if !self.locks.contains_key(order) && !locked.contains(&order) {
                        needs.orders.push(order.to_owned());
                    }
                    ids.into_iter()
                        .for_each(|id| coupon(id, &issued, &mut needs));
                }
                (Stream::Order(_), Effect::Reversals(r)) => r
                    .into_iter()
                    .for_each(|(id, _)| coupon(id, &issued, &mut needs)),
                _ => {}
            }
        }
        needs
    }

    /// Folds one event of `stream`.
    pub fn apply(&mut self, stream: &Stream<'_>, event: &LedgerEvent) {
        match (stream, event) {
            (Stream::Coupon(_), LedgerEvent::CouponIssued(issued)) => self.issue(issued),
            (Stream::Coupon(id), _) => {
                if let Some(change) = event.coupon_change() {
                    self.change(*id, &change);
                }
            }
            (Stream::Order(order), _) => self.order(order, event),
            _ => {}
        }
    }

    fn issue(&mut self, issued: &CouponIssued) {
        let group = self.liability.group(GroupKey::of(issued, self.tz));
        let face = issued.face_value.cents();
        let totals = self.liability.totals_mut(group);
        totals.issued += 1;
        totals.unused += 1;
        totals.outstanding += face;
        let tracked = Tracked {
            group,
            face,
            status: CouponStatus::Unused,
        };
        let before = self.coupons.insert(issued.coupon_id, tracked);
        debug_assert!(before.is_none(), "a coupon is issued once");
    }

    fn change(&mut self, id: Uuid, change: &CouponChange) {
        let Some(coupon) = self.coupons.get_mut(&id) else {
            self.unmatched += 1;
            return;
        };
        let (from, to) = (coupon.status, status_after(coupon.status, change));
        coupon.status = to;
        let totals = self.liability.totals_mut(coupon.group);
        *totals.count(from) -= 1;
        *totals.count(to) += 1;
        totals.outstanding += coupon.face * (i64::from(owed(to)) - i64::from(owed(from)));
    }

    fn order(&mut self, order_id: &str, event: &LedgerEvent) {
        match order_effect(event) {
            Effect::Discounts(discounts) => {
                self.locks.insert(order_id.to_owned(), discounts);
            }
            Effect::Confirmed(ids) => {
                let Some(discounts) = self.locks.remove(order_id) else {
                    self.unmatched += 1;
                    return;
                };
                for id in ids {
                    let cents = discounts.iter().find(|(c, _)| *c == id).map_or(0, |d| d.1);
                    self.cost(id, cents);
                }
            }
            Effect::Reversals(reversals) => reversals
                .into_iter()
                .for_each(|(id, cents)| self.cost(id, -cents)),
            _ if matches!(
                event,
                LedgerEvent::OrderCancelled(_) | LedgerEvent::OrderReleased(_)
            ) =>
            {
                self.locks.remove(order_id);
            }
            _ => {}
        }
    }

    fn cost(&mut self, id: Uuid, cents: i64) {
        match self.coupons.get(&id) {
            Some(coupon) => self.liability.totals_mut(coupon.group).cost += cents,
            None => self.unmatched += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ledger_event::EventType;
    use serde_json::json;

    fn issued(id: Uuid, channel: Option<Uuid>, at: &str) -> LedgerEvent {
        issued_of("T1", id, channel, at)
    }

    fn issued_of(template: &str, id: Uuid, channel: Option<Uuid>, at: &str) -> LedgerEvent {
        let mut payload = json!({
            "coupon_id": id, "template_sn": template, "user_id": "u1",
            "issued_at": at, "effective_at": at,
            "expires_at": "2026-12-01T00:00:00Z", "face_value": "20.00", "currency": "CNY"
        });
        if let Some(c) = channel {
            payload["channel_id"] = json!(c);
        }
        LedgerEvent::decode(EventType::CouponIssued.as_str(), 1, &payload).unwrap()
    }

    fn changed(event_type: EventType, id: Uuid) -> LedgerEvent {
        let payload =
            json!({"coupon_id": id, "order_id": "o1", "refund_id": "r1", "reason": "cancel"});
        LedgerEvent::decode(event_type.as_str(), 1, &payload).unwrap()
    }

    fn fold(events: &[(Stream<'_>, LedgerEvent)]) -> LiabilityFold {
        let mut fold = LiabilityFold::new(Liability::default(), chrono_tz::Asia::Shanghai);
        for (stream, event) in events {
            fold.apply(stream, event);
        }
        fold
    }

    #[test]
    fn coupons_move_between_buckets_and_only_unused_or_locked_ones_are_owed() {
        let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
        let events = [
            (Stream::Coupon(a), issued(a, None, "2026-11-20T15:00:00Z")),
            // 00:30 the next day in Shanghai: another business day.
            (Stream::Coupon(b), issued(b, None, "2026-11-20T16:30:00Z")),
            (Stream::Coupon(a), changed(EventType::CouponLocked, a)),
            (Stream::Coupon(b), changed(EventType::CouponLocked, b)),
            (Stream::Coupon(b), changed(EventType::CouponUsed, b)),
        ];
        let fold = fold(&events);
        let total = fold.liability.total();
        assert_eq!(
            (total.issued, total.unused, total.locked, total.used),
            (2, 0, 1, 1)
        );
        assert_eq!(total.outstanding_value(), Decimal::new(2000, 2));
        let no_shops = TemplateShops::default();
        let by_day = fold.liability.by(By::Day, &no_shops);
        assert_eq!(
            by_day.keys().collect::<Vec<_>>(),
            ["2026-11-20", "2026-11-21"]
        );
        assert_eq!(by_day["2026-11-21"].used, 1);
        assert_eq!(
            fold.liability
                .by(By::Channel, &no_shops)
                .keys()
                .collect::<Vec<_>>(),
            [NO_CHANNEL]
        );
    }

    #[test]
    fn by_shop_adds_up_the_templates_of_each_shop_and_labels_the_rest_the_platform() {
        let ids: Vec<Uuid> = (0..4).map(|_| Uuid::now_v7()).collect();
        let at = "2026-11-20T01:00:00Z";
        let events: Vec<_> = ["TA1", "TA2", "TB", "TP"]
            .iter()
            .zip(&ids)
            .map(|(t, id)| (Stream::Coupon(*id), issued_of(t, *id, None, at)))
            .chain([(
                Stream::Coupon(ids[1]),
                changed(EventType::CouponVoided, ids[1]),
            )])
            .collect();
        let fold = fold(&events);
        let shop = |s: &str| ShopId::parse(s).unwrap();
        let sn = |s: &str| TemplateSn::from(s);
        let shops = TemplateShops::new([
            (sn("TA1"), shop("A")),
            (sn("TA2"), shop("A")),
            (sn("TB"), shop("B")),
        ]);
        let by_shop = fold.liability.by(By::Shop, &shops);
        assert_eq!(by_shop.keys().collect::<Vec<_>>(), [PLATFORM, "A", "B"]);
        let a = by_shop["A"];
        assert_eq!((a.issued, a.unused, a.void, a.outstanding), (2, 1, 1, 2000));
        assert_eq!((by_shop["B"].issued, by_shop[PLATFORM].issued), (1, 1));
        // Without the shops, every template is the platform's.
        let none = fold.liability.by(By::Shop, &TemplateShops::default());
        assert_eq!(none.keys().collect::<Vec<_>>(), [PLATFORM]);
        assert_eq!(none[PLATFORM], fold.liability.total());
    }

    #[test]
    fn a_coupon_begun_before_the_base_is_needed_and_counted_from_where_it_stood() {
        let (old, new) = (Uuid::now_v7(), Uuid::now_v7());
        let page = [
            (
                Stream::Coupon(new),
                issued(new, None, "2026-11-20T01:00:00Z"),
            ),
            (Stream::Coupon(new), changed(EventType::CouponVoided, new)),
            (Stream::Coupon(old), changed(EventType::CouponUnlocked, old)),
        ];
        let mut fold = LiabilityFold::new(Liability::default(), chrono_tz::Asia::Shanghai);
        assert_eq!(
            fold.needs(&page),
            Needs {
                coupons: vec![old],
                orders: vec![]
            }
        );
        // The base counted it issued and locked.
        let LedgerEvent::CouponIssued(before) = issued(old, None, "2026-11-19T01:00:00Z") else {
            unreachable!()
        };
        let locked = CouponChange::Locked {
            order_id: "o1".into(),
        };
        fold.know_coupon(&before, &[locked]);
        let slot = fold.liability.group(GroupKey::of(&before, fold.tz));
        *fold.liability.totals_mut(slot) = Totals {
            issued: 1,
            locked: 1,
            outstanding: 2000,
            ..Totals::default()
        };
        for (stream, event) in &page {
            fold.apply(stream, event);
        }
        let total = fold.liability.total();
        assert_eq!(
            (total.issued, total.unused, total.locked, total.void),
            (2, 1, 0, 1)
        );
        assert_eq!((total.outstanding, fold.unmatched), (2000, 0));
        // A coupon never seen begun is left out, and counted as such.
        let stray = Uuid::now_v7();
        fold.apply(
            &Stream::Coupon(stray),
            &changed(EventType::CouponExpired, stray),
        );
        assert_eq!(fold.unmatched, 1);
    }
}
