//! The `workers` binary: outbox relay, projection workers, scanner, archiver.
//!
//! - [`relay`]: committed events → the ledger's queues (in runs of events)
//!   and `coupon.events` (one per event), one route each, with confirms.
//! - [`consumers`]: the runtime every consuming worker uses (inbox,
//!   retries, dead letters, reconnects, graceful shutdown), one message at
//!   a time or in batches.
//! - [`handlers`]: what the consuming workers do: the projections (one
//!   per [`Projection`]), the reminder sender, bulk-issuance chunks and
//!   large packages' claims.
//! - [`scanners`]: the workers on a clock: expiry and lock timeouts, the
//!   hash chain's sealer, the archiver.
//! - [`webhooks`]: deliveries to webhook endpoints, from Postgres alone.
//! - [`session`]: sessions started again after failures; single-instance locks.
//! - [`shutdown`]: SIGTERM / Ctrl-C → finish in-flight work, then stop.

mod consumers;
mod handlers;
mod relay;
mod scanners;
mod session;
mod shutdown;
mod webhooks;

use std::time::Duration;

use anyhow::Context;
use clap::builder::PossibleValue;
use clap::{Parser, Subcommand, ValueEnum};
use deadpool_postgres::Pool;
use ledger::config::Config;
use ledger::domain::projection::Projection;
use ledger::messaging::lazy_publisher::{Commit, LazyPublisher};
use ledger::messaging::{store_guard, topology};
use ledger::store::StoreCell;

use ledger::projections::notify::NotifyClock;
use strum::VariantArray;

use crate::consumers::{BatchSpec, Spec};
use crate::handlers::projector::Projector;
use crate::handlers::{issuance, notify};
use crate::scanners::{archiver, requeue, scanner, sealer};
use crate::shutdown::Shutdown;

/// mimalloc: glibc's malloc took a quarter of `serve`'s CPU in the
/// flash-sale benchmark (docs/benchmarks.md), its arenas contended by the
/// runtime's threads.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "workers",
    version,
    about = "couponledger workers",
    after_help = ledger::config::reference::help()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// On failure, print the error's whole report (with the backtrace
    /// when RUST_BACKTRACE=1) instead of one line.
    #[arg(long, global = true)]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run the workers (all of them unless --only says which).
    Run {
        /// Comma-separated: relay, balances, template_stats, notify, issuance, scanner,
        /// sealer, archiver, webhooks.
        #[arg(long, value_delimiter = ',')]
        only: Vec<Worker>,
        /// Seconds between scanner sweeps.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
        scan_interval: u64,
        /// The scanner re-publishes a package job still queued after this
        /// many seconds (its message may never have been sent).
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        requeue_after: u64,
        /// The sealer checkpoints after this many events...
        #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(i64).range(1..))]
        checkpoint_events: i64,
        /// ...or this many seconds, whichever comes first.
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        checkpoint_secs: u64,
    },
}

/// What a `workers` process can run: `--only` names them, and without it
/// the process runs them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Worker {
    Relay,
    /// Each projection's worker, by the projection's name.
    Project(Projection),
    Issuance,
    Scanner,
    Sealer,
    /// Ended coupons to cold storage (docs/design.md §16).
    Archiver,
    /// Deliveries to webhook endpoints (docs/design.md §21).
    Webhooks,
}

const PROJECTIONS: usize = Projection::VARIANTS.len();

/// Every worker: the relay, one per projection, then the rest.
const ALL: [Worker; PROJECTIONS + 6] = {
    let mut all = [Worker::Relay; PROJECTIONS + 6];
    let mut i = 0;
    while i < PROJECTIONS {
        all[1 + i] = Worker::Project(Projection::VARIANTS[i]);
        i += 1;
    }
    all[PROJECTIONS + 1] = Worker::Issuance;
    all[PROJECTIONS + 2] = Worker::Scanner;
    all[PROJECTIONS + 3] = Worker::Sealer;
    all[PROJECTIONS + 4] = Worker::Archiver;
    all[PROJECTIONS + 5] = Worker::Webhooks;
    all
};

