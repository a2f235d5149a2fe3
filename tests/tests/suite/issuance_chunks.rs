//! One bulk-issuance chunk in one transaction, against real Postgres: every
//! line ends in exactly one outcome, the per-user limit counts claims and
//! earlier lines alike, the quota is never exceeded however many chunks and
//! claims race for it, a template stopped mid-issuance issues nothing after
//! the stop, and `ledger replay --verify` agrees with the result.

use std::sync::Arc;

use ledger::commands::issuance::{ChunkOutcome, apply_chunk};
use ledger::domain::events::Metadata;
use ledger::domain::issuance::{ChunkLine, IssuanceChunk};
use tests::scenario::claim_many;
use tests::workers::{Workers, ledger, projections_caught_up};
use tests::{Env, Server, template_body};
use uuid::Uuid;

/// `ledger replay --verify` once the projections caught up: exit code, output.
async fn verified(env: &Env) -> (Option<i32>, String) {
    let workers = Workers::start(env, "relay,balances,template_stats").unwrap();
    projections_caught_up(env, std::time::Duration::from_secs(60))
        .await
        .unwrap();
    workers.terminate().await.unwrap();
    let out = ledger(env, &["replay", "--verify"]).await.unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// A queued job for `sn` with `chunks` published chunks (as an upload leaves it).
async fn job(env: &Env, sn: &str, chunks: &[IssuanceChunk]) -> Uuid {
    let client = env.db.client().await.unwrap();
    let id = chunks.first().map_or_else(Uuid::now_v7, |c| c.job_id);
    client
        .execute(
            "INSERT INTO issuance_jobs (id, template_sn, job_key, format, status, created_at,
                                        updated_at, chunks_total)
             VALUES ($1, $2, $3, 'plain', 'queued', now(), now(), $4)",
            &[&id, &sn, &id.to_string(), &(chunks.len() as i32)],
        )
        .await
        .unwrap();
    for c in chunks {
        let (first, last) = (c.lines[0].line as i64, c.lines.last().unwrap().line as i64);
        client
            .execute(
                "INSERT INTO issuance_chunks (job_id, chunk_no, lines, first_line, last_line,
                                              digest, published_at)
                 VALUES ($1, $2, $3, $4, $5, '\\x00', now())",
                &[&id, &c.chunk_no, &(c.lines.len() as i32), &first, &last],
            )
            .await
            .unwrap();
    }
    id
}

fn chunk(
    job_id: Uuid,
    sn: &str,
    chunk_no: i32,
    first_line: u64,
    users: &[String],
) -> IssuanceChunk {
    let lines = users
        .iter()
        .enumerate()
        .map(|(i, u)| ChunkLine {
            line: first_line + i as u64,
            user_id: ledger::domain::ids::UserId::parse(u).expect("a user id"),
        })
        .collect();
    IssuanceChunk {
        job_id,
        chunk_no,
        template_sn: ledger::domain::ids::TemplateSn::stored(sn.to_owned()),
        lines,
    }
}

async fn apply(env: &Env, c: &IssuanceChunk) -> ChunkOutcome {
    let mut client = env.db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let metadata = Metadata {
        actor: "system:issuance".into(),
        correlation_id: c.job_id.to_string(),
        ..Default::default()
    };
    let now = ledger::store::now();
    let outcome = apply_chunk(&tx, c, &metadata, now, chrono_tz::Asia::Shanghai)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    outcome
}

