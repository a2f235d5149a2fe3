//! The command lines: `--help` lists every environment variable, `ledger
//! replay` verifies without a flag, and a password in a connection URL never
//! reaches a message.

use std::process::{Output, Stdio};
use std::time::Duration;

use tests::workers::ledger;
use tests::{Env, bin};
use tokio::process::Command;

/// The contract's variables with their defaults (docs/design.md §3); the
/// tokens and the key have none (`serve` needs them unless `--dev`, as
/// their lines say).
const VARIABLES: [(&str, &str); 10] = [
    (
        "DATABASE_URL",
        "postgres://postgres@127.0.0.1:5432/couponledger",
    ),
    ("AMQP_URL", "amqp://guest:guest@127.0.0.1:5672/%2f"),
    ("REDIS_URL", "redis://127.0.0.1:6379/0"),
    ("LEDGER_LISTEN", "127.0.0.1:8080"),
    ("LEDGER_ADMIN_TOKEN", "none"),
    ("LEDGER_ADMIN_TOKENS", "none"),
    ("LEDGER_SERVICE_TOKEN", "none"),
    ("LEDGER_TZ", "Asia/Shanghai"),
    ("LEDGER_REDIS_PREFIX", "couponledger:"),
    ("LEDGER_SECRET_KEY", "none"),
];

const PASSWORD: &str = "s3cr3t-pw";

async fn help(binary: &str, args: &[&str]) -> String {
    let out = Command::new(bin(binary)).args(args).output().await.unwrap();
    assert!(out.status.success(), "{binary} {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test]
async fn help_of_both_binaries_lists_every_environment_variable_with_its_default() {
    for binary in ["ledger", "workers"] {
        let text = help(binary, &["--help"]).await;
        for (var, default) in VARIABLES {
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{var} ")))
                .unwrap_or_else(|| panic!("{binary} --help does not list {var}:\n{text}"));
            assert!(
                line.contains(&format!("[default: {default}]")),
                "{binary}: {line}"
            );
        }
        for var in ledger::config::variables::names() {
            assert!(
                text.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{var} "))),
                "{binary} --help does not list {var}"
            );
        }
    }
}

#[tokio::test]
async fn replay_help_says_verification_is_the_only_mode_and_the_exit_codes() {
    let text = help("ledger", &["replay", "--help"]).await;
    for expected in [
        "Verification is the only mode and the default",
        "--wait-for-projections <SECS>",
        "Exit codes: 0",
        "3 only lag",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn replay_without_a_flag_verifies() {
    let env = Env::new().await.unwrap();
    for args in [&["replay"][..], &["replay", "--verify"]] {
        let out = ledger(&env, args).await.unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert!(
            stdout.contains("replayed 0 events") && stdout.contains(": 0 differences"),
            "{args:?}: {stdout}"
        );
    }
}

/// Runs a binary with `vars` for at most `secs` seconds (then kills it).
async fn run_for(binary: &str, args: &[&str], vars: &[(&str, String)], secs: u64) -> Output {
    let child = Command::new(bin(binary))
        .args(args)
        .envs(vars.iter().map(|(k, v)| (*k, v.as_str())))
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap().to_string();
    let wait = child.wait_with_output();
    tokio::pin!(wait);
    match tokio::time::timeout(Duration::from_secs(secs), &mut wait).await {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let kill = Command::new("kill").args(["-TERM", &pid]).status().await;
            assert!(kill.unwrap().success());
            tokio::time::timeout(Duration::from_secs(20), wait)
                .await
                .unwrap()
                .unwrap()
        }
    }
}

fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Asserts `out` says `expected` and never the password.
fn assert_masked(what: &str, out: &Output, expected: &str) {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !text.contains(PASSWORD),
        "{what} printed the password:\n{text}"
    );
    assert!(
        text.contains(expected),
        "{what}: missing {expected:?} in\n{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_in_a_connection_url_is_never_printed() {
    let port = closed_port();
    let db = format!("postgres://app:{PASSWORD}@127.0.0.1:{port}/couponledger");
    let amqp = format!("amqp://app:{PASSWORD}@127.0.0.1:{port}/%2f");
    let redis = format!("redis://:{PASSWORD}@127.0.0.1:{port}/0");
    let closed = [
        ("DATABASE_URL", db),
        ("AMQP_URL", amqp),
        ("REDIS_URL", redis),
        ("LEDGER_LISTEN", format!("127.0.0.1:{}", closed_port())),
    ];
    let out = run_for("ledger", &["migrate"], &closed, 20).await;
    assert_masked("ledger migrate", &out, "Connection refused");
    assert_eq!(out.status.code(), Some(1));
    let out = run_for("ledger", &["serve", "--dev"], &closed, 3).await;
    assert_masked("ledger serve", &out, "cannot declare the RabbitMQ topology");
    let out = run_for("workers", &["run"], &closed, 3).await;
    assert_masked("workers run", &out, "session failed; reconnecting");

    // Bad values: the parse error quotes the value, masked.
    for (var, value) in [
        (
            "DATABASE_URL",
            format!("postgres://app:{PASSWORD}@127.0.0.1:99999/db"),
        ),
        (
            "AMQP_URL",
            format!("amqp://app:{PASSWORD}@127.0.0.1:notaport/%2f"),
        ),
        (
            "REDIS_URL",
            format!("rediss://app:{PASSWORD}@127.0.0.1:notaport/0"),
        ),
    ] {
        let vars = [(var, value)];
        for (binary, args) in [
            ("ledger", &["migrate"][..]),
            ("ledger", &["serve", "--dev"]),
            ("workers", &["run"]),
        ] {
            let out = run_for(binary, args, &vars, 20).await;
            assert_masked(&format!("{binary} {args:?} with a bad {var}"), &out, var);
            assert!(!out.status.success(), "{binary} {args:?}: {out:?}");
        }
    }
}

/// Runs `scripts/signed-claim` against `base` (LEDGER_URL).
async fn signed_claim(base: &str, args: [&str; 4]) -> (Option<i32>, String) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/signed-claim");
    let out = Command::new(script)
        .args(args)
        .env("LEDGER_URL", base)
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code(), text)
}

#[tokio::test(flavor = "multi_thread")]
async fn signed_claim_script_uses_ledger_url_and_fails_on_a_refusal() {
    let env = Env::new().await.unwrap();
    let server = tests::Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let args = [channel.id.as_str(), &channel.secret, &sn, "user-42"];
    let (code, text) = signed_claim(&server.base, args).await;
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("HTTP 2"), "{text}");
    // The per-user limit is 1: the second claim is refused.
    let (code, text) = signed_claim(&server.base, args).await;
    assert_eq!(code, Some(1), "{text}");
    assert!(text.starts_with("HTTP 4"), "{text}");
    let wrong = [channel.id.as_str(), "not-the-secret", &sn, "user-43"];
    let (code, text) = signed_claim(&server.base, wrong).await;
    assert_eq!(code, Some(1), "{text}");
    assert!(text.starts_with("HTTP 401"), "{text}");
}

