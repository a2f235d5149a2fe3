//! Redemptions of one code batch written together (group commit,
//! docs/design.md §12–13): one transaction, each guard one statement over the batch, in
//! the single redemption's order ([`super::redeem`]): the codes' uses
//! (`uses < uses_per_code`), the (code, user) pairs already redeemed, the
//! users' count of the batch (`per_user`), then the template's claim guards
//! over what is left standing ([`super::claim_batch::claim_standing`]).
//! Where no pair can have been redeemed before (one use per code, or one
//! code per user), the uses and the count are one statement.
//! A request refused at a later guard gives back what the earlier ones took.
//!
//! The batcher puts each user and each code at most once in a batch, so
//! every upsert touches distinct rows; rows are taken sorted, so batches of
//! other processes cannot deadlock with this one. For a batch of a
//! template's codes only: a package's code is redeemed alone.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deadpool_postgres::Transaction;
use futures_util::TryFutureExt;
use futures_util::future::try_join;
use tokio_postgres::types::ToSql;

use super::CommandError;
use super::claim_batch::{self, BatchClaim};
use super::code_batches;
use super::redeem;
use super::template_guards::open;
use crate::domain::claim_batch::Refusal;
use crate::domain::events::{CodeRedeemed, CodeRef, CouponIssued};
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::stream::Stream;
use crate::store::{self, NewEvent, StreamEvent};
use crate::write_model::code_batch_row::Batch;

/// One request of a batch: the code's serial, and the claim it becomes
/// (user, metadata, the request's collector of event ids).
pub struct BatchRedemption {
    pub serial: i64,
    pub claim: BatchClaim,
}

/// A granted redemption: its coupon and the code's uses after it.
pub type Outcome = Result<(CouponIssued, i32), Refusal>;

pub async fn redeem_batch(
    tx: &Transaction<'_>,
    batch: &Batch,
    items: &mut [BatchRedemption],
    now: DateTime<Utc>,
    tz: Tz,
) -> Result<(Vec<Outcome>, i32), CommandError> {
    debug_assert!(!items.is_empty() && items.len() <= claim_batch::MAX_BATCH);
    debug_assert!(distinct(items), "one request per user and per code");
    let sn = batch.template_sn.as_ref().ok_or_else(|| {
        CommandError::Internal(anyhow::anyhow!("a package's code is redeemed alone"))
    })?;
    // Two reads sent together (one round trip).
    let (current, (view, _)) = try_join(
        code_batches::current(tx, batch),
        claim_batch::read_template(tx, sn, &[]),
    )
    .await?;
    redeem::open(&current, now)?;
    open::open_for_claims(&view, now)?;
    for item in items.iter_mut() {
        item.claim.metadata.code = Some(CodeRef {
            batch_id: batch.id,
            serial: item.serial,
        });
    }
    let mut refused = vec![None; items.len()];
    let uses = guard_codes(tx, batch, items, &mut refused).await?;
    let claims: Vec<BatchClaim> = items.iter().map(|i| i.claim.clone()).collect();
    let (issued, events) =
        claim_batch::claim_standing(tx, sn, &claims, refused, &view, (now, tz)).await?;
    give_back(tx, batch, items, &issued).await?;
    let outcomes: Vec<Outcome> = issued
        .into_iter()
        .zip(&uses)
        .map(|(o, u)| o.map(|c| (c, u.unwrap_or(0))))
        .collect();
    record(tx, batch, items, &outcomes, (events, now)).await?;
    Ok((outcomes, view.per_user_limit))
}

/// The code batch's guards: the codes' uses, the pairs, the users' count.
/// Each code's uses after it, `None` for the codes used up.
async fn guard_codes(
    tx: &Transaction<'_>,
    batch: &Batch,
    items: &[BatchRedemption],
    refused: &mut [Option<Refusal>],
) -> Result<Vec<Option<i32>>, CommandError> {
    if !pairs_possible(batch) {
        return use_and_count(tx, batch, items, refused).await;
    }
    let uses = use_codes(tx, batch, items, refused).await?;
    refuse_pairs(tx, batch, items, refused).await?;
    count_users(tx, batch, items, refused).await?;
    Ok(uses)
}

