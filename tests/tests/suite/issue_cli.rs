//! `ledger issue` (docs/design.md §9): the bulk-issuance client uploads a file,
//! follows the job to its end, and the same file again is the same job.
//! The HTTP side of bulk issuance: `issuance_jobs.rs`.

use tests::workers::Workers;
use tests::{Env, Server, template_body};

/// Runs `ledger issue` against `server`: (exit code, stdout, stderr).
async fn ledger_issue(env: &Env, server: &Server, args: &[&str]) -> (Option<i32>, String, String) {
    let out = tokio::process::Command::new(tests::bin("ledger"))
        .arg("issue")
        .args(args)
        .envs(env.vars())
        .env("LEDGER_URL", &server.base)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[tokio::test(flavor = "multi_thread")]
async fn ledger_issue_uploads_follows_the_job_and_is_idempotent_by_content() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server
        .activate_template(&template_body(1_000, 1))
        .await
        .unwrap();
    let workers = Workers::start(&env, "issuance").unwrap();
    let dir = std::env::temp_dir().join(format!("issue-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("users.txt");
    let lines: String = (0..1_500).map(|i| format!("cli-{i}\n")).collect();
    std::fs::write(&file, format!("{lines}\nnot valid\n")).unwrap();
    let path = file.to_str().unwrap();

    let (code, stdout, stderr) =
        ledger_issue(&env, &server, &["--template", &sn, "--file", path]).await;
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains(" done: 1502 lines read, 1 blank, 1 invalid, 1000 issued"),
        "{stdout}"
    );
    assert!(stdout.contains("/report"), "{stdout}");
    let (code, again, stderr) =
        ledger_issue(&env, &server, &["--template", &sn, "--file", path]).await;
    assert_eq!(code, Some(0), "{again}{stderr}");
    let job_of = |s: &str| s.split_whitespace().nth(1).map(str::to_owned);
    assert_eq!(
        job_of(&again),
        job_of(&stdout),
        "the same file is the same job"
    );

    let (code, _, stderr) = ledger_issue(
        &env,
        &server,
        &["--template", "NOSUCHSN23456789AB", "--file", path],
    )
    .await;
    assert_eq!(code, Some(1));
    assert!(stderr.contains("404"), "{stderr}");
    let client = env.db.client().await.unwrap();
    let coupons: i64 = client
        .query_one(
            "SELECT count(*) FROM coupons WHERE template_sn = $1",
            &[&sn],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(coupons, 1_000);
    workers.terminate().await.unwrap();
    std::fs::remove_dir_all(dir).ok();
}
