//! The fault suite (docs/design.md §18): a mixed workload against two
//! `serve`s and the workers, a nemesis injecting the seed's schedule of
//! faults meanwhile, then a checker over the history and the final state.
//!
//! - [`schedule`]: the faults, derived from the seed alone.
//! - [`stack`]: the processes and the links the faults hit.
//! - [`nemesis`]: injects and heals each fault.
//! - [`client`], [`workload`], [`history`]: what the clients send and saw.
//! - [`checker`]: every acknowledged effect once, nothing refused taken.
//! - [`report`]: what a run writes under `target/faults/`.

pub mod checker;
pub mod client;
pub mod history;
pub mod nemesis;
pub mod report;
pub mod schedule;
pub mod stack;
pub mod workload;

use std::sync::Arc;
use std::time::{Duration, Instant};

use checker::Anomaly;
use history::History;
use report::Report;
use schedule::Planned;
use stack::Stack;
use workload::{Campaign, Shared};

use crate::subscriber::{self, Subscriber};
use crate::workers::{findings, ledger};

/// Concurrent clients: enough to keep both serves busy on two cores.
pub const CLIENTS: usize = 12;

/// The outside subscriber's queue, bound to `coupon.events` before the load.
const OUTSIDER: &str = "analytics.faults";

/// What a run is.
#[derive(Clone, Debug)]
pub struct Run {
    pub seed: u64,
    pub length: Duration,
    pub cluster: bool,
    /// A bug planted in the binaries (`ledger::planted::Bug`'s name).
    pub planted: Option<String>,
    /// The faults; None: the seed's schedule.
    pub schedule: Option<Vec<Planned>>,
    /// Concurrent clients ([`CLIENTS`] unless a run beside others wants fewer).
    pub clients: usize,
}

impl Run {
    pub fn new(seed: u64, length: Duration, cluster: bool) -> Self {
        Run {
            seed,
            length,
            cluster,
            planted: None,
            schedule: None,
            clients: CLIENTS,
        }
    }

    pub fn planned(&self) -> Vec<Planned> {
        self.schedule
            .clone()
            .unwrap_or_else(|| schedule::schedule(self.seed, self.length, self.cluster))
    }
}

/// Runs the workload under the faults and checks it; the report (also
/// written under `target/faults/`).
pub async fn run(run: &Run) -> anyhow::Result<Report> {
    let planned = run.planned();
    let mut stack = if run.cluster {
        Stack::on_cluster(run.planted.as_deref()).await?
    } else {
        Stack::single(run.planted.as_deref()).await?
    };
    // A quorum queue, as docs/design.md §5 advises outside subscribers: the
    // broker confirms a publish routed to a crashed classic queue.
    drop(subscriber::declare(&stack.env, OUTSIDER, true, subscriber::quorum()).await?);
    let client = client::Client::new(stack.bases())?;
    let campaign = Campaign::make(&client).await?;
    let start = Instant::now();
    let shared = Arc::new(Shared::new(campaign, History::new(start), client));
    let until = tokio::time::Instant::from_std(start + run.length);
    let mut load = Vec::new();
    for _ in 0..run.clients {
        load.push(tokio::spawn(workload::client(shared.clone(), until)));
    }
    load.push(tokio::spawn(workload::uploads(shared.clone(), run.length)));
    load.push(tokio::spawn(workload::void(shared.clone(), run.length)));
    let last_start = run.length.saturating_sub(Duration::from_secs(5));
    let injected = nemesis::run(&mut stack, &planned, start, last_start).await;
    for task in load {
        task.await?;
    }
    stack.heal().await?;
    let history = shared.history.entries();
    let mut anomalies = checker::check(&stack.env, &shared.campaign, &history).await?;
    anomalies.extend(settled(&mut stack).await?);
    let report = Report::new(run, planned, injected, &history, anomalies);
    report.write(&history)?;
    Ok(report)
}

