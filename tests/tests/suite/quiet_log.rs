//! A log that stays quiet (issue 26): with nothing bound to `coupon.events`
//! (the default), every event the relay sends there comes back unroutable.
//! That is expected: the returns are counted, summarised at most once a
//! minute, and no line of either binary carries a message body or a user id.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use reqwest::Method;
use tests::workers::projections_caught_up;
use tests::{Env, Server, bin};
use tokio::process::Command;

const USERS: usize = 10_000;
/// Every user id of the upload starts with this, so a leak is easy to find.
const MARK: &str = "quietlog-user-";

/// The value of the unroutable counter of `coupon.events` on `/metrics`.
async fn unroutable(server: &Server) -> u64 {
    let text = server.metrics().await.unwrap();
    let line = text.lines().find(|l| {
        l.starts_with("couponledger_relay_unroutable_events_total{route=\"coupon.events\"}")
    });
    line.and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn ten_thousand_unroutable_events_leave_a_short_log_without_user_ids() {
    let env = Env::new().await.unwrap();
    let dir = std::env::temp_dir().join(format!("quiet-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let (serve_log, workers_log) = (dir.join("serve.log"), dir.join("workers.log"));
    // The binaries' own default level, not the suite's quieter one.
    let vars = [("RUST_LOG", "info"), ("LEDGER_METRICS_REFRESH_SECS", "1")];
    let server = Server::start_logging_to(&env, &vars, &serve_log)
        .await
        .unwrap();
    let mut workers = Command::new(bin("workers"))
        .args(["run", "--scan-interval", "1"])
        .envs(env.vars())
        .envs(vars)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&workers_log).unwrap())
        .kill_on_drop(true)
        .spawn()
        .unwrap();

    let sn = server.active_template(USERS as i64, 1).await.unwrap();
    let file: String = (0..USERS).map(|i| format!("{MARK}{i:05}\n")).collect();
    let r = server
        .admin(Method::POST, &format!("/v1/issuance-jobs?template={sn}"))
        .header("Content-Type", "text/plain")
        .body(file)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202, "{:?}", r.text().await);
    projections_caught_up(&env, Duration::from_secs(120))
        .await
        .unwrap();
    let mut counted = 0;
    for _ in 0..240 {
        counted = unroutable(&server).await;
        if counted >= USERS as u64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(
        counted >= USERS as u64,
        "every issued coupon's event counted: {counted}"
    );
    let _ = Command::new("kill")
        .args(["-TERM", &workers.id().unwrap().to_string()])
        .status()
        .await;
    let _ = tokio::time::timeout(Duration::from_secs(20), workers.wait()).await;
    server.terminate().await.unwrap();

    let lines: Vec<String> = [&serve_log, &workers_log]
        .into_iter()
        .flat_map(|p| lines_of(p))
        .collect();
    assert!(
        lines.len() < 100,
        "{} log lines for {USERS} events:\n{}",
        lines.len(),
        lines.join("\n")
    );
    let leaks: Vec<&String> = lines.iter().filter(|l| l.contains(MARK)).collect();
    assert!(leaks.is_empty(), "user ids in the log: {leaks:?}");
    assert!(
        lines.iter().all(|l| !l.contains('\u{1b}')),
        "no colour codes in a log that is not a terminal"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
