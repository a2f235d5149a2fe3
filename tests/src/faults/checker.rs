//! The checker: reads the history and the stores' final state, and names
//! every way they disagree with what the ledger promises
//! (docs/design.md §18). Each check is one function returning anomalies.

use ledger::domain::projection::Projection;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::history::{Answer, Entry, Op};
use super::workload::{Campaign, FLASH_TOTAL, SHARED_USES, UPLOAD_LINES};
use crate::Env;

/// One way the run broke a promise: the check, what it found, and the
/// requests involved.
#[derive(Clone, Debug, Serialize)]
pub struct Anomaly {
    pub check: &'static str,
    pub detail: String,
    pub entries: Vec<Entry>,
}

fn anomaly(check: &'static str, detail: String, entries: Vec<Entry>) -> Anomaly {
    Anomaly {
        check,
        detail,
        entries,
    }
}

/// A coupon as the store holds it.
struct Coupon {
    template_sn: String,
    user_id: String,
    status: String,
}

/// The final state the checks read.
pub struct State {
    coupons: HashMap<String, Coupon>,
    /// CouponIssued events by stream.
    issued_events: HashMap<String, i64>,
}

impl State {
    pub async fn read(env: &Env) -> anyhow::Result<Self> {
        let client = env.db.client().await?;
        let rows = client
            .query(
                "SELECT id::text, template_sn, user_id, status FROM coupons
                 UNION ALL SELECT id::text, template_sn, user_id, status FROM coupons_archive",
                &[],
            )
            .await?;
        let coupons = rows
            .iter()
            .map(|r| {
                let coupon = Coupon {
                    template_sn: r.get(1),
                    user_id: r.get(2),
                    status: r.get(3),
                };
                (r.get(0), coupon)
            })
            .collect();
        let rows = client
            .query(
                "SELECT stream_id, count(*) FROM events WHERE event_type = 'CouponIssued'
                  GROUP BY stream_id",
                &[],
            )
            .await?;
        let issued_events = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        Ok(State {
            coupons,
            issued_events,
        })
    }
}

/// The checks on the history and the state (the replay, the audit and the
/// subscriber are checked by the run, which owns those processes).
pub async fn check(
    env: &Env,
    campaign: &Campaign,
    history: &[Entry],
) -> anyhow::Result<Vec<Anomaly>> {
    let state = State::read(env).await?;
    let mut found = no_server_error(history);
    found.extend(acknowledged_coupons_exist(&state, history));
    found.extend(nothing_unacknowledged_took_effect(
        &state, campaign, history,
    ));
    found.extend(per_user_limits(&state, campaign));
    found.extend(quotas(env, campaign).await?);
    found.extend(orders(env, &state, history).await?);
    found.extend(codes(env).await?);
    found.extend(jobs(env, campaign, history).await?);
    found.extend(void(env, campaign, history).await?);
    Ok(found)
}

fn no_server_error(history: &[Entry]) -> Vec<Anomaly> {
    history
        .iter()
        .filter(|e| e.answer.status().is_some_and(|s| s >= 500))
        .take(1)
        .map(|e| {
            anomaly(
                "no_server_error",
                format!("{:?} answered {:?}", e.op, e.answer.status()),
                vec![e.clone()],
            )
        })
        .collect()
}

/// The coupons an answer gave: a claim's, a redemption's, a package's.
fn answered_coupons(entry: &Entry) -> Vec<String> {
    let body = entry.answer.body();
    let mut ids: Vec<String> = body["id"].as_str().map(str::to_owned).into_iter().collect();
    if let Some(coupons) = body["coupons"].as_array() {
        ids.extend(
            coupons
                .iter()
                .filter_map(|c| c["id"].as_str().map(str::to_owned)),
        );
    }
    ids
}

fn gives_coupons(op: Op) -> bool {
    matches!(
        op,
        Op::ClaimHot
            | Op::ClaimFlash
            | Op::ClaimDoomed
            | Op::ClaimShop
            | Op::Redeem
            | Op::RedeemShared
            | Op::PackageClaim
    )
}

