//! The Redis gate (docs/design.md §12): a template's remaining stock and its
//! claimers, cached in Redis, so that sold-out, at-limit and rate-limited
//! claims are refused in one round trip without touching Postgres.
//!
//! Postgres stays the only truth. A reservation (a unit taken off the stock
//! and counted to the user) is given back when the database refuses or fails
//! the claim. Every reset from Postgres ([`warm`]) can only leave Redis
//! optimistic (more stock, fewer claims than the truth): claims that commit
//! between the read and the reset are not subtracted, so a reset never makes
//! the gate refuse a claim the database would grant. A reservation lost in a
//! crash leaves Redis pessimistic until the next reset, which the reconciler
//! runs on start, periodically and when the gate answers sold out.

use std::sync::LazyLock;

use futures_util::{TryStreamExt, pin_mut};
use redis::Script;
use redis::aio::ConnectionManager;
use tokio_postgres::GenericClient;

use crate::domain::ids::TemplateSn;
use crate::domain::nonce;
use crate::domain::rate_limit::{Bucket, RateLimit};
use crate::domain::template_status::TemplateStatus;
use crate::redis_link::RedisHandle;

static ADMIT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("admit.lua")));
static RELEASE: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("release.lua")));
static WARM: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("warm.lua")));

/// How long a warmed gate lives without a reset (the reconciler renews it).
const TTL_SECS: u64 = 24 * 3600;
/// Claimers written to Redis per pipeline during a warm-up.
const WARM_CHUNK: usize = 5_000;

/// What the gate says about one claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// A unit is reserved for the user: the database decides now.
    Reserved,
    SoldOut,
    AtLimit,
    /// Over a rate limit: retry after this many milliseconds.
    RateLimited {
        wait_ms: u64,
    },
    /// The template is not warmed (or Redis was flushed): ask Postgres.
    Cold,
    /// Within the rate limits; the stock was not asked (`rates_only`).
    WithinRates,
    /// The request's nonce was spent before: a replay.
    Replay,
}

/// The keys of one template's gate.
pub struct Keys {
    pub stock: String,
    pub claimers: String,
}

impl Keys {
    pub fn of(redis: &RedisHandle, sn: &TemplateSn) -> Self {
        Self {
            stock: redis.key(&["flash", sn.as_str(), "stock"]),
            claimers: redis.key(&["flash", sn.as_str(), "claimers"]),
        }
    }
}

/// Who claims, and under which limits.
pub struct Claimant<'a> {
    pub sn: &'a TemplateSn,
    pub user: &'a str,
    pub channel: Option<crate::domain::ids::ChannelId>,
    pub per_user_limit: i32,
    pub rate_limit: RateLimit,
    /// Only the rate limits: a request with an Idempotency-Key, whose stored
    /// answer must win over the gate's.
    pub rates_only: bool,
    /// The signed request's nonce, spent in Redis by the same script.
    pub nonce: &'a str,
}

fn bucket_args(b: Option<Bucket>) -> (u32, u32) {
    b.map_or((0, 0), |b| (b.per_second, b.burst))
}

/// Runs the gate's script for one claim.
pub async fn admit(
    redis: &RedisHandle,
    conn: &mut ConnectionManager,
    c: &Claimant<'_>,
) -> redis::RedisResult<Admission> {
    let keys = Keys::of(redis, c.sn);
    let channel = c
        .channel
        .map_or_else(|| "-".to_owned(), |id| id.to_string());
    let (ch_rate, ch_burst) = bucket_args(c.rate_limit.per_channel);
    let (u_rate, u_burst) = bucket_args(c.rate_limit.per_user);
    let (code, wait): (i64, i64) = ADMIT
        .key(&keys.stock)
        .key(&keys.claimers)
        .key(redis.key(&["rl", c.sn.as_str(), "ch", &channel]))
        .key(redis.key(&["rl", c.sn.as_str(), "u", c.user]))
        .key(redis.key(&nonce::key_parts(&channel, c.nonce)))
        .arg(c.user)
        .arg(c.per_user_limit)
        .arg(ch_rate)
        .arg(ch_burst)
        .arg(u_rate)
        .arg(u_burst)
        .arg(if c.rates_only { "1" } else { "0" })
        .arg(nonce::TTL_SECS)
        .invoke_async(conn)
        .await?;
    Ok(match code {
        0 => Admission::Reserved,
        1 => Admission::SoldOut,
        2 => Admission::AtLimit,
        3 => Admission::RateLimited {
            wait_ms: u64::try_from(wait).unwrap_or(1),
        },
        5 => Admission::WithinRates,
        6 => Admission::Replay,
        _ => Admission::Cold,
    })
}