/// Runs `binary` with RUST_BACKTRACE=1 and without the tokens: its stderr.
async fn failing_with_backtraces(binary: &str, args: &[&str], vars: &[(&str, &str)]) -> Output {
    Command::new(bin(binary))
        .args(args)
        .env_remove("LEDGER_ADMIN_TOKEN")
        .env_remove("LEDGER_SERVICE_TOKEN")
        .env("RUST_BACKTRACE", "1")
        .env("RUST_LOG", "warn")
        .envs(vars.iter().copied())
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_error_is_one_line_whatever_rust_backtrace_says() {
    let issue = ["issue", "--template", "SN", "--file", "/dev/null"];
    let out = failing_with_backtraces("ledger", &issue, &[]).await;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line:\n{stderr}");
    assert!(
        stderr.starts_with("Error: LEDGER_ADMIN_TOKEN: required by `ledger issue`")
            && stderr.contains("scripts/run prints the dev tokens"),
        "says where the token comes from: {stderr}"
    );

    let bad_tz = [("LEDGER_TZ", "Mars/Olympus")];
    let out = failing_with_backtraces("workers", &["run"], &bad_tz).await;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line:\n{stderr}");
    assert!(stderr.contains("LEDGER_TZ"), "{stderr}");

    // --verbose asks for the whole report.
    let verbose = [
        "--verbose",
        "issue",
        "--template",
        "SN",
        "--file",
        "/dev/null",
    ];
    let out = failing_with_backtraces("ledger", &verbose, &[]).await;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.lines().count() > 1, "the report:\n{stderr}");
}