/// Whether a user may have redeemed a code of the batch before: only when
/// a code has several uses and a user may redeem several of its codes.
fn pairs_possible(batch: &Batch) -> bool {
    batch.uses_per_code > 1 && batch.per_user > 1
}

fn distinct(items: &[BatchRedemption]) -> bool {
    let users: HashSet<&str> = items.iter().map(|i| i.claim.user_id.as_str()).collect();
    let codes: HashSet<i64> = items.iter().map(|i| i.serial).collect();
    users.len() == items.len() && codes.len() == items.len()
}

/// A statement's parameters of several types, as `query` takes them (an
/// array literal of them would not coerce on its own).
fn params<'a>(p: &'a [&'a (dyn ToSql + Sync)]) -> &'a [&'a (dyn ToSql + Sync)] {
    p
}

/// One use of each code of batch `$1`, serials `$2`, that has one left
/// (`$3` uses a code).
macro_rules! use_codes_sql {
    () => {
        "INSERT INTO code_uses AS c (batch_id, serial, uses)
         SELECT $1, s, 1 FROM unnest($2::bigint[]) AS s ORDER BY s
         ON CONFLICT (batch_id, serial) DO UPDATE SET uses = c.uses + 1 WHERE c.uses < $3
         RETURNING serial, uses"
    };
}

/// One more of batch `$1`'s codes for each user of the `users (v)` before
/// it, up to the parameter `limit`, rows taken in the users' order.
macro_rules! count_users_sql {
    ($limit:literal) => {
        concat!(
            "INSERT INTO code_batch_users AS u (batch_id, user_id, redeemed)
             SELECT $1, v, 1 FROM users ORDER BY v
             ON CONFLICT (batch_id, user_id) DO UPDATE SET redeemed = u.redeemed + 1
              WHERE u.redeemed < ",
            $limit,
            " RETURNING user_id"
        )
    };
}

/// One use of each code that has one left; the others are used up.
async fn use_codes(
    tx: &Transaction<'_>,
    batch: &Batch,
    items: &[BatchRedemption],
    refused: &mut [Option<Refusal>],
) -> Result<Vec<Option<i32>>, CommandError> {
    let serials: Vec<i64> = items.iter().map(|i| i.serial).collect();
    let rows = tx
        .query(
            &tx.prepare_cached(use_codes_sql!()).await?,
            params(&[&batch.id, &serials, &batch.uses_per_code]),
        )
        .await?;
    let used: HashMap<i64, i32> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    Ok(refuse_used_up(items, &used, refused))
}

/// Each request's code's uses after it; the codes not in `used` are used up.
fn refuse_used_up(
    items: &[BatchRedemption],
    used: &HashMap<i64, i32>,
    refused: &mut [Option<Refusal>],
) -> Vec<Option<i32>> {
    let uses: Vec<Option<i32>> = items.iter().map(|i| used.get(&i.serial).copied()).collect();
    for (u, r) in uses.iter().zip(refused.iter_mut()) {
        if u.is_none() {
            *r = Some(Refusal::UsedUp);
        }
    }
    uses
}

/// [`use_codes`] then [`count_users`] in one statement, for the batches
/// where no pair can have been redeemed before (one use per code, or one
/// code per user): the users of the codes that got a use are counted. The
/// second insert's `ORDER BY` reads all of the first's rows before it
/// writes, so every code's row is taken before any user's, in the same
/// order as by the two statements apart.
async fn use_and_count(
    tx: &Transaction<'_>,
    batch: &Batch,
    items: &[BatchRedemption],
    refused: &mut [Option<Refusal>],
) -> Result<Vec<Option<i32>>, CommandError> {
    const SQL: &str = concat!(
        "WITH used AS (",
        use_codes_sql!(),
        "), users AS (SELECT r.u AS v FROM unnest($2::bigint[], $4::text[]) AS r (s, u)
                        JOIN used ON used.serial = r.s),
            counted AS (",
        count_users_sql!("$5"),
        ") SELECT serial, uses, NULL FROM used
           UNION ALL SELECT NULL, NULL, user_id FROM counted"
    );
    let serials: Vec<i64> = items.iter().map(|i| i.serial).collect();
    let users: Vec<&str> = items.iter().map(|i| i.claim.user_id.as_str()).collect();
    let rows = tx
        .query(
            &tx.prepare_cached(SQL).await?,
            params(&[
                &batch.id,
                &serials,
                &batch.uses_per_code,
                &users,
                &batch.per_user,
            ]),
        )
        .await?;
    let used: HashMap<i64, i32> = rows
        .iter()
        .filter_map(|r| Some((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i32>>(1)?)))
        .collect();
    let counted: HashSet<&str> = rows.iter().filter_map(|r| r.get(2)).collect();
    let uses = refuse_used_up(items, &used, refused);
    refuse_uncounted(items, &counted, refused);
    Ok(uses)
}

/// A shared code redeemed before by the same user ([`pairs_possible`]);
/// the code's row, locked by [`use_codes`], serializes its pairs.
async fn refuse_pairs(
    tx: &Transaction<'_>,
    batch: &Batch,
    items: &[BatchRedemption],
    refused: &mut [Option<Refusal>],
) -> Result<(), CommandError> {
    debug_assert!(pairs_possible(batch));
    let (serials, users) = standing(items, refused);
    let sql = "SELECT serial, user_id FROM code_redemptions
                WHERE batch_id = $1
                  AND (serial, user_id) IN (SELECT * FROM unnest($2::bigint[], $3::text[]))";
    let rows = tx
        .query(
            &tx.prepare_cached(sql).await?,
            params(&[&batch.id, &serials, &users]),
        )
        .await?;
    let pairs: HashSet<(i64, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    for (item, r) in items.iter().zip(refused.iter_mut()) {
        if r.is_none() && pairs.contains(&(item.serial, item.claim.user_id.as_str().to_owned())) {
            *r = Some(Refusal::AlreadyRedeemed);
        }
    }
    Ok(())
}

/// The standing requests' serials and users.
fn standing(items: &[BatchRedemption], refused: &[Option<Refusal>]) -> (Vec<i64>, Vec<String>) {
    items
        .iter()
        .zip(refused)
        .filter(|(_, r)| r.is_none())
        .map(|(i, _)| (i.serial, i.claim.user_id.as_str().to_owned()))
        .unzip()
}

/// One more of the batch's codes for each standing user, up to `per_user`.
async fn count_users(
    tx: &Transaction<'_>,
    batch: &Batch,
    items: &[BatchRedemption],
    refused: &mut [Option<Refusal>],
) -> Result<(), CommandError> {
    let (_, users) = standing(items, refused);
    if users.is_empty() {
        return Ok(());
    }
    const SQL: &str = concat!(
        "WITH users AS (SELECT unnest($2::text[]) AS v) ",
        count_users_sql!("$3")
    );
    let rows = tx
        .query(
            &tx.prepare_cached(SQL).await?,
            params(&[&batch.id, &users, &batch.per_user]),
        )
        .await?;
    let counted: HashSet<&str> = rows.iter().map(|r| r.get(0)).collect();
    refuse_uncounted(items, &counted, refused);
    Ok(())
}

/// The standing requests whose user was not counted: at the batch's
/// `per_user` already.
fn refuse_uncounted(
    items: &[BatchRedemption],
    counted: &HashSet<&str>,
    refused: &mut [Option<Refusal>],
) {
    for (item, r) in items.iter().zip(refused.iter_mut()) {
        if r.is_none() && !counted.contains(item.claim.user_id.as_str()) {
            *r = Some(Refusal::AlreadyRedeemed);
        }
    }
}

/// The refused requests give back their code's use and their count of the
/// batch, as far as they had taken them (the template's guards gave back
/// their own). A count back at zero is a row that never was (as replay
/// rebuilds it): deleted.
async fn give_back(
    tx: &Transaction<'_>,
    batch: &Batch,
    items: &[BatchRedemption],
    outcomes: &claim_batch::Outcomes,
) -> Result<(), CommandError> {
    let refused = || {
        items
            .iter()
            .zip(outcomes)
            .filter_map(|(i, o)| o.as_ref().err().map(|r| (i, *r)))
    };
    let serials: Vec<i64> = refused()
        .filter(|(_, r)| r.took_a_use())
        .map(|(i, _)| i.serial)
        .collect();
    if !serials.is_empty() {
        let sql = "WITH gone AS (DELETE FROM code_uses
                                  WHERE batch_id = $1 AND serial = ANY($2) AND uses = 1)
                   UPDATE code_uses SET uses = uses - 1
                    WHERE batch_id = $1 AND serial = ANY($2) AND uses > 1";
        tx.execute(
            &tx.prepare_cached(sql).await?,
            params(&[&batch.id, &serials]),
        )
        .await?;
    }
    let users: Vec<&str> = refused()
        .filter(|(_, r)| r.counted_for_the_user())
        .map(|(i, _)| i.claim.user_id.as_str())
        .collect();
    if !users.is_empty() {
        let sql = "WITH gone AS (DELETE FROM code_batch_users
                                  WHERE batch_id = $1 AND user_id = ANY($2) AND redeemed = 1)
                   UPDATE code_batch_users SET redeemed = redeemed - 1
                    WHERE batch_id = $1 AND user_id = ANY($2) AND redeemed > 1";
        tx.execute(&tx.prepare_cached(sql).await?, params(&[&batch.id, &users]))
            .await?;
    }
    Ok(())
}

