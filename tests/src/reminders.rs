//! Notifications from the outside: a touch system's queue bound to
//! `coupon.notifications` (expiry reminders and `CouponsGranted`), the
//! sender called with a chosen "now", and claims straight through the
//! ledger's commands.

use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, NaiveDate, Utc};
use deadpool_postgres::Pool;
use futures_util::StreamExt;
use lapin::options::{BasicConsumeOptions, QueueDeclareOptions};
use lapin::types::{AMQPValue, FieldTable};
use ledger::commands::claim::{ClaimRequest, claim};
use ledger::commands::reminders::{SendLimits, SendReport, send_due};
use ledger::domain::events::Metadata;
use ledger::domain::granted::CouponsGranted;
use ledger::domain::ids::{TemplateSn, UserId};
use ledger::domain::reminder::ExpiryReminder;
use ledger::messaging::lazy_publisher::LazyPublisher;
use ledger::messaging::{self, granted_message, reminder_message, topology};
use uuid::Uuid;

use crate::Env;
use crate::subscriber::Schemas;

/// A notification as the touch system receives it.
#[derive(Clone, Debug)]
pub struct Touched<B> {
    pub message_id: String,
    pub message_type: String,
    pub body: B,
}

/// An expiry reminder as the touch system receives it.
pub type Reminded = Touched<ExpiryReminder>;
/// A `CouponsGranted` as the touch system receives it.
pub type Granted = Touched<CouponsGranted>;

/// A touch system's queue bound to `coupon.notifications`.
pub struct TouchQueue {
    _connection: lapin::Connection,
    consumer: lapin::Consumer,
    schemas: Schemas,
}

impl TouchQueue {
    /// A classic queue.
    pub async fn new(env: &Env, queue: &str) -> anyhow::Result<Self> {
        Self::declared(env, queue, FieldTable::default()).await
    }

    /// A quorum queue, as docs/design.md §5 advises outside subscribers.
    pub async fn quorum(env: &Env, queue: &str) -> anyhow::Result<Self> {
        let mut args = FieldTable::default();
        args.insert(
            "x-queue-type".into(),
            AMQPValue::LongString("quorum".into()),
        );
        Self::declared(env, queue, args).await
    }

    async fn declared(env: &Env, queue: &str, args: FieldTable) -> anyhow::Result<Self> {
        let connection = messaging::connect(&env.vhost.amqp_url, "test-touch").await?;
        let channel = connection.create_channel().await?;
        topology::declare(&channel).await?;
        let durable = QueueDeclareOptions {
            durable: true,
            ..Default::default()
        };
        channel.queue_declare(queue.into(), durable, args).await?;
        topology::bind(&channel, queue, topology::NOTIFICATIONS).await?;
        let no_ack = BasicConsumeOptions {
            no_ack: true,
            ..Default::default()
        };
        let consumer = channel
            .basic_consume(queue.into(), "touch".into(), no_ack, FieldTable::default())
            .await?;
        Ok(Self {
            _connection: connection,
            consumer,
            schemas: Schemas::default(),
        })
    }

    /// Every expiry reminder that arrives until nothing has for `quiet`;
    /// each body is checked against the schema its `schema` header names.
    pub async fn drain(&mut self, quiet: Duration) -> anyhow::Result<Vec<Reminded>> {
        self.drain_as(quiet, |d| Ok(reminder_message::decode(d)?))
            .await
    }

    /// Every `CouponsGranted` that arrives until nothing has for `quiet`,
    /// checked as [`TouchQueue::drain`] checks reminders.
    pub async fn drain_granted(&mut self, quiet: Duration) -> anyhow::Result<Vec<Granted>> {
        self.drain_as(quiet, |d| Ok(granted_message::decode(d)?))
            .await
    }

    async fn drain_as<B>(
        &mut self,
        quiet: Duration,
        decode: impl Fn(&[u8]) -> anyhow::Result<B>,
    ) -> anyhow::Result<Vec<Touched<B>>> {
        let checked = self.drain_checked(quiet).await?;
        checked
            .into_iter()
            .map(|(message_id, message_type, data)| {
                Ok(Touched {
                    message_id,
                    message_type,
                    body: decode(&data)?,
                })
            })
            .collect()
    }

