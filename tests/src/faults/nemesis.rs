//! Injects the schedule's faults into the stack, one at a time, each
//! healed after its time; records what it did and when.

use std::time::{Duration, Instant};

use anyhow::Context;

use serde::Serialize;
use tokio::process::Command;

use super::schedule::{Fault, Planned};
use super::stack::{Stack, signal};

/// How slow a slowed link is, each way per chunk.
const SLOW: Duration = Duration::from_millis(150);

/// One fault as it happened.
#[derive(Clone, Debug, Serialize)]
pub struct Injected {
    pub fault: Fault,
    pub started_ms: u64,
    pub healed_ms: u64,
    /// What it hit (a process id, a member) or why it could not.
    pub detail: String,
}

/// Runs `schedule` against `stack`, from `start`, until `last_start` (a
/// fault pushed past it by a slow one before would meet no load); what
/// was injected.
pub async fn run(
    stack: &mut Stack,
    schedule: &[Planned],
    start: Instant,
    last_start: Duration,
) -> Vec<Injected> {
    let mut done = Vec::new();
    for planned in schedule {
        tokio::time::sleep_until((start + planned.at).into()).await;
        if start.elapsed() > last_start {
            break;
        }
        let started_ms = ms(start);
        let detail = match inject(stack, planned).await {
            Ok(detail) => detail,
            Err(e) => format!("not injected: {e:#}"),
        };
        done.push(Injected {
            fault: planned.fault,
            started_ms,
            healed_ms: ms(start),
            detail,
        });
    }
    done
}