/// Every coupon an acknowledged (201) request was given exists, once, with
/// its issuing event, and no two requests were given the same coupon.
fn acknowledged_coupons_exist(state: &State, history: &[Entry]) -> Vec<Anomaly> {
    let mut found = Vec::new();
    let mut given: HashMap<String, &Entry> = HashMap::new();
    for entry in history
        .iter()
        .filter(|e| gives_coupons(e.op) && e.answer.is(201))
    {
        for id in answered_coupons(entry) {
            if let Some(first) = given.insert(id.clone(), entry) {
                let detail = format!("coupon {id} was given to two requests");
                found.push(anomaly(
                    "no_coupon_twice",
                    detail,
                    vec![first.clone(), entry.clone()],
                ));
            }
            let stored = state.coupons.get(&id);
            let events = state
                .issued_events
                .get(&format!("coupon-{id}"))
                .copied()
                .unwrap_or(0);
            if stored.is_none() || events != 1 {
                let detail = format!(
                    "acknowledged coupon {id}: row {}, {events} CouponIssued events",
                    if stored.is_some() {
                        "present"
                    } else {
                        "missing"
                    }
                );
                found.push(anomaly(
                    "acknowledged_effect_exists",
                    detail,
                    vec![entry.clone()],
                ));
            }
        }
    }
    found.truncate(20);
    found
}

/// Of each template the clients claim from, coupons nobody was answered
/// 201 for number at most the requests that may have taken effect unseen
/// (no answer; or, without a key, a retry answered "already holds one").
fn nothing_unacknowledged_took_effect(
    state: &State,
    campaign: &Campaign,
    history: &[Entry],
) -> Vec<Anomaly> {
    let given: HashSet<String> = history
        .iter()
        .filter(|e| e.answer.is(201))
        .flat_map(answered_coupons)
        .collect();
    let claims = [
        (Op::ClaimHot, &campaign.hot),
        (Op::ClaimFlash, &campaign.flash),
        (Op::ClaimDoomed, &campaign.doomed),
        (Op::ClaimShop, &campaign.shop),
    ];
    let mut found = Vec::new();
    for (op, sn) in claims {
        let unseen = history
            .iter()
            .filter(|e| e.op == op)
            .filter(|e| {
                matches!(e.answer, Answer::Unknown { .. })
                    || (op == Op::ClaimFlash && e.answer.is(409) && e.uncertain_tries > 0)
            })
            .count();
        let extra: Vec<&String> = state
            .coupons
            .iter()
            .filter(|(id, c)| &c.template_sn == sn && !given.contains(*id))
            .map(|(id, _)| id)
            .collect();
        if extra.len() > unseen {
            let users: Vec<&str> = extra
                .iter()
                .filter_map(|id| state.coupons.get(*id))
                .map(|c| c.user_id.as_str())
                .take(5)
                .collect();
            let entries = history
                .iter()
                .filter(|e| e.op == op && users.contains(&e.subject.as_str()))
                .take(10)
                .cloned()
                .collect();
            let detail = format!(
                "{op:?}: {} coupons nobody was given, {unseen} requests unanswered (users {users:?})",
                extra.len()
            );
            found.push(anomaly("nothing_refused_took_effect", detail, entries));
        }
    }
    found
}

/// No user holds more of a template than its per-user limit.
fn per_user_limits(state: &State, campaign: &Campaign) -> Vec<Anomaly> {
    let limits: HashMap<&str, i64> = campaign.limits().into_iter().collect();
    let mut held: HashMap<(&str, &str), i64> = HashMap::new();
    for c in state.coupons.values() {
        *held
            .entry((c.template_sn.as_str(), c.user_id.as_str()))
            .or_default() += 1;
    }
    let mut over: Vec<String> = held
        .iter()
        .filter(|((sn, _), n)| limits.get(sn).is_some_and(|limit| **n > *limit))
        .map(|((sn, user), n)| format!("{user} holds {n} of {sn}"))
        .collect();
    over.sort();
    if over.is_empty() {
        return vec![];
    }
    let detail = format!(
        "{} users over a per-user limit: {:?}",
        over.len(),
        &over[..over.len().min(5)]
    );
    vec![anomaly("per_user_limit", detail, vec![])]
}

/// Each template's issued counter equals its coupons; the flash sale sold
/// at most its stock.
async fn quotas(env: &Env, campaign: &Campaign) -> anyhow::Result<Vec<Anomaly>> {
    let client = env.db.client().await?;
    let rows = client
        .query(
            "SELECT t.sn, t.issued, t.total,
                    (SELECT count(*) FROM coupons c WHERE c.template_sn = t.sn)
                  + (SELECT count(*) FROM coupons_archive c WHERE c.template_sn = t.sn)
               FROM templates t",
            &[],
        )
        .await?;
    let mut found = Vec::new();
    for r in rows {
        let (sn, issued, total, coupons): (String, i64, i64, i64) =
            (r.get(0), r.get(1), r.get(2), r.get(3));
        if issued != coupons || coupons > total {
            let detail = format!("{sn}: issued counter {issued}, {coupons} coupons, total {total}");
            found.push(anomaly("quota", detail, vec![]));
        }
        if sn == campaign.flash && coupons > FLASH_TOTAL {
            found.push(anomaly(
                "quota",
                format!("the flash sale sold {coupons} of {FLASH_TOTAL}"),
                vec![],
            ));
        }
    }
    Ok(found)
}