    /// (message id, type, body) of everything that arrives until nothing
    /// has for `quiet`, each body valid against its `schema` header's file.
    async fn drain_checked(
        &mut self,
        quiet: Duration,
    ) -> anyhow::Result<Vec<(String, String, Vec<u8>)>> {
        let mut got = Vec::new();
        while let Ok(next) = tokio::time::timeout(quiet, self.consumer.next()).await {
            let d = next.context("consumer closed")??;
            let headers = d.properties.headers().clone().unwrap_or_default();
            let schema = match headers.inner().get("schema") {
                Some(AMQPValue::LongString(s)) => s.to_string(),
                other => anyhow::bail!("schema header: {other:?}"),
            };
            let received = crate::subscriber::Received {
                message_id: d
                    .properties
                    .message_id()
                    .as_ref()
                    .context("id")?
                    .to_string(),
                event_type: d.properties.kind().as_ref().context("type")?.to_string(),
                stream_id: String::new(),
                stream_version: 0,
                position: 0,
                schema,
                schema_version: None,
                body: serde_json::from_slice(&d.data)?,
            };
            self.schemas.check(&received)?;
            got.push((received.message_id, received.event_type, d.data));
        }
        Ok(got)
    }
}

/// A pool on the test's database, for the sender and direct SQL.
pub fn pool(env: &Env, size: usize) -> anyhow::Result<Pool> {
    let config = tokio_postgres::Config::from_str(&env.db.url())?;
    Ok(ledger::db::pool(&config, size))
}

/// One sender run at `now` against the test's broker, publishing as the
/// workers' sender does (one AMQP transaction per batch).
pub async fn send_at(env: &Env, pool: &Pool, now: DateTime<Utc>) -> anyhow::Result<SendReport> {
    let store = env.store().await?;
    let commit = ledger::messaging::lazy_publisher::Commit::Transaction;
    let publisher = LazyPublisher::committing(&env.vhost.amqp_url, "test-sender", store, commit);
    Ok(send_due(pool, &publisher, now, SendLimits::default()).await?)
}

/// Claims one coupon of `sn` for each entry of `users` (repeats claim
/// again), `per_tx` per transaction; the coupon ids in order.
pub async fn claim_for(
    pool: &Pool,
    sn: &str,
    users: &[String],
    per_tx: usize,
) -> anyhow::Result<Vec<Uuid>> {
    let mut client = pool.get().await?;
    let sn = TemplateSn::parse(sn).context("template sn")?;
    let metadata = Metadata {
        actor: "test".into(),
        correlation_id: Uuid::now_v7().to_string(),
        ..Default::default()
    };
    let mut ids = Vec::with_capacity(users.len());
    for chunk in users.chunks(per_tx.max(1)) {
        let tx = client.transaction().await?;
        for user in chunk {
            let user = UserId::parse(user).map_err(anyhow::Error::msg)?;
            let req = ClaimRequest {
                facts: &ledger::domain::eligibility::UserFacts::default(),
                template_sn: &sn,
                user_id: &user,
                channel_id: None,
                now: ledger::store::now(),
                tz: chrono_tz::Asia::Shanghai,
            };
            ids.push(claim(&tx, &req, &metadata).await?.coupon_id);
        }
        tx.commit().await?;
    }
    Ok(ids)
}