impl ValueEnum for Worker {
    fn value_variants<'a>() -> &'a [Self] {
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            Worker::Relay => PossibleValue::new("relay"),
            Worker::Project(p @ Projection::Notify) => PossibleValue::new(p.as_str())
                .help("The reminder projection and the reminder sender"),
            Worker::Project(p) => PossibleValue::new(p.as_str()),
            Worker::Issuance => PossibleValue::new("issuance"),
            Worker::Scanner => PossibleValue::new("scanner"),
            Worker::Sealer => PossibleValue::new("sealer"),
            Worker::Archiver => PossibleValue::new("archiver")
                .help("Ended coupons to cold storage (docs/design.md §16)"),
            Worker::Webhooks => PossibleValue::new("webhooks")
                .help("Deliveries to webhook endpoints (docs/design.md §21)"),
        })
    }
}

/// Connections per worker process: one per consumer plus the scanner's and
/// the archiver's, and a few for the webhooks sender's records of attempts.
const POOL_SIZE: usize = 12;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // The log format first, as `ledger` does: a bad value is refused even
    // before `--help`.
    match ledger::config::LogFormat::from_env() {
        Ok(format) => ledger::logging::init(format),
        Err(e) => {
            eprintln!("Error: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    let cli = Cli::parse();
    let verbose = cli.verbose;
    match start(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            let text = if verbose {
                format!("{e:?}")
            } else {
                ledger::logging::one_line(&ledger::logging::chain(e.as_ref()))
            };
            eprintln!("Error: {text}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn start(cli: Cli) -> anyhow::Result<()> {
    let Command::Run {
        only,
        scan_interval,
        requeue_after,
        checkpoint_events,
        checkpoint_secs,
    } = cli.command;
    let config = Config::from_env()?;
    let workers = if only.is_empty() { ALL.to_vec() } else { only };
    let shutdown = Shutdown::on_signals()?;
    let checkpoints = sealer::Checkpoints {
        every_events: checkpoint_events,
        every: Duration::from_secs(checkpoint_secs),
    };
    let timing = Timing {
        scan_interval: Duration::from_secs(scan_interval),
        requeue_after: Duration::from_secs(requeue_after),
        checkpoints,
    };
    run(config, &workers, timing, shutdown).await
}

/// The scanner's and the sealer's clocks.
#[derive(Clone, Copy)]
struct Timing {
    scan_interval: Duration,
    requeue_after: Duration,
    checkpoints: sealer::Checkpoints,
}

async fn run(
    config: Config,
    workers: &[Worker],
    timing: Timing,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let pool = ledger::db::pool(&config.database, POOL_SIZE);
    let store = StoreCell::default();
    let guard =
        store_guard::guard_process(&pool, &store, &config.amqp_url, "couponledger-workers").await?;
    let mut tasks = Tasks::new();
    let mut stopping = shutdown.clone();
    tasks.spawn(async move {
        tokio::select! {
            // Another store took the vhost while this process was disconnected.
            lost = guard => Err(lost.into()),
            () = stopping.wait() => Ok(()),
        }
    });
    for &worker in workers {
        let (config, pool, shutdown) = (config.clone(), pool.clone(), shutdown.clone());
        let place = Place {
            config,
            pool,
            store: store.clone(),
        };
        spawn(&mut tasks, worker, place, timing, shutdown);
        tracing::info!(?worker, "started");
    }
    while let Some(done) = tasks.join_next().await {
        done.context("a worker panicked")??;
    }
    Ok(())
}

type Tasks = tokio::task::JoinSet<anyhow::Result<()>>;

/// What every worker works against: the services and the store's id.
struct Place {
    config: Config,
    pool: Pool,
    store: StoreCell,
}

/// Starts one worker's tasks.
fn spawn(tasks: &mut Tasks, worker: Worker, place: Place, timing: Timing, shutdown: Shutdown) {
    let Place {
        config,
        pool,
        store,
    } = place;
    let url = config.amqp_url.clone();
    let at = (url.as_str(), store.clone());
    match worker {
        Worker::Relay => tasks.spawn(relay::run(config, store, shutdown)),
        Worker::Project(Projection::Notify) => {
            let (days, publisher) = (config.notify_retention_days, notify_publisher(&url, &store));
            let sender = notify::send_loop(pool.clone(), publisher, days, shutdown.clone());
            tasks.spawn(sender);
            let clock = NotifyClock {
                tz: config.tz,
                at: config.notify_at,
            };
            tasks.spawn(projection(
                Projection::Notify,
                Projector::Notify(clock),
                at,
                pool,
                shutdown,
            ))
        }
        Worker::Project(p @ (Projection::Balances | Projection::TemplateStats)) => {
            let tally = p
                .tally()
                .expect("balances and template_stats count coupons");
            tasks.spawn(projection(p, Projector::Tally(tally), at, pool, shutdown))
        }
        Worker::Issuance => {
            let mut spec = Spec::new(issuance::NAME, topology::ISSUANCE_QUEUE, &url, store);
            spec.prefetch = issuance::PREFETCH;
            spec.analyze = &[
                "coupons",
                "user_claims",
                "issuance_lines",
                "template_allow_list",
            ];
            match issuance::Issuer::new(&config) {
                Ok(handler) => {
                    tasks.spawn(consumers::one_by_one::run(spec, pool, handler, shutdown))
                }
                Err(e) => tasks.spawn(async move { Err(e) }),
            }
        }
        Worker::Scanner => {
            let requeue = requeue::Requeue::new(&url, timing.requeue_after, store);
            let keeping = scanner::Keeping {
                interval: timing.scan_interval,
                jobs: chrono::Duration::days(i64::from(config.job_retention_days)),
            };
            tasks.spawn(scanner::run(pool, keeping, requeue, shutdown))
        }
        Worker::Sealer => tasks.spawn(sealer::run(config, timing.checkpoints, shutdown)),
        Worker::Archiver => {
            let (days, every) = (config.archive_after_days, timing.scan_interval);
            tasks.spawn(archiver::run(pool, days, every, shutdown))
        }
        Worker::Webhooks => tasks.spawn(webhooks::run(config, pool, shutdown)),
    };
}

/// The notification sender's publisher: one AMQP transaction per batch, so
/// a sender killed mid-batch has put none of it in any queue
/// (docs/design.md §10).
fn notify_publisher(url: &str, store: &StoreCell) -> LazyPublisher {
    let name = "couponledger-notify-sender";
    LazyPublisher::committing(url, name, store.clone(), Commit::Transaction)
}

/// A projection's worker over its queue.
fn projection(
    projection: Projection,
    handler: Projector,
    (url, store): (&str, StoreCell),
    pool: Pool,
    shutdown: Shutdown,
) -> impl Future<Output = anyhow::Result<()>> + use<> {
    let mut spec = Spec::new(projection.as_str(), projection.queue(), url, store);
    spec.analyze = analyzed(projection);
    consumers::batched::run(BatchSpec::new(spec), pool, handler, shutdown)
}

/// The tables a projection's worker analyzes after a large batch: those
/// its writes grow fastest (a template's rows stay few).
fn analyzed(projection: Projection) -> &'static [&'static str] {
    const BALANCES: [&str; 3] = [
        "projection_coupons",
        "projection_streams",
        Projection::Balances.table(),
    ];
    const TEMPLATE_STATS: [&str; 2] = ["projection_coupons", "projection_streams"];
    const NOTIFY: [&str; 2] = ["notify_coupons", Projection::Notify.table()];
    match projection {
        Projection::Balances => &BALANCES,
        Projection::TemplateStats => &TEMPLATE_STATS,
        Projection::Notify => &NOTIFY,
    }
}