/// What refused reservations give back: units of stock, and one claim of
/// each user listed (a user twice: two claims).
#[derive(Default)]
pub struct GiveBack<'a> {
    pub units: usize,
    pub users: Vec<&'a str>,
}

impl GiveBack<'_> {
    pub fn is_empty(&self) -> bool {
        self.units == 0 && self.users.is_empty()
    }
}

/// Gives reservations back.
pub async fn release(
    redis: &RedisHandle,
    conn: &mut ConnectionManager,
    sn: &TemplateSn,
    back: &GiveBack<'_>,
) -> redis::RedisResult<()> {
    let keys = Keys::of(redis, sn);
    let mut call = RELEASE.key(&keys.stock);
    call.key(&keys.claimers).arg(back.units);
    for user in &back.users {
        call.arg(*user);
    }
    call.invoke_async::<i64>(conn).await?;
    Ok(())
}

/// A reset of one template's gate: how far Redis was off.
pub struct Reset {
    /// Stock Redis held before, None when it held none (cold).
    pub before: Option<i64>,
    pub after: i64,
}

/// Resets the stock of `sn` from Postgres, and with `claimers` its claimers
/// too (streamed in chunks into a fresh key, then swapped in). None when the
/// template is not active: its gate is dropped, claims go to Postgres.
pub async fn warm(
    client: &impl GenericClient,
    redis: &RedisHandle,
    conn: &mut ConnectionManager,
    sn: &TemplateSn,
    claimers: bool,
) -> anyhow::Result<Option<Reset>> {
    let keys = Keys::of(redis, sn);
    let row = client
        .query_opt(
            "SELECT total - issued FROM templates WHERE sn = $1 AND status = $2",
            &[&sn, &TemplateStatus::Active.as_str()],
        )
        .await?;
    let Some(row) = row else {
        // UNLINK: a stopped sale's claimers are freed off Redis' main thread.
        redis::pipe()
            .unlink(&keys.stock)
            .unlink(&keys.claimers)
            .query_async::<()>(conn)
            .await?;
        return Ok(None);
    };
    let remaining: i64 = row.get(0);
    let loaded = redis.key(&[
        "flash",
        sn.as_str(),
        "loading",
        &uuid::Uuid::now_v7().to_string(),
    ]);
    if claimers {
        load_claimers(client, conn, sn, &loaded).await?;
    }
    let before: i64 = WARM
        .key(&keys.stock)
        .key(&keys.claimers)
        .key(&loaded)
        .arg(remaining)
        .arg(TTL_SECS)
        .arg(if claimers { "full" } else { "stock" })
        .invoke_async(conn)
        .await?;
    Ok(Some(Reset {
        before: (before >= 0).then_some(before),
        after: remaining,
    }))
}

/// Streams the template's `user_claims` into the hash `into`.
async fn load_claimers(
    client: &impl GenericClient,
    conn: &mut ConnectionManager,
    sn: &TemplateSn,
    into: &str,
) -> anyhow::Result<()> {
    let rows = client
        .query_raw(
            "SELECT user_id, claimed FROM user_claims WHERE template_sn = $1 AND claimed > 0",
            [sn],
        )
        .await?;
    pin_mut!(rows);
    let mut chunk: Vec<(String, i32)> = Vec::with_capacity(WARM_CHUNK);
    while let Some(row) = rows.try_next().await? {
        chunk.push((row.get(0), row.get(1)));
        if chunk.len() == WARM_CHUNK {
            write_claimers(conn, into, &chunk).await?;
            chunk.clear();
        }
    }
    write_claimers(conn, into, &chunk).await?;
    Ok(())
}

async fn write_claimers(
    conn: &mut ConnectionManager,
    into: &str,
    chunk: &[(String, i32)],
) -> redis::RedisResult<()> {
    if chunk.is_empty() {
        return Ok(());
    }
    redis::pipe()
        .hset_multiple(into, chunk)
        .expire(into, 600)
        .query_async(conn)
        .await
}
