//! The mixed workload: what each client sends, until the run's end, and
//! the campaign it runs against (made before the first fault).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Context;
use serde_json::{Value, json};

use super::client::{Auth, Client, Sent};
use super::history::{Entry, History, Op};
use crate::{Channel, template_body};

/// The flash sale's stock: small, so it sells out under the run's load.
pub const FLASH_TOTAL: i64 = 150;
/// One-use codes, and the uses of the one shared code.
pub const ONE_USE_CODES: usize = 400;
pub const SHARED_USES: i64 = 60;
/// Each upload: lines of users, then a few lines no parser takes.
pub const UPLOAD_LINES: usize = 3_000;
const BAD_LINES: [&str; 2] = ["not a user id!", "\u{1}"];
/// Users of the hot template and of the package: few, so limits are met.
const HOT_USERS: usize = 200;
const PACKAGE_USERS: usize = 600;
const DOOMED_USERS: usize = 400;

/// The campaign: templates (sn and per-user limit), the channel, the codes.
pub struct Campaign {
    pub hot: String,
    pub flash: String,
    pub doomed: String,
    pub shop: String,
    pub bulk: String,
    pub code_template: String,
    pub package: String,
    pub package_items: Vec<(String, i64)>,
    pub channel: Channel,
    pub one_use: Vec<String>,
    pub shared: String,
}

impl Campaign {
    /// The per-user limit of each template the run claims from.
    pub fn limits(&self) -> Vec<(&str, i64)> {
        let mut limits = vec![
            (self.hot.as_str(), 2),
            (self.flash.as_str(), 1),
            (self.doomed.as_str(), 5),
            (self.shop.as_str(), 1),
            (self.bulk.as_str(), 1),
        ];
        limits.extend(self.package_items.iter().map(|(sn, n)| (sn.as_str(), *n)));
        limits
    }

    /// Made through the serves before any fault.
    pub async fn make(client: &Client) -> anyhow::Result<Self> {
        let channel = channel(client).await?;
        let t = |total, limit| template(client, template_body(total, limit), Some(&channel));
        let (hot, flash, doomed, shop) = (
            t(1_000_000, 2).await?,
            t(FLASH_TOTAL, 1).await?,
            t(1_000_000, 5).await?,
            t(1_000_000, 1).await?,
        );
        let bulk = template(client, template_body(100_000, 1), None).await?;
        let code_template = template(client, template_body(1_000_000, 1), None).await?;
        let package_items = vec![
            (
                template(client, template_body(1_000_000, 1), None).await?,
                1,
            ),
            (
                template(client, template_body(1_000_000, 2), None).await?,
                2,
            ),
        ];
        let package = package(client, &package_items, &channel).await?;
        let one_use = codes(
            client,
            json!({"template_sn": code_template, "count": ONE_USE_CODES}),
        )
        .await?;
        let shared_body = json!({"template_sn": code_template, "count": 1,
                                 "uses_per_code": SHARED_USES});
        let shared = codes(client, shared_body)
            .await?
            .pop()
            .context("a shared code")?;
        Ok(Campaign {
            hot,
            flash,
            doomed,
            shop,
            bulk,
            code_template,
            package,
            package_items,
            channel,
            one_use,
            shared,
        })
    }
}

async fn must(sent: Sent, wanted: u16, what: &str) -> anyhow::Result<Value> {
    match sent.answer.status() {
        Some(s) if s == wanted => Ok(sent.answer.body().clone()),
        _ => anyhow::bail!("{what}: {:?}", sent.answer),
    }
}

async fn channel(client: &Client) -> anyhow::Result<Channel> {
    let body = json!({"name": "fault suite"});
    let sent = client.post(Auth::Admin, "/v1/channels", &body, None).await;
    let made = must(sent, 201, "a channel").await?;
    Ok(Channel {
        id: made["id"].as_str().context("id")?.to_owned(),
        secret: made["secret"].as_str().context("secret")?.to_owned(),
    })
}

async fn template(
    client: &Client,
    body: Value,
    channel: Option<&Channel>,
) -> anyhow::Result<String> {
    let sent = client.post(Auth::Admin, "/v1/templates", &body, None).await;
    let sn = must(sent, 201, "a template").await?["sn"]
        .as_str()
        .context("sn")?
        .to_owned();
    let path = format!("/v1/templates/{sn}/activate");
    must(
        client.post(Auth::Admin, &path, &json!({}), None).await,
        200,
        "activate",
    )
    .await?;
    if let Some(channel) = channel {
        let path = format!("/v1/templates/{sn}/channels");
        let allow = json!({"channel_id": channel.id});
        must(
            client.post(Auth::Admin, &path, &allow, None).await,
            200,
            "allow",
        )
        .await?;
    }
    Ok(sn)
}