/// A confirmed order's coupon is used, a cancelled one's is back; an
/// acknowledged refund is stored with the amount it answered.
async fn orders(env: &Env, state: &State, history: &[Entry]) -> anyhow::Result<Vec<Anomaly>> {
    let client = env.db.client().await?;
    let locks: HashMap<&str, &Entry> = history
        .iter()
        .filter(|e| e.op == Op::Lock && e.answer.is(200))
        .map(|e| (e.subject.as_str(), e))
        .collect();
    let mut found = Vec::new();
    for e in history
        .iter()
        .filter(|e| matches!(e.op, Op::Confirm | Op::Cancel) && e.answer.is(200))
    {
        let Some(lock) = locks.get(e.subject.as_str()) else {
            continue;
        };
        let coupon = lock.answer.body()["allocations"][0]["coupon_id"]
            .as_str()
            .unwrap_or("");
        let wanted = if e.op == Op::Confirm {
            "used"
        } else {
            "unused"
        };
        let status = state.coupons.get(coupon).map(|c| c.status.as_str());
        if status != Some(wanted) {
            let detail = format!(
                "order {}: {:?} answered 200, coupon {coupon} is {status:?}",
                e.subject, e.op
            );
            found.push(anomaly("orders", detail, vec![(*lock).clone(), e.clone()]));
        }
    }
    for e in history
        .iter()
        .filter(|e| e.op == Op::Refund && e.answer.is(200))
    {
        let row = client
            .query_opt(
                "SELECT response->>'amount' FROM refunds WHERE order_id = $1 AND refund_id = 'r1'",
                &[&e.subject],
            )
            .await?;
        let stored: Option<String> = row.and_then(|r| r.get(0));
        let answered = e.answer.body()["amount"].as_str().map(str::to_owned);
        if stored.is_none() || stored != answered {
            let detail = format!(
                "refund of {}: answered {answered:?}, stored {stored:?}",
                e.subject
            );
            found.push(anomaly("orders", detail, vec![e.clone()]));
        }
    }
    found.truncate(20);
    Ok(found)
}

/// No code was used more often than its batch allows.
async fn codes(env: &Env) -> anyhow::Result<Vec<Anomaly>> {
    let client = env.db.client().await?;
    let rows = client
        .query(
            "SELECT r.serial, b.uses_per_code, count(*) FROM code_redemptions r
               JOIN code_batches b ON b.id = r.batch_id
              GROUP BY r.batch_id, r.serial, b.uses_per_code
             HAVING count(*) > b.uses_per_code",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let (serial, uses, n): (i64, i32, i64) = (r.get(0), r.get(1), r.get(2));
            anomaly(
                "code_uses",
                format!(
                    "serial {serial}: {n} redemptions of {uses} allowed (shared: {SHARED_USES})"
                ),
                vec![],
            )
        })
        .collect())
}

/// Every accepted upload ended `done` with each of its lines in one outcome.
async fn jobs(env: &Env, campaign: &Campaign, history: &[Entry]) -> anyhow::Result<Vec<Anomaly>> {
    let mut found = Vec::new();
    for e in history.iter().filter(|e| e.op == Op::Upload) {
        if !e.answer.is(202) {
            found.push(anomaly(
                "jobs",
                format!("{}: never accepted", e.subject),
                vec![e.clone()],
            ));
            continue;
        }
        let id = e.answer.body()["job_id"].as_str().unwrap_or("").to_owned();
        let job = job_ended(env, &id).await?;
        let n = |k: &str| job[k].as_i64().unwrap_or(-1);
        let outcomes: i64 = crate::uploads::OUTCOMES.iter().map(|k| n(k)).sum();
        let lines_ok =
            n("valid") == UPLOAD_LINES as i64 && n("invalid") == 2 && outcomes == n("valid");
        let client = env.db.client().await?;
        let coupons: i64 = client
            .query_one(
                "SELECT count(*) FROM coupons WHERE job_id = $1::text::uuid AND template_sn = $2",
                &[&id, &campaign.bulk],
            )
            .await?
            .get(0);
        if job["status"] != "done" || !lines_ok || coupons != n("issued") {
            let detail = format!("{}: {job}; {coupons} coupons of the job", e.subject);
            found.push(anomaly("jobs", detail, vec![e.clone()]));
        }
    }
    Ok(found)
}

