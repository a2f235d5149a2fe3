//! Dates and calls the reminder tests share: the business time zone, an
//! expiry day ten days ahead, when each reminder is due, a reminding
//! template, a held lock, and the `notify_msg` statuses as stored.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use ledger::domain::reminder::{NotifyAt, instant};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::{Server, template_body};

pub const TZ: Tz = chrono_tz::Asia::Shanghai;
pub const CATCH_UP: Duration = Duration::from_secs(120);
pub const QUIET: Duration = Duration::from_secs(2);
pub const PENDING: i16 = 0;
pub const SENT: i16 = 1;
pub const FAILED: i16 = 2;
pub const CANCELLED: i16 = 3;

/// The expiry day used by a test: ten days ahead, business time.
pub fn expiry_day() -> NaiveDate {
    Utc::now().with_timezone(&TZ).date_naive() + Days::new(10)
}

/// `day` at `h:m:s` business time.
pub fn at(day: NaiveDate, h: u32, m: u32, s: u32) -> DateTime<Utc> {
    let local = day.and_hms_opt(h, m, s).unwrap();
    TZ.from_local_datetime(&local).unwrap().with_timezone(&Utc)
}

/// When the reminder `n` days before `expiry` goes out (10:00 business time).
pub fn due(expiry: NaiveDate, n: u64) -> DateTime<Utc> {
    instant(expiry - Days::new(n), TZ, NotifyAt::default()).unwrap()
}

/// An active template whose coupons expire at `end`, reminded `remind`.
pub async fn template(server: &Server, end: DateTime<Utc>, remind: Value, limit: i32) -> String {
    let mut body = template_body(1_000_000, limit);
    body["validity"] = json!({"type": "absolute",
        "begin": Utc::now() - chrono::Duration::hours(1), "end": end});
    body["remind_days_before"] = remind;
    server.activate_template(&body).await.unwrap()
}

pub fn users(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Locks `coupon` on a new order of `user` and leaves it locked.
pub async fn lock(server: &Server, user: &str, coupon: Uuid) -> String {
    let order_id = format!("o-{}", Uuid::now_v7());
    let body = json!({
        "order": {"order_id": order_id, "user_id": user, "currency": "CNY",
                  "lines": [{"line_id": "l1", "sku": "s1", "category": "c1",
                             "quantity": 1, "unit_price": "150.00"}]},
        "coupon_ids": [coupon], "expected_payable": "130.00"
    });
    let (status, answer) = server.service_post("/v1/orders/lock", &body).await.unwrap();
    assert_eq!(status, 200, "{answer}");
    order_id
}

pub fn listed(r: &crate::reminders::Reminded) -> BTreeSet<Uuid> {
    r.body.coupons.iter().map(|c| c.coupon_id).collect()
}