fn strings(users: &[&str]) -> Vec<String> {
    users.iter().map(|u| (*u).to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chunk_gives_every_line_one_outcome_and_replay_agrees() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(5, 2))
        .await
        .unwrap();
    claim_many(&env, &sn, 0..1, 1).await.unwrap(); // u0 holds one
    let id = Uuid::now_v7();
    let users = strings(&["u0", "u0", "u0", "b", "c", "d", "e", "f"]);
    let c = chunk(id, &sn, 0, 2, &users);
    job(&env, &sn, std::slice::from_ref(&c)).await;

    let outcome = apply(&env, &c).await;
    let expected = ChunkOutcome {
        issued: 4,
        over_limit: 2,
        sold_out: 2,
        cancelled: 0,
        not_eligible: 0,
    };
    assert_eq!(outcome, expected);
    let client = env.db.client().await.unwrap();
    let issued: Vec<(String, i64)> = client
        .query(
            "SELECT user_id, job_line FROM coupons WHERE job_id = $1 ORDER BY job_line",
            &[&id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let want: Vec<(String, i64)> = vec![
        ("u0".into(), 2),
        ("b".into(), 5),
        ("c".into(), 6),
        ("d".into(), 7),
    ];
    assert_eq!(issued, want);
    let others: Vec<(i64, String)> = client
        .query(
            "SELECT line, outcome FROM issuance_lines WHERE job_id = $1 ORDER BY line",
            &[&id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let want: Vec<(i64, String)> = vec![
        (3, "over_limit".into()),
        (4, "over_limit".into()),
        (8, "sold_out".into()),
        (9, "sold_out".into()),
    ];
    assert_eq!(others, want);
    let claims: i64 = client
        .query_one(
            "SELECT count(*) FROM user_claims WHERE template_sn = $1 AND user_id IN ('e', 'f')",
            &[&sn],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(claims, 0, "users who got nothing hold no claim row");
    let events: i64 = client
        .query_one(
            "SELECT count(*) FROM events WHERE event_type = 'CouponIssued'
               AND (payload->>'job_id')::uuid = $1",
            &[&id],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(events, 4);
    let (code, output) = verified(&env).await;
    assert_eq!(code, Some(0), "{output}");
    // The coupon's job and line are reproducible from its event: an edit is named.
    client
        .execute("UPDATE coupons SET job_line = 999 WHERE job_line = 5", &[])
        .await
        .unwrap();
    let out = ledger(&env, &["replay"]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("job_line: live 999 vs replayed 5"),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn racing_chunks_and_claims_never_exceed_the_quota_or_a_users_limit() {
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let total = 300;
    let sn = server
        .activate_template(&template_body(total, 1))
        .await
        .unwrap();
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    let id = Uuid::now_v7();
    // 8 chunks of 100 lines over 400 users: each user appears in two chunks.
    let chunks: Vec<IssuanceChunk> = (0..8)
        .map(|n| {
            let users: Vec<String> = (0..100)
                .map(|i| format!("u{}", (n % 4) * 100 + i))
                .collect();
            chunk(id, &sn, n, 1 + 100 * n as u64, &users)
        })
        .collect();
    job(&env, &sn, &chunks).await;
    let env = Arc::new(env);
    let mut tasks = tokio::task::JoinSet::new();
    for c in chunks {
        let env = env.clone();
        tasks.spawn(async move { apply(&env, &c).await });
    }
    for i in 0..60 {
        let (server, channel, sn) = (server.clone(), channel.clone(), sn.clone());
        tasks.spawn(async move {
            let (status, body) = server
                .claim(&channel, &sn, &format!("u{}", i * 5))
                .await
                .unwrap();
            assert!([201, 409, 410].contains(&status), "{status} {body}");
            ChunkOutcome::default()
        });
    }
    let mut lines = ChunkOutcome::default();
    while let Some(outcome) = tasks.join_next().await {
        let o = outcome.unwrap();
        lines.issued += o.issued;
        lines.over_limit += o.over_limit;
        lines.sold_out += o.sold_out;
    }
    assert_eq!(
        lines.issued + lines.over_limit + lines.sold_out,
        800,
        "{lines:?}"
    );
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM coupons WHERE template_sn = $1),
                    (SELECT issued FROM templates WHERE sn = $1),
                    (SELECT count(*) FROM (SELECT user_id FROM coupons WHERE template_sn = $1
                       GROUP BY user_id HAVING count(*) > 1) AS twice)",
            &[&sn],
        )
        .await
        .unwrap();
    let (coupons, issued, twice): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!((coupons, issued), (total, total), "exactly the quota");
    assert_eq!(twice, 0, "no user above the per-user limit of 1");
    let (code, output) = verified(&env).await;
    assert_eq!(code, Some(0), "{output}");
}

/// A chunk short of quota locks its users' rows; a claim batch takes its
/// users' rows too, sorted, in one statement. Here the batch has taken u0's
/// row (u0 is at the limit: locked, not updated) and not yet u9's, which
/// the chunk is new to. The chunk must wait for u0 before it holds u9, so
/// that the batch can go on (it used to deadlock: the chunk created u9's row
/// in a first pass and waited for u0 in a second).
#[tokio::test(flavor = "multi_thread")]
async fn a_chunk_short_of_quota_never_deadlocks_with_a_batch_holding_its_users() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(1, 1))
        .await
        .unwrap();
    claim_many(&env, &sn, 0..1, 1).await.unwrap(); // u0 at its limit; sold out
    let c = chunk(Uuid::now_v7(), &sn, 0, 1, &strings(&["u0", "u9"]));
    job(&env, &sn, std::slice::from_ref(&c)).await;

    let mut batch_client = env.db.pool.get().await.unwrap();
    let batch = batch_client.transaction().await.unwrap();
    let take = "INSERT INTO user_claims AS c (template_sn, user_id, claimed)
                SELECT $1, u, 1 FROM unnest($2::text[]) AS u ORDER BY u
                ON CONFLICT (template_sn, user_id)
                DO UPDATE SET claimed = c.claimed + 1 WHERE c.claimed < 1";
    let locked = batch.execute(take, &[&sn, &vec!["u0"]]).await.unwrap();
    assert_eq!(
        locked, 0,
        "u0 is at the limit: its row is locked, not raised"
    );

    let env = Arc::new(env);
    let chunk_task = tokio::spawn({
        let env = env.clone();
        async move { apply(&env, &c).await }
    });
    let watcher = env.db.client().await.unwrap();
    let waiting = "SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock'";
    for _ in 0..200 {
        if watcher
            .query_one(waiting, &[])
            .await
            .unwrap()
            .get::<_, i64>(0)
            > 0
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let second = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        batch.execute(take, &[&sn, &vec!["u9"]]),
    )
    .await;
    let taken = second.expect("the batch does not wait for the chunk");
    assert_eq!(taken.unwrap(), 1, "the batch took u9's row");
    batch.rollback().await.unwrap();
    let outcome = chunk_task.await.unwrap();
    let expected = ChunkOutcome {
        issued: 0,
        over_limit: 1,
        sold_out: 1,
        cancelled: 0,
        not_eligible: 0,
    };
    assert_eq!(outcome, expected);
}

/// A template stopped while chunks and claims race for it issues nothing
/// once the stop has committed: every write re-checks the status on the
/// locked row as it takes quota (docs/design.md §9). Chunks that read the
/// template active before the stop and take quota after it end with all
/// their lines cancelled; claims answer 422 `template_not_active`. Each
/// chunk worker goes on until a chunk of its own finds the stop (or its
/// chunks run out), so the workers run across it.
#[tokio::test(flavor = "multi_thread")]
async fn a_template_stopped_mid_issuance_issues_nothing_after_the_stop() {
    const WORKERS: usize = 6;
    const CHUNKS_EACH: usize = 400;
    const LINES: usize = 20;
    let env = Env::new().await.unwrap();
    let server = Arc::new(Server::start(&env).await.unwrap());
    let sn = server
        .activate_template(&template_body(1_000_000, 5))
        .await
        .unwrap();
    let channel = Arc::new(server.channel_for(&sn).await.unwrap());
    let id = Uuid::now_v7();
    let chunks: Vec<IssuanceChunk> = (0..WORKERS * CHUNKS_EACH)
        .map(|n| {
            let users: Vec<String> = (0..LINES).map(|i| format!("u{n}-{i}")).collect();
            chunk(id, &sn, n as i32, 1 + (LINES * n) as u64, &users)
        })
        .collect();
    job(&env, &sn, &chunks).await;
    let env = Arc::new(env);
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut chunk_tasks = tokio::task::JoinSet::new();
    for mine in chunks.chunks(CHUNKS_EACH).map(<[IssuanceChunk]>::to_vec) {
        let (env, done) = (env.clone(), done.clone());
        chunk_tasks.spawn(async move {
            let mut outcomes = Vec::new();
            for c in &mine {
                let outcome = apply(&env, c).await;
                outcomes.push(outcome);
                done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if outcome.cancelled > 0 {
                    break;
                }
            }
            outcomes
        });
    }
    let mut claim_tasks = tokio::task::JoinSet::new();
    for t in 0..8 {
        let (server, channel, sn) = (server.clone(), channel.clone(), sn.clone());
        claim_tasks.spawn(async move {
            for i in 0.. {
                let user = format!("c{t}-{i}");
                // A claim the loaded machine did not answer in time proves
                // nothing either way: the counts below are the judges.
                let Ok((status, body)) = server.claim(&channel, &sn, &user).await else {
                    continue;
                };
                match status {
                    201 => continue,
                    422 => {
                        assert_eq!(body["error"]["code"], "template_not_active", "{body}");
                        return i;
                    }
                    _ => panic!("a claim answered {status} {body}"),
                }
            }
            unreachable!("claims go on until the template stops")
        });
    }
    while done.load(std::sync::atomic::Ordering::SeqCst) < WORKERS {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    stop(&env, &sn).await;
    let at_stop = issued(&env, &sn).await;

    let mut crossed = 0;
    while let Some(outcomes) = chunk_tasks.join_next().await {
        let outcomes = outcomes.unwrap();
        for o in &outcomes {
            assert!(o.issued == 0 || o.cancelled == 0, "a chunk is whole: {o:?}");
            assert_eq!(o.issued + o.cancelled, LINES as i32, "{o:?}");
        }
        crossed += usize::from(outcomes.last().unwrap().cancelled == LINES as i32);
    }
    assert!(
        crossed > 0,
        "every worker ran out of chunks before the stop: no race"
    );
    while let Some(claims) = claim_tasks.join_next().await {
        claims.unwrap();
    }
    assert_eq!(
        issued(&env, &sn).await,
        at_stop,
        "coupons issued after the stop"
    );
}

/// Stops the template through the command the API runs, in a transaction
/// of its own: it waits its turn on the template's row however loaded the
/// machine is (an HTTP client would give up).
async fn stop(env: &Env, sn: &str) {
    let mut client = env.db.pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let sn = ledger::domain::ids::TemplateSn::stored(sn.to_owned());
    let metadata = Metadata {
        actor: "admin".into(),
        correlation_id: "stop-mid-issuance".into(),
        ..Default::default()
    };
    let stop = ledger::domain::template_status::StatusAction::Stop;
    let now = ledger::store::now();
    ledger::commands::templates::change_status(&tx, &sn, stop, &metadata, now)
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

/// The template's coupons and its issued count, which must agree.
async fn issued(env: &Env, sn: &str) -> i64 {
    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT (SELECT count(*) FROM coupons WHERE template_sn = $1),
                    (SELECT issued FROM templates WHERE sn = $1)",
            &[&sn],
        )
        .await
        .unwrap();
    let (coupons, issued): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!(coupons, issued, "coupons and the quota's count agree");
    coupons
}