fn ms(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Injects one fault, waits its time, heals it.
async fn inject(stack: &mut Stack, planned: &Planned) -> anyhow::Result<String> {
    let lasts = planned.lasts;
    match planned.fault {
        Fault::KillServe(i) => {
            let pid = stack.serve_pid(i);
            stack.kill_serve(i).await;
            tokio::time::sleep(lasts).await;
            stack.start_serve(i)?;
            Ok(format!("serve {i} pid {pid:?}"))
        }
        Fault::PauseServe(i) => {
            let pid = stack.serve_pid(i);
            paused(pid, lasts).await;
            Ok(format!("serve {i} pid {pid:?}"))
        }
        Fault::KillWorkers => {
            let pid = stack.workers_pid();
            stack.kill_workers().await;
            tokio::time::sleep(lasts).await;
            stack.start_workers(false)?;
            Ok(format!("workers pid {pid:?}"))
        }
        Fault::PauseWorkers => {
            let pid = stack.workers_pid();
            paused(pid, lasts).await;
            Ok(format!("workers pid {pid:?}"))
        }
        Fault::SkewWorkersClock => {
            stack.kill_workers().await;
            stack.start_workers(true)?;
            let pid = stack.workers_pid();
            tokio::time::sleep(lasts).await;
            stack.kill_workers().await;
            stack.start_workers(false)?;
            Ok(format!("workers pid {pid:?} {}", super::stack::SKEW))
        }
        Fault::RabbitmqDiskAlarm => disk_alarm(stack, lasts).await,
        Fault::KillWorkersWhilePostgresSlow => {
            postgres(stack)?.slow(SLOW);
            tokio::time::sleep(lasts).await;
            let mid_batch = until_a_projection_is_mid_batch(stack).await;
            let pid = stack.workers_pid();
            stack.kill_workers().await;
            postgres(stack)?.restore();
            stack.start_workers(false)?;
            Ok(format!(
                "workers pid {pid:?} killed with postgres slowed {SLOW:?} a chunk, \
                 a projection {}",
                if mid_batch {
                    "mid-batch"
                } else {
                    "not seen mid-batch"
                }
            ))
        }
        _ if stack.cluster.is_some() => member(stack, planned.fault, lasts).await,
        _ => link(stack, planned.fault, lasts).await,
    }
}

/// How long the compound fault waits, the link slowed, for a projection
/// to open a batch's transaction: a relay slowed by the same link may
/// send nothing for a while, and a kill between batches reaches no bug.
const MID_BATCH_WAIT: Duration = Duration::from_secs(15);

/// Waits (at most [`MID_BATCH_WAIT`]) until a projection is inside a
/// batch's transaction: a backend of the run's database holding the
/// inbox's row lock without writing events (only the projections write
/// inbox receipts without appending). With the link slowed, that transaction
/// takes seconds more, so a kill right after lands inside it. Read on a
/// direct connection, not through the slowed link.
async fn until_a_projection_is_mid_batch(stack: &Stack) -> bool {
    let Ok(client) = stack.env.db.client().await else {
        return false;
    };
    let sql = "SELECT EXISTS (
                 SELECT 1 FROM pg_locks l
                  WHERE l.database = (SELECT oid FROM pg_database
                                       WHERE datname = current_database())
                    AND l.relation = 'inbox'::regclass
                    AND l.mode = 'RowExclusiveLock' AND l.granted
                    AND l.pid <> pg_backend_pid()
                    AND NOT EXISTS (SELECT 1 FROM pg_locks e
                                     WHERE e.pid = l.pid
                                       AND e.relation = 'events'::regclass
                                       AND e.mode = 'RowExclusiveLock'))";
    let deadline = Instant::now() + MID_BATCH_WAIT;
    while Instant::now() < deadline {
        if let Ok(row) = client.query_one(sql, &[]).await
            && row.get::<_, bool>(0)
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// The link to Postgres of a run on single nodes.
fn postgres(stack: &Stack) -> anyhow::Result<&crate::tcp_proxy::TcpProxy> {
    let links = stack.links.as_ref().context("single nodes only")?;
    Ok(&links.postgres)
}

async fn paused(pid: Option<u32>, lasts: Duration) {
    signal(pid, "STOP").await;
    tokio::time::sleep(lasts).await;
    signal(pid, "CONT").await;
}

/// A single node's fault: on a link (the run's proxies) or a service.
async fn link(stack: &mut Stack, fault: Fault, lasts: Duration) -> anyhow::Result<String> {
    let links = stack.links.as_mut().expect("single nodes have links");
    let proxy = match fault {
        Fault::CutPostgres | Fault::SlowPostgres => Some(&links.postgres),
        Fault::CutRabbitmq | Fault::SlowRabbitmq => Some(&links.rabbitmq),
        Fault::CutRedis | Fault::SlowRedis => Some(&links.redis),
        _ => None,
    };
    match (fault, proxy) {
        (Fault::CutPostgres | Fault::CutRabbitmq | Fault::CutRedis, Some(proxy)) => {
            proxy.cut();
            tokio::time::sleep(lasts).await;
            proxy.restore();
            Ok("link cut".into())
        }
        (_, Some(proxy)) => {
            proxy.slow(SLOW);
            tokio::time::sleep(lasts).await;
            proxy.restore();
            Ok(format!("link slowed {SLOW:?} a chunk"))
        }
        (Fault::RestartRedis, None) => {
            links.own_redis.stop().await?;
            tokio::time::sleep(lasts).await;
            links.own_redis.restart().await?;
            Ok(format!("redis on {} restarted empty", links.own_redis.port))
        }
        (Fault::RestartRabbitmq, None) => {
            rabbitmqctl(&["stop_app"]).await?;
            tokio::time::sleep(lasts).await;
            rabbitmqctl(&["start_app"]).await?;
            rabbitmqctl(&["await_startup"]).await?;
            Ok("rabbitmq app restarted".into())
        }
        _ => anyhow::bail!("{fault:?} is for the clusters"),
    }
}

/// A cluster's fault: a member killed, started again when it heals.
async fn member(stack: &mut Stack, fault: Fault, lasts: Duration) -> anyhow::Result<String> {
    let cluster = stack.cluster.as_ref().expect("on the clusters");
    let alias = match fault {
        Fault::KillPostgresPrimary => "pg-primary",
        Fault::KillRabbitmqNode => "rabbit-leader",
        Fault::KillRedisPrimary => "redis-primary",
        _ => anyhow::bail!("{fault:?} is for single nodes"),
    };
    let member = cluster.resolve(alias).await?;
    cluster.run(&["kill", &member]).await?;
    tokio::time::sleep(lasts).await;
    cluster.run(&["start", &member]).await?;
    Ok(format!("{member} killed and started"))
}

/// The disk alarm: the free-disk limit raised above any disk, then put
/// back. On the clusters, on one node (the alarm is cluster-wide).
async fn disk_alarm(stack: &Stack, lasts: Duration) -> anyhow::Result<String> {
    let node = match &stack.cluster {
        Some(cluster) => Some(cluster.resolve("rabbit-leader").await?),
        None => None,
    };
    let limit = |value: &'static str| {
        let node = node.clone();
        async move {
            match (&node, &stack.cluster) {
                (Some(node), Some(cluster)) => {
                    cluster
                        .run(&["rabbitmqctl", node, "set_disk_free_limit", value])
                        .await?;
                    Ok::<_, anyhow::Error>(())
                }
                _ => rabbitmqctl(&["set_disk_free_limit", value]).await,
            }
        }
    };
    limit("100000GB").await?;
    tokio::time::sleep(lasts).await;
    limit(DEFAULT_DISK_LIMIT).await?;
    Ok(format!(
        "disk alarm on {}",
        node.as_deref().unwrap_or("the node")
    ))
}

/// RabbitMQ's default free-disk limit, put back after the alarm.
const DEFAULT_DISK_LIMIT: &str = "50MB";

async fn rabbitmqctl(args: &[&str]) -> anyhow::Result<()> {
    let status = Command::new("rabbitmqctl")
        .arg("-q")
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .await?;
    anyhow::ensure!(status.success(), "rabbitmqctl {args:?}: {status}");
    Ok(())
}