/// The job's report once it ended, or as it stands once it stopped
/// moving: no chunk finished for 30 s (a 3,000-line job takes seconds even
/// after faults, and a worker retries within 5 s: docs/design.md §18), or
/// two minutes in all. A job a planted bug stalls is reported in 30 s, not
/// after the whole bound.
async fn job_ended(env: &Env, id: &str) -> anyhow::Result<Value> {
    const STALLED: Duration = Duration::from_secs(30);
    const AT_MOST: Duration = Duration::from_secs(120);
    let client = env.db.client().await?;
    let started = Instant::now();
    let (mut done, mut moved) = (-1i64, Instant::now());
    while started.elapsed() < AT_MOST && moved.elapsed() < STALLED {
        let row = client
            .query_one(
                "SELECT status, (SELECT count(*) FROM issuance_chunks c
                                  WHERE c.job_id = j.id AND c.done_at IS NOT NULL)
                   FROM issuance_jobs j WHERE id = $1::text::uuid",
                &[&id],
            )
            .await?;
        let (status, chunks_done): (String, i64) = (row.get(0), row.get(1));
        if status == "done" || status == "failed" {
            break;
        }
        if chunks_done != done {
            (done, moved) = (chunks_done, Instant::now());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let view =
        ledger::queries::issuance_jobs::job(&client, id.parse()?, chrono::Utc::now()).await?;
    Ok(serde_json::to_value(view)?)
}

/// Once the void is acknowledged and has run its course, no coupon of the
/// template is unused or locked, and no claim started after it got one.
async fn void(env: &Env, campaign: &Campaign, history: &[Entry]) -> anyhow::Result<Vec<Anomaly>> {
    let Some(voided) = history
        .iter()
        .find(|e| e.op == Op::Void && e.answer.is(200))
    else {
        let entries = history
            .iter()
            .filter(|e| e.op == Op::Void)
            .cloned()
            .collect();
        return Ok(vec![anomaly(
            "void",
            "the void was never acknowledged".into(),
            entries,
        )]);
    };
    let mut found = Vec::new();
    let late: Vec<Entry> = history
        .iter()
        .filter(|e| e.op == Op::ClaimDoomed && e.answer.is(201) && e.started_ms > voided.ended_ms)
        .take(5)
        .cloned()
        .collect();
    if !late.is_empty() {
        found.push(anomaly(
            "void",
            "a claim after the void got a coupon".into(),
            late,
        ));
    }
    let client = env.db.client().await?;
    let mut left = 0;
    // The void's batches and the scanner finish in seconds; a minute at most.
    for _ in 0..120 {
        left = client
            .query_one(
                "SELECT count(*) FROM coupons WHERE template_sn = $1 AND status IN ('unused', 'locked')",
                &[&campaign.doomed],
            )
            .await?
            .get::<_, i64>(0);
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    if left > 0 {
        found.push(anomaly(
            "void",
            format!("{left} coupons of the void template still usable"),
            vec![voided.clone()],
        ));
    }
    Ok(found)
}

/// Every event each projection's queue carried has a receipt in that
/// projection's inbox: its message's row names its position (a run's
/// receipt holds the positions it carried), or its id is the message's
/// (one event per message). A consumer acks a message only once the
/// transaction that records it committed, so an event missing there was
/// acked and lost (or dead-lettered). The store can hide such a loss,
/// since a later version of the stream catches the projection up from
/// it; the receipts cannot. Read once the projections caught up.
pub async fn messages_committed(env: &Env) -> anyhow::Result<Vec<Anomaly>> {
    let consumers: Vec<&str> = <Projection as strum::VariantArray>::VARIANTS
        .iter()
        .map(|p| p.as_str())
        .collect();
    let client = env.db.client().await?;
    let rows = client
        .query(
            "SELECT c.consumer, count(*), min(e.position), max(e.position)
               FROM unnest($1::text[]) AS c (consumer)
               CROSS JOIN events e
              WHERE NOT EXISTS (SELECT 1 FROM inbox i
                                 WHERE i.consumer = c.consumer
                                   AND (i.message_id = e.event_id::text
                                        OR e.position <@ i.positions))
              GROUP BY c.consumer ORDER BY c.consumer",
            &[&&consumers[..]],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let (consumer, missing): (String, i64) = (r.get(0), r.get(1));
            let (first, last): (i64, i64) = (r.get(2), r.get(3));
            let detail = format!(
                "{consumer}: {missing} events (positions {first}..={last}) have no receipt in its \
                 inbox: their messages were acked without their transaction committing"
            );
            anomaly("acked_after_commit", detail, vec![])
        })
        .collect())
}