/// With the workers caught up and stopped: the projections equal the
/// replay, the chain verifies, the subscriber holds every event.
async fn settled(stack: &mut Stack) -> anyhow::Result<Vec<Anomaly>> {
    let mut found = Vec::new();
    if let Err(e) = caught_up(&stack.env).await {
        found.push(anomaly("projections", format!("{e:#}")));
    }
    found.extend(checker::messages_committed(&stack.env).await?);
    // The sealer seals what is left before the audit.
    tokio::time::sleep(Duration::from_secs(3)).await;
    stack.stop().await;
    let out = ledger(&stack.env, &["replay", "--verify"]).await?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !stdout.contains(" 0 differences") {
        let lines: Vec<&str> = findings(&stdout).into_iter().take(12).collect();
        found.push(anomaly(
            "projections",
            format!("replay --verify: {}", lines.join("\n")),
        ));
    }
    let out = ledger(&stack.env, &["audit", "verify"]).await?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        found.push(anomaly("audit", format!("audit verify: {text}")));
    }
    found.extend(every_event_reached(&stack.env).await?);
    Ok(found)
}

fn anomaly(check: &'static str, detail: String) -> Anomaly {
    Anomaly {
        check,
        detail,
        entries: vec![],
    }
}

/// Waits while the projections and the relay's routes move (the outside
/// subscribers' route included); an error once they stop short of the
/// store for 30 s.
async fn caught_up(env: &crate::Env) -> anyhow::Result<()> {
    let client = env.db.client().await?;
    let (mut last, mut still) = (-1i64, Instant::now());
    loop {
        let row = client
            .query_one(
                "SELECT (SELECT count(*) FROM events),
                        (SELECT coalesce(min(applied), 0) FROM projection_positions),
                        (SELECT count(*) FROM projection_positions),
                        (SELECT count(*) FROM relay_cursors c
                          WHERE (c.tx_id, c.position) < (SELECT tx_id, position FROM events
                                                          ORDER BY tx_id DESC, position DESC LIMIT 1))",
                &[],
            )
            .await?;
        let (events, applied, projections): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
        let routes_behind: i64 = row.get(3);
        if projections >= 2 && applied >= events && routes_behind == 0 {
            return Ok(());
        }
        if applied != last {
            (last, still) = (applied, Instant::now());
        }
        anyhow::ensure!(
            still.elapsed() < Duration::from_secs(30),
            "the projections stopped at {applied} of {events} events"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The outside subscriber holds every stored event at least once.
async fn every_event_reached(env: &crate::Env) -> anyhow::Result<Vec<Anomaly>> {
    let held = broker_view(env).await;
    let mut outsider = Subscriber::with_args(env, OUTSIDER, true, subscriber::quorum()).await?;
    let missing = subscriber::missing_events(env, &mut outsider, Duration::from_secs(20)).await?;
    let client = env.db.client().await?;
    if missing.is_empty() {
        return Ok(vec![]);
    }
    // Where in the log they are says whether a stretch was lost or a few.
    let row = client
        .query_one(
            "SELECT min(position), max(position), min(recorded_at)::text, max(recorded_at)::text,
                    (SELECT count(*) FROM events)
               FROM events WHERE event_id = ANY($1)",
            &[&missing],
        )
        .await?;
    let (first, last): (i64, i64) = (row.get(0), row.get(1));
    let (from, to, total): (String, String, i64) = (row.get(2), row.get(3), row.get(4));
    let detail = format!(
        "the subscriber misses {} of {} events, positions {first}..={last} recorded {from} to {to}, e.g. {:?}",
        missing.len(),
        total,
        &missing[..missing.len().min(3)]
    );
    // What the relay's routes say they sent: a route that counted the
    // missing events unroutable sent them while the queue was unbound.
    let routes: Vec<String> = client
        .query(
            "SELECT name || ' at ' || position || ', published ' || published
                    || ', unroutable ' || unroutable FROM relay_cursors ORDER BY name",
            &[],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let detail = format!(
        "{detail}; relay routes: {}; before reading, the broker said: {held}",
        routes.join("; ")
    );
    Ok(vec![anomaly("subscriber", detail)])
}

/// The outsider's queue as the broker describes it (depth, what it says
/// was published into it, its bindings), for an anomaly's report.
async fn broker_view(env: &crate::Env) -> String {
    let queue = env.vhost.inspect("queues", OUTSIDER).await;
    let bindings = env
        .vhost
        .inspect("queues", &format!("{OUTSIDER}/bindings"))
        .await;
    match (queue, bindings) {
        (Ok(q), Ok(b)) => format!(
            "messages {}, published in {}, delivered {}, bindings {}",
            q["messages"],
            q["message_stats"]["publish"],
            q["message_stats"]["deliver_get"],
            b.as_array().map_or(0, Vec::len)
        ),
        (Err(e), _) | (_, Err(e)) => format!("(management API: {e:#})"),
    }
}