/// The granted redemptions' (code, user) pairs, then their coupons'
/// `CouponIssued` (`issued`) and their `CodeRedeemed` events appended by one
/// COPY: the template's row stays locked until the commit, so every round
/// trip saved here is one the next batch does not wait for (each code's
/// stream's version is its use count).
async fn record(
    tx: &Transaction<'_>,
    batch: &Batch,
    items: &[BatchRedemption],
    outcomes: &[Outcome],
    (issued, now): (Vec<StreamEvent>, DateTime<Utc>),
) -> Result<(), CommandError> {
    let (mut serials, mut users, mut coupons) = (Vec::new(), Vec::new(), Vec::new());
    let mut events = issued;
    for (item, outcome) in items.iter().zip(outcomes) {
        let Ok((coupon, uses)) = outcome else {
            continue;
        };
        debug_assert!(*uses >= 1 && *uses <= batch.uses_per_code);
        let event = LedgerEvent::CodeRedeemed(CodeRedeemed {
            batch_id: batch.id,
            serial: item.serial,
            user_id: item.claim.user_id.clone(),
            coupon_ids: vec![coupon.coupon_id],
        });
        let new = NewEvent::of(&event, &item.claim.metadata, now)?;
        if let Some(appended) = &item.claim.appended {
            appended.extend([new.event_id]);
        }
        events.push(StreamEvent {
            stream_id: Stream::Code(batch.id, item.serial).to_string(),
            stream_version: *uses,
            event: new,
        });
        serials.push(item.serial);
        users.push(item.claim.user_id.as_str());
        coupons.push(coupon.coupon_id);
    }
    if serials.is_empty() {
        debug_assert!(events.is_empty(), "a coupon issued without its redemption");
        return Ok(());
    }
    let sql = "INSERT INTO code_redemptions (batch_id, serial, user_id, coupon_ids, redeemed_at)
               SELECT $1, s, u, ARRAY[c], $5
                 FROM unnest($2::bigint[], $3::text[], $4::uuid[]) AS r(s, u, c)";
    let statement = tx.prepare_cached(sql).await?;
    let values: [&(dyn ToSql + Sync); 5] = [&batch.id, &serials, &users, &coupons, &now];
    let pairs = tx.execute(&statement, &values);
    // Sent together with the append's first statement (one round trip).
    try_join(
        pairs.err_into::<CommandError>(),
        store::copy_events(tx, &events).err_into::<CommandError>(),
    )
    .await?;
    Ok(())
}
