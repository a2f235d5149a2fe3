//! A scripted history: the ledger's own commands (the same SQL guards and
//! events as the API) run at instants the test chooses, each in its own
//! transaction, so a history can span days that have passed.

use std::str::FromStr;

use chrono::{DateTime, Utc};
use ledger::commands::claim::{ClaimRequest, claim};
use ledger::commands::orders::{LockRequest, cancel, confirm, lock, release_expired_locks};
use ledger::commands::refunds::{RefundRequest, refund};
use ledger::commands::{coupons, templates};
use ledger::domain::events::Metadata;
use ledger::domain::ids::{TemplateSn, UserId};
use ledger::domain::money::Money;
use ledger::domain::order::{Order, RawOrder};
use ledger::domain::refund::RefundLine;
use serde_json::json;
use uuid::Uuid;

use crate::Env;

/// The business time zone the script's days are in.
pub const TZ: chrono_tz::Tz = chrono_tz::Asia::Shanghai;

pub struct Script {
    client: deadpool_postgres::Object,
    metadata: Metadata,
}

impl Script {
    pub async fn new(env: &Env) -> anyhow::Result<Self> {
        let config = tokio_postgres::Config::from_str(&env.db.url())?;
        let metadata = Metadata {
            actor: "script".into(),
            correlation_id: Uuid::now_v7().to_string(),
            ..Default::default()
        };
        Ok(Script {
            client: ledger::db::pool(&config, 1).get().await?,
            metadata,
        })
    }

    /// A coupon of `sn` for `user`, asked by `channel` (None: an operator).
    pub async fn claim(
        &mut self,
        at: DateTime<Utc>,
        sn: &str,
        user: &str,
        channel: Option<Uuid>,
    ) -> anyhow::Result<Uuid> {
        let sn = TemplateSn::parse(sn).expect("a valid sn");
        let user = UserId::parse(user).map_err(anyhow::Error::msg)?;
        let req = ClaimRequest {
            facts: &ledger::domain::eligibility::UserFacts::default(),
            template_sn: &sn,
            user_id: &user,
            channel_id: channel.map(ledger::domain::ids::ChannelId),
            now: at,
            tz: TZ,
        };
        let tx = self.client.transaction().await?;
        let issued = claim(&tx, &req, &self.metadata).await?;
        tx.commit().await?;
        Ok(issued.coupon_id)
    }

    /// Locks `coupon` on order `order_id` of `lines` (line id, quantity,
    /// unit price), no shipping; `payable` is what the order then pays.
    pub async fn lock(
        &mut self,
        at: DateTime<Utc>,
        order_id: &str,
        user: &str,
        lines: &[(&str, u32, &str)],
        coupon: Uuid,
        payable: &str,
    ) -> anyhow::Result<()> {
        let raw: RawOrder =
            serde_json::from_value(crate::shop::order(order_id, user, lines, "0.00"))?;
        let order = Order::parse(&raw).map_err(|e| anyhow::anyhow!("{e}"))?;
        let req = LockRequest {
            order: &order,
            coupon_ids: &[coupon],
            expected_payable: Money::parse(payable).map_err(|e| anyhow::anyhow!("{e}"))?,
            request_hash: request_hash(),
            // Longer than the API allows: the script confirms a day later.
            lock_ttl: chrono::Duration::days(2),
            now: at,
            tz: TZ,
        };
        let tx = self.client.transaction().await?;
        lock(&tx, &req, &self.metadata).await?;
        Ok(tx.commit().await?)
    }

    pub async fn confirm(&mut self, at: DateTime<Utc>, order_id: &str) -> anyhow::Result<()> {
        let tx = self.client.transaction().await?;
        confirm(&tx, order_id, &self.metadata, at).await?;
        Ok(tx.commit().await?)
    }

    pub async fn cancel(&mut self, at: DateTime<Utc>, order_id: &str) -> anyhow::Result<()> {
        let tx = self.client.transaction().await?;
        cancel(&tx, order_id, &self.metadata, at).await?;
        Ok(tx.commit().await?)
    }

    /// Refunds `quantity` units of line `line` of the order.
    pub async fn refund(
        &mut self,
        at: DateTime<Utc>,
        order_id: &str,
        line: &str,
        quantity: u32,
    ) -> anyhow::Result<()> {
        let lines = [RefundLine {
            line_id: line.to_owned(),
            quantity,
        }];
        let refund_id = format!("r-{}", Uuid::now_v7());
        let req = RefundRequest {
            order_id,
            refund_id: &refund_id,
            lines: &lines,
            request_hash: request_hash(),
            now: at,
            tz: TZ,
        };
        let tx = self.client.transaction().await?;
        refund(&tx, &req, &self.metadata).await?;
        Ok(tx.commit().await?)
    }

    /// Releases the locks that timed out by `at`; how many.
    pub async fn release_expired(&mut self, at: DateTime<Utc>) -> anyhow::Result<usize> {
        let tx = self.client.transaction().await?;
        let n = release_expired_locks(&tx, at, 1_000).await?;
        tx.commit().await?;
        Ok(n)
    }

    pub async fn void(&mut self, at: DateTime<Utc>, coupon: Uuid) -> anyhow::Result<()> {
        let tx = self.client.transaction().await?;
        coupons::void(&tx, coupon, &self.metadata, at).await?;
        Ok(tx.commit().await?)
    }

    /// Expires every unused coupon past its expiry at `at`; how many.
    pub async fn expire(&mut self, at: DateTime<Utc>) -> anyhow::Result<usize> {
        let tx = self.client.transaction().await?;
        let n = coupons::expire_coupons(&tx, at, 1_000).await?;
        tx.commit().await?;
        Ok(n)
    }

    pub async fn raise_quota(
        &mut self,
        at: DateTime<Utc>,
        sn: &str,
        total: i64,
    ) -> anyhow::Result<()> {
        let sn = TemplateSn::parse(sn).expect("a valid sn");
        let tx = self.client.transaction().await?;
        templates::raise_quota(&tx, &sn, total, &self.metadata, at).await?;
        Ok(tx.commit().await?)
    }
}

/// A template body for a scripted history: `amount` off 100.00 on goods,
/// `policy` on refunds, valid the issue day and `end_days` more, issued from
/// `begin` on.
pub fn template(
    amount: &str,
    policy: &str,
    total: i64,
    begin: DateTime<Utc>,
    end_days: i64,
) -> serde_json::Value {
    let mut body = crate::shop::template(
        "goods",
        crate::shop::fixed_off("100.00", amount),
        "stackable",
        policy,
    );
    body["total"] = json!(total);
    body["issue_window"] = json!({"begin": begin, "end": Utc::now() + chrono::Duration::days(1)});
    body["validity"] = json!({"type": "relative", "begin_days": 0, "end_days": end_days});
    body
}

/// A request hash no other request has (the script never repeats one).
fn request_hash() -> [u8; 32] {
    let mut hash = [0; 32];
    hash[..16].copy_from_slice(Uuid::now_v7().as_bytes());
    hash
}
