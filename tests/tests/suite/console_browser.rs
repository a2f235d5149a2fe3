//! The admin console in a real headless Chromium (docs/design.md §14): Debian's
//! `chromium` driven by playwright-core from npm (`tests/browser/`), each step
//! screenshotted under `target/screenshots/` at 1280×800 and 390×844; the
//! token never in a URL, localStorage or the server's log. A template whose
//! 20,000-line bulk issuance finished before the browser started shows it
//! in its chart (drawn from `GET /v1/templates/{sn}/history`), with y-axis
//! labels that read as numbers.
//!
//! The browser and playwright-core are installed when missing (apt-get, npm
//! ci); the test is skipped, saying why, only when neither can be.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;
use tests::workers::Workers;
use tests::{ADMIN_TOKEN, Env, Server};

const CHROMIUM: &str = "/usr/bin/chromium";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn ran(cmd: &mut Command) -> bool {
    cmd.status().is_ok_and(|s| s.success())
}

/// A CJK font, so that terms such as 满199减20 render in the screenshots.
const CJK_FONT: &str = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc";

/// Chromium and playwright-core are there, or the reason they cannot be.
fn browser_ready() -> Result<(), String> {
    if !Path::new(CHROMIUM).exists() || !Path::new(CJK_FONT).exists() {
        // Without the font the screenshots show boxes for CJK text: the
        // steps still pass, so only a missing browser skips the test.
        ran(Command::new("sh").args([
            "-c",
            "DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
             DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-zenhei",
        ]));
        if !Path::new(CHROMIUM).exists() {
            return Err("Debian's chromium package cannot be installed here".into());
        }
    }
    let dir = workspace().join("tests/browser");
    if !dir.join("node_modules/playwright-core").exists()
        && !ran(Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir))
    {
        return Err("npm cannot install playwright-core".into());
    }
    Ok(())
}

/// Uploads `file` on `sn` and waits until the job is done: its coupons
/// are issued before any page is opened.
async fn issue_in_bulk(server: &Server, sn: &str, file: &Path) {
    let r = server
        .admin(Method::POST, &format!("/v1/issuance-jobs?template={sn}"))
        .header("Content-Type", "text/plain")
        .body(std::fs::read(file).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let job: Value = r.json().await.unwrap();
    let path = format!("/v1/issuance-jobs/{}", job["job_id"].as_str().unwrap());
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let r = server.admin(Method::GET, &path).send().await.unwrap();
        let job: Value = r.json().await.unwrap();
        if job["status"] == "done" {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the bulk issuance is not done: {job}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_console_works_in_a_real_browser_at_desktop_and_phone_width() {
    if let Err(why) = browser_ready() {
        eprintln!("SKIPPED the browser test: {why}");
        return;
    }
    let env = Env::new().await.unwrap();
    // The template page's numbers come from the stats projection.
    let _workers = Workers::start(&env, "relay,template_stats,issuance,sealer").unwrap();
    // The server's log, every request at info: the token must not be in it.
    let dir = std::env::temp_dir().join(format!("console-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("serve.log");
    // Operators of two more roles: what the console shows each.
    let operators = "fin:t-fin-browser:finance, mer:t-mer-browser:merchant:shop-x";
    let logging = [
        ("LEDGER_LOG_FORMAT", "json"),
        ("RUST_LOG", "info"),
        ("LEDGER_ADMIN_TOKENS", operators),
    ];
    let server = Server::start_logging_to(&env, &logging, &log)
        .await
        .unwrap();
    let sn = server.active_template(1_000, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    for user in ["ann", "bob", "cyd"] {
        assert_eq!(server.claim(&channel, &sn, user).await.unwrap().0, 201);
    }
    // The finance page shows the last verify's verdict.
    let verified = tests::workers::ledger(&env, &["audit", "verify"])
        .await
        .unwrap();
    assert!(verified.status.success());
    let screenshots = workspace().join("target/screenshots");
    // 20,000 users for the upload; the quota leaves most of them sold out.
    let file = dir.join("users.txt");
    let users: String = (0..20_000).map(|i| format!("fan-{i}\n")).collect();
    std::fs::write(&file, users).unwrap();
    // A template whose 20,000 coupons are all issued before the browser
    // starts: its chart comes from the ledger's history, not from samples.
    let history_sn = server.active_template(25_000, 1).await.unwrap();
    issue_in_bulk(&server, &history_sn, &file).await;
    let out = tokio::process::Command::new("node")
        .arg("console.mjs")
        .current_dir(workspace().join("tests/browser"))
        .envs([
            ("BASE_URL", server.base.as_str()),
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("FINANCE_TOKEN", "t-fin-browser"),
            ("MERCHANT_TOKEN", "t-mer-browser"),
            ("SN", sn.as_str()),
            ("ISSUED", "3"),
            ("SCREENSHOTS", screenshots.to_str().unwrap()),
            ("USER_FILE", file.to_str().unwrap()),
            ("QUOTA", "1000"),
            ("CHANNEL", "test channel"),
            ("NAME", "test: 20 off 100"),
            ("HISTORY_SN", history_sn.as_str()),
            ("HISTORY_ISSUED", "20000"),
        ])
        .output()
        .await
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("every step passed"), "{stdout}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("/v1/reports/liability"),
        "the console's requests are logged"
    );
    for token in [ADMIN_TOKEN, "t-fin-browser", "t-mer-browser", "clk_"] {
        assert!(!text.contains(token), "a token or key is in the log");
    }
}