async fn package(
    client: &Client,
    items: &[(String, i64)],
    channel: &Channel,
) -> anyhow::Result<String> {
    let now = chrono::Utc::now();
    let items: Vec<Value> = items
        .iter()
        .map(|(sn, count)| json!({"template_sn": sn, "count": count}))
        .collect();
    let body = json!({"name": "fault pack", "items": items, "total": 100_000, "per_user_limit": 1,
        "issue_window": {"begin": now - chrono::Duration::hours(1), "end": now + chrono::Duration::days(1)},
        "channels": [channel.id]});
    let sent = client.post(Auth::Admin, "/v1/packages", &body, None).await;
    let sn = must(sent, 201, "a package").await?["sn"]
        .as_str()
        .context("sn")?
        .to_owned();
    let path = format!("/v1/packages/{sn}/activate");
    must(
        client.post(Auth::Admin, &path, &json!({}), None).await,
        200,
        "activate",
    )
    .await?;
    Ok(sn)
}

async fn codes(client: &Client, body: Value) -> anyhow::Result<Vec<String>> {
    let sent = client
        .post(Auth::Admin, "/v1/code-batches", &body, None)
        .await;
    let batch = must(sent, 201, "a code batch").await?;
    let id = batch["id"].as_str().context("id")?;
    let sent = client
        .get_text(&format!("/v1/code-batches/{id}/codes"))
        .await?;
    Ok(sent.lines().map(str::to_owned).collect())
}

/// What the clients share: the campaign, the history, counters.
pub struct Shared {
    pub campaign: Campaign,
    pub history: History,
    pub client: Client,
    next: AtomicUsize,
    next_code: AtomicUsize,
}

impl Shared {
    pub fn new(campaign: Campaign, history: History, client: Client) -> Self {
        Shared {
            campaign,
            history,
            client,
            next: AtomicUsize::new(0),
            next_code: AtomicUsize::new(0),
        }
    }