/// Claims one coupon of `sn` for `user` as if at `now` (inside the
/// template's issue window): for a reminder whose hour has passed at issue.
pub async fn claim_at(
    pool: &Pool,
    sn: &str,
    user: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<Uuid> {
    let mut client = pool.get().await?;
    let sn = TemplateSn::parse(sn).context("template sn")?;
    let user = UserId::parse(user).map_err(anyhow::Error::msg)?;
    let metadata = Metadata {
        actor: "test".into(),
        correlation_id: Uuid::now_v7().to_string(),
        ..Default::default()
    };
    let req = ClaimRequest {
        facts: &ledger::domain::eligibility::UserFacts::default(),
        template_sn: &sn,
        user_id: &user,
        channel_id: None,
        now: chrono::SubsecRound::trunc_subsecs(now, 6),
        tz: chrono_tz::Asia::Shanghai,
    };
    let tx = client.transaction().await?;
    let id = claim(&tx, &req, &metadata).await?.coupon_id;
    tx.commit().await?;
    Ok(id)
}

/// Issues one coupon of `sn` per entry of `users` (repeats allowed up to the
/// per-user limit) the way bulk issuance does — a job whose 1,000-line
/// chunks go through `commands::issuance::apply_chunk` — for tests that
/// need a volume of coupons quickly; the coupon ids in `users`' order.
pub async fn issue_for(pool: &Pool, sn: &str, users: &[String]) -> anyhow::Result<Vec<Uuid>> {
    use ledger::domain::issuance::{ChunkLine, IssuanceChunk};
    let mut client = pool.get().await?;
    let job = Uuid::now_v7();
    let chunks: Vec<IssuanceChunk> = users
        .chunks(1_000)
        .enumerate()
        .map(|(n, part)| IssuanceChunk {
            job_id: job,
            chunk_no: i32::try_from(n).expect("a test's chunks fit i32"),
            template_sn: ledger::domain::ids::TemplateSn::stored(sn.to_owned()),
            lines: part
                .iter()
                .enumerate()
                .map(|(i, u)| ChunkLine {
                    line: (n * 1_000 + i + 1) as u64,
                    user_id: UserId::parse(u).expect("a test user id"),
                })
                .collect(),
        })
        .collect();
    client
        .execute(
            "INSERT INTO issuance_jobs (id, template_sn, job_key, format, status, created_at,
                                        updated_at, chunks_total)
             VALUES ($1, $2, $3, 'plain', 'queued', now(), now(), $4)",
            &[&job, &sn, &job.to_string(), &(chunks.len() as i32)],
        )
        .await?;
    let metadata = Metadata {
        actor: "test".into(),
        correlation_id: job.to_string(),
        ..Default::default()
    };
    for c in &chunks {
        let (first, last) = (
            c.lines[0].line as i64,
            c.lines[c.lines.len() - 1].line as i64,
        );
        let tx = client.transaction().await?;
        tx.execute(
            "INSERT INTO issuance_chunks (job_id, chunk_no, lines, first_line, last_line,
                                          digest, published_at)
             VALUES ($1, $2, $3, $4, $5, '\\x00', now())",
            &[&job, &c.chunk_no, &(c.lines.len() as i32), &first, &last],
        )
        .await?;
        let now = ledger::store::now();
        let tz = chrono_tz::Asia::Shanghai;
        let outcome = ledger::commands::issuance::apply_chunk(&tx, c, &metadata, now, tz).await?;
        anyhow::ensure!(outcome.issued as usize == c.lines.len(), "{outcome:?}");
        tx.commit().await?;
    }
    let rows = client
        .query(
            "SELECT id FROM coupons WHERE job_id = $1 ORDER BY job_line",
            &[&job],
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Waits until the notify projection has been given every stored event.
pub async fn notify_caught_up(env: &Env, timeout: Duration) -> anyhow::Result<()> {
    let client = env.db.client().await?;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let row = client
            .query_one(
                "SELECT (SELECT count(*) FROM events),
                        (SELECT coalesce(max(applied), 0) FROM projection_positions
                          WHERE projection = 'notify')",
                &[],
            )
            .await?;
        let (events, applied): (i64, i64) = (row.get(0), row.get(1));
        if applied >= events {
            return Ok(());
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "notify applied {applied} of {events} events"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `notify_msg` as (user, template, day) → (status, attempts).
pub async fn rows(env: &Env) -> anyhow::Result<HashMap<(String, String, NaiveDate), (i16, i32)>> {
    let client = env.db.client().await?;
    let rows = client
        .query(
            "SELECT user_id, template_sn, notify_day, status, attempts FROM notify_msg",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| ((r.get(0), r.get(1), r.get(2)), (r.get(3), r.get(4))))
        .collect())
}