    fn fresh(&self) -> usize {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    async fn record(&self, op: Op, key: String, subject: String, started_ms: u64, sent: &Sent) {
        self.history.push(Entry {
            op,
            key,
            subject,
            answer: sent.answer.clone(),
            tries: sent.tries,
            uncertain_tries: sent.uncertain,
            started_ms,
            ended_ms: self.history.now_ms(),
        });
    }

    /// A request recorded in the history; its answer.
    async fn send(
        &self,
        op: Op,
        subject: String,
        path: &str,
        body: Value,
        auth: Auth<'_>,
        keyed: bool,
    ) -> Sent {
        let key = format!("{}-{}", <&str>::from(op), uuid::Uuid::new_v4());
        let started = self.history.now_ms();
        let sent = self
            .client
            .post(auth, path, &body, keyed.then_some(key.as_str()))
            .await;
        self.record(op, key, subject, started, &sent).await;
        sent
    }
}

/// One client: operations picked at random until `until`.
pub async fn client(shared: Arc<Shared>, until: tokio::time::Instant) {
    while tokio::time::Instant::now() < until {
        let pick = rand::random_range(0..100);
        match pick {
            0..30 => claim_hot(&shared).await,
            30..40 => claim_flash(&shared).await,
            40..50 => claim_doomed(&shared).await,
            50..70 => checkout(&shared).await,
            70..80 => redeem(&shared).await,
            80..85 => redeem_shared(&shared).await,
            _ => package_claim(&shared).await,
        }
    }
}

async fn claim(shared: &Shared, op: Op, sn: &str, user: String, keyed: bool) -> Sent {
    let body = json!({"template_sn": sn, "user_id": user});
    let auth = Auth::Channel(&shared.campaign.channel);
    shared.send(op, user, "/v1/claims", body, auth, keyed).await
}

async fn claim_hot(shared: &Shared) {
    let user = format!("hot-u{}", rand::random_range(0..HOT_USERS));
    claim(shared, Op::ClaimHot, &shared.campaign.hot, user, true).await;
}

/// No Idempotency-Key: the flash sale's group commit; a retry is a new
/// claim, which the per-user limit of one answers.
async fn claim_flash(shared: &Shared) {
    let user = format!("flash-u{}", shared.fresh());
    claim(shared, Op::ClaimFlash, &shared.campaign.flash, user, false).await;
}

async fn claim_doomed(shared: &Shared) {
    let user = format!("doom-u{}", rand::random_range(0..DOOMED_USERS));
    claim(shared, Op::ClaimDoomed, &shared.campaign.doomed, user, true).await;
}

/// Claim, lock, then confirm (and maybe refund one of two units) or cancel.
async fn checkout(shared: &Shared) {
    let user = format!("shop-u{}", shared.fresh());
    let sent = claim(
        shared,
        Op::ClaimShop,
        &shared.campaign.shop,
        user.clone(),
        true,
    )
    .await;
    let Some(coupon) = sent
        .answer
        .is(201)
        .then(|| sent.answer.body()["id"].clone())
    else {
        return;
    };
    let order_id = format!("o-{}", uuid::Uuid::now_v7());
    let body = json!({
        "order": {"order_id": order_id, "user_id": user, "currency": "CNY",
                  "lines": [{"line_id": "l1", "sku": "s1", "category": "c1",
                             "quantity": 2, "unit_price": "75.00"}],
                  "shipping_fee": "0.00"},
        "coupon_ids": [coupon], "expected_payable": "130.00"
    });
    let svc = Auth::Service;
    let sent = shared
        .send(
            Op::Lock,
            order_id.clone(),
            "/v1/orders/lock",
            body,
            svc,
            true,
        )
        .await;
    if !sent.answer.is(200) {
        return;
    }
    let (op, action) = if rand::random_bool(0.6) {
        (Op::Confirm, "confirm")
    } else {
        (Op::Cancel, "cancel")
    };
    let path = format!("/v1/orders/{order_id}/{action}");
    let sent = shared
        .send(op, order_id.clone(), &path, json!({}), svc, true)
        .await;
    if op == Op::Confirm && sent.answer.is(200) && rand::random_bool(0.5) {
        let path = format!("/v1/orders/{order_id}/refunds");
        let body = json!({"refund_id": "r1", "lines": [{"line_id": "l1", "quantity": 1}]});
        shared
            .send(Op::Refund, order_id, &path, body, svc, true)
            .await;
    }
}

async fn redeem(shared: &Shared) {
    let i = shared.next_code.fetch_add(1, Ordering::Relaxed);
    // Past the last code, codes come round again: a used code's answer.
    let code = &shared.campaign.one_use[i % shared.campaign.one_use.len()];
    let body = json!({"code": code, "user_id": format!("red-u{i}")});
    shared
        .send(
            Op::Redeem,
            code.clone(),
            "/v1/redemptions",
            body,
            Auth::Service,
            true,
        )
        .await;
}

async fn redeem_shared(shared: &Shared) {
    let user = format!("share-u{}", shared.fresh());
    let body = json!({"code": shared.campaign.shared, "user_id": user});
    shared
        .send(
            Op::RedeemShared,
            user,
            "/v1/redemptions",
            body,
            Auth::Service,
            true,
        )
        .await;
}

async fn package_claim(shared: &Shared) {
    let user = format!("pk-u{}", rand::random_range(0..PACKAGE_USERS));
    let path = format!("/v1/packages/{}/claims", shared.campaign.package);
    let auth = Auth::Channel(&shared.campaign.channel);
    shared
        .send(
            Op::PackageClaim,
            user.clone(),
            &path,
            json!({"user_id": user}),
            auth,
            true,
        )
        .await;
}

/// The two bulk issuances: the first at once, the second a third of the
/// way in; each retried with its key until answered.
pub async fn uploads(shared: Arc<Shared>, length: Duration) {
    for job in 0..2 {
        if job == 1 {
            tokio::time::sleep(length / 3).await;
        }
        let mut file: String = (0..UPLOAD_LINES)
            .map(|i| format!("bulk-{job}-{i}\n"))
            .collect();
        for bad in BAD_LINES {
            file.push_str(bad);
            file.push('\n');
        }
        let key = format!("upload-{job}");
        let path = format!("/v1/issuance-jobs?template={}", shared.campaign.bulk);
        let started = shared.history.now_ms();
        let sent = shared.client.upload(&path, file.into_bytes(), &key).await;
        shared
            .record(Op::Upload, key, format!("job {job}"), started, &sent)
            .await;
    }
}

/// The doomed template voided halfway through.
pub async fn void(shared: Arc<Shared>, length: Duration) {
    tokio::time::sleep(length / 2).await;
    let path = format!("/v1/templates/{}/void", shared.campaign.doomed);
    let sn = shared.campaign.doomed.clone();
    shared
        .send(Op::Void, sn, &path, json!({}), Auth::Admin, true)
        .await;
}
