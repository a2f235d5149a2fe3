//! Old event partitions through the binaries (docs/design.md §16): a store
//! of real claims in three partitions, sealed by the sealer; `ledger
//! archive events` lists them and refuses to drop one without a verified
//! export; `ledger archive export-events` writes one that `ledger audit
//! verify --file` verifies with no database, and names the line of any
//! changed byte; a partition moved to another tablespace and back leaves
//! `audit verify` and `replay --verify` passing; once exported, a
//! partition drops, and `audit verify` says to start after its checkpoint.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use tests::scenario::claim_many;
use tests::workers::{Workers, ledger, replay_both_ways};
use tests::{Env, Server, bin};

/// Claims `n` coupons of `sn` for users `from..from + n`, appending from
/// position `next` on.
async fn claims_from(env: &Env, sn: &str, from: usize, n: usize, next: i64) {
    let client = env.db.client().await.unwrap();
    client
        .execute("SELECT setval('events_position_seq', $1, false)", &[&next])
        .await
        .unwrap();
    claim_many(env, sn, from..from + n, 3).await.unwrap();
}

/// Seals everything with the sealer worker until a checkpoint covers it.
async fn sealed(env: &Env) {
    let sealer = Workers::start_with(
        env,
        "sealer",
        &["--checkpoint-events", "7", "--checkpoint-secs", "1"],
    )
    .unwrap();
    let client = env.db.client().await.unwrap();
    let sql = "SELECT (SELECT count(*) FROM events) = (SELECT count(*) FROM event_seals)
                  AND (SELECT max(seq) FROM event_seals)
                      = (SELECT max(last_seq) FROM seal_checkpoints)";
    for _ in 0..600 {
        if client
            .query_one(sql, &[])
            .await
            .unwrap()
            .get::<_, Option<bool>>(0)
            == Some(true)
        {
            sealer.terminate().await.unwrap();
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the sealer did not seal and checkpoint every event");
}

fn text(out: &Output) -> (Option<i32>, String, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn run(env: &Env, args: &[&str]) -> (Option<i32>, String, String) {
    text(&ledger(env, args).await.unwrap())
}

/// `ledger audit verify --file FILE` with no database: DATABASE_URL names
/// a closed port, and nothing else is set.
async fn verify_offline(path: &Path) -> (Option<i32>, String, String) {
    let out = tokio::process::Command::new(bin("ledger"))
        .args(["audit", "verify", "--file"])
        .arg(path)
        .env_clear()
        .env("DATABASE_URL", "postgres://nobody@127.0.0.1:9/nothing")
        .output()
        .await
        .unwrap();
    text(&out)
}

/// A store of real claims: 20 coupons (and the template) in partition 0,
/// 15 in partition 1, 5 in partition 2 (being written), all sealed.
async fn claims_in_three_partitions(env: &Env) {
    let server = Server::start(env).await.unwrap();
    let sn = server.active_template(1_000, 1).await.unwrap();
    let size = env_size(env).await;
    claim_many(env, &sn, 0..20, 3).await.unwrap();
    claims_from(env, &sn, 20, 15, size + 1).await;
    claims_from(env, &sn, 35, 5, 2 * size + 1).await;
    drop(server);
    sealed(env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn old_partitions_export_verify_offline_move_and_drop_only_once_exported() {
    let env = Env::new().await.unwrap();
    claims_in_three_partitions(&env).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p0.jsonl");
    let (code, listed, err) = run(&env, &["archive", "events"]).await;
    assert_eq!(code, Some(0), "{err}");
    for expected in ["closed", "being written", "ahead", "default"] {
        assert!(listed.contains(expected), "{expected}: {listed}");
    }
    refused_without_an_export_of_it(&env, dir.path()).await;

    // Exported, read back, verified, recorded; verified again offline.
    let args = ["archive", "export-events", "--partition", "0", "--output"];
    let (code, out, err) = run(&env, &[&args[..], &[file.to_str().unwrap()]].concat()).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("verified;") && out.contains("recorded as export #"),
        "{out}"
    );
    let (code, out, err) = verify_offline(&file).await;
    assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
    assert!(
        out.contains("partition 0 [0, ") && out.contains("unbroken"),
        "{out}"
    );
    let (_, listed, _) = run(&env, &["archive", "events"]).await;
    assert!(listed.contains("export #2 verified"), "{listed}");

    changed_bytes_are_named(&file).await;
    moved_and_back(&env).await;
    dropped_once_exported(&env, &file).await;
}

/// Partition 0 stays without an export of exactly it; partition 2, being
/// written, is not exported.
async fn refused_without_an_export_of_it(env: &Env, dir: &Path) {
    let (code, _, err) = run(env, &["archive", "events", "--partition", "0", "--drop"]).await;
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("no verified export of partition 0"), "{err}");
    let p1 = dir.join("p1.jsonl");
    let args = [
        "archive",
        "export-events",
        "--partition",
        "1",
        "--output",
        p1.to_str().unwrap(),
    ];
    let (code, out, err) = run(env, &args).await;
    assert_eq!(code, Some(0), "{out}{err}");
    let (code, _, err) = run(env, &["archive", "events", "--partition", "0", "--detach"]).await;
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("of partition 1 ["), "{err}");
    let p2 = dir.join("p2.jsonl");
    let args = [
        "archive",
        "export-events",
        "--partition",
        "2",
        "--output",
        p2.to_str().unwrap(),
    ];
    let (code, _, err) = run(env, &args).await;
    assert_eq!(code, Some(1));
    assert!(err.contains("being written"), "{err}");
}

/// Exported: partition 0 drops; the store's chain verifies after its
/// checkpoint, and the export still verifies.
async fn dropped_once_exported(env: &Env, file: &Path) {
    let (code, out, err) = run(env, &["archive", "events", "--partition", "0", "--drop"]).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("dropped events_p0"), "{out}");
    let from = out
        .split("--from-checkpoint ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap()
        .to_owned();
    let (code, out, _) = run(env, &["audit", "verify"]).await;
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains(&format!("--from-checkpoint {from},")), "{out}");
    let (code, out, err) = run(env, &["audit", "verify", "--from-checkpoint", &from]).await;
    assert_eq!(code, Some(0), "{out}{err}");
    let (code, out, _) = verify_offline(file).await;
    assert_eq!(code, Some(0), "the export outlives the partition: {out}");
}

/// A payload, a link and the footer, each changed by one byte in a copy:
/// each named by its line, exit 1.
async fn changed_bytes_are_named(file: &Path) {
    let original = std::fs::read(file).unwrap();
    let lines: Vec<&[u8]> = original.split_inclusive(|b| *b == b'\n').collect();
    let start = |line: usize| lines[..line - 1].iter().map(|l| l.len()).sum::<usize>();
    let find = |line: usize, needle: &str| {
        let at = lines[line - 1]
            .windows(needle.len())
            .position(|w| w == needle.as_bytes())
            .unwrap();
        start(line) + at + needle.len()
    };
    let last = lines.len();
    let claim = 1 + lines
        .iter()
        .position(|l| l.windows(13).any(|w| w == b"\"user_id\": \"u"))
        .unwrap();
    let places = [
        (claim, find(claim, "\"user_id\": \"u")),
        (5, find(5, "\"hash\":\"")),
        (last, find(last, "\"created_at\":\"") + 3),
    ];
    for (line, at) in places {
        let mut bytes = original.clone();
        bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
        let copy = file.with_extension("changed");
        std::fs::write(&copy, &bytes).unwrap();
        let (code, out, _) = verify_offline(&copy).await;
        assert_eq!(code, Some(1), "{out}");
        assert!(
            out.contains(&format!(": line {line}")),
            "line {line}: {out}"
        );
        assert!(out.starts_with("audit: TAMPERED: "), "{out}");
    }
}

/// Moves partition 1 to a tablespace of its own and back, checking the
/// chain and the replay meanwhile. CREATE TABLESPACE needs a directory
/// the server's user owns: made here when this process may (root), else
/// only the refusals are checked.
async fn moved_and_back(env: &Env) {
    move_refusals(env).await;
    let Some(space) = Tablespace::make(env).await else {
        eprintln!("no tablespace could be made here: the move itself is not tested");
        return;
    };
    let args = [
        "archive",
        "events",
        "--partition",
        "1",
        "--tablespace",
        &space.name,
    ];
    let (code, out, err) = run(env, &args).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("wait until the copy ends"), "{err}");
    assert!(
        out.contains(&format!("moved events_p{} to", env_size(env).await)),
        "{out}"
    );
    let (_, listed, _) = run(env, &["archive", "events"]).await;
    assert!(listed.contains(&space.name), "{listed}");
    let (code, out, err) = run(env, &["audit", "verify"]).await;
    assert_eq!(code, Some(0), "{out}{err}");
    let workers = Workers::start(env, "relay,balances,template_stats").unwrap();
    let args = ["replay", "--verify", "--wait-for-projections", "60"];
    let (code, out) = replay_both_ways(env, &args).await;
    workers.terminate().await.unwrap();
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("0 differences"), "{out}");
    let args = [
        "archive",
        "events",
        "--partition",
        "1",
        "--tablespace",
        "pg_default",
    ];
    let (code, _, err) = run(env, &args).await;
    assert_eq!(code, Some(0), "{err}");
    space.drop_it(env).await;
}

/// The partition being written and a tablespace that does not exist.
async fn move_refusals(env: &Env) {
    let args = [
        "archive",
        "events",
        "--partition",
        "2",
        "--tablespace",
        "pg_default",
    ];
    let (code, _, err) = run(env, &args).await;
    assert_eq!(code, Some(1));
    assert!(err.contains("being written"), "{err}");
    let args = [
        "archive",
        "events",
        "--partition",
        "1",
        "--tablespace",
        "nowhere",
    ];
    let (code, _, err) = run(env, &args).await;
    assert_eq!(code, Some(1));
    assert!(err.contains("no tablespace \"nowhere\""), "{err}");
}

async fn env_size(env: &Env) -> i64 {
    let client = env.db.client().await.unwrap();
    ledger::store::partitions::size(&client).await.unwrap()
}

/// A tablespace in a temporary directory owned by the server's user.
struct Tablespace {
    name: String,
    _dir: tempfile::TempDir,
}

impl Tablespace {
    async fn make(env: &Env) -> Option<Self> {
        let dir = tempfile::tempdir().ok()?;
        let owned = std::process::Command::new("chown")
            .args(["postgres:postgres"])
            .arg(dir.path())
            .status()
            .ok()?;
        if !owned.success() {
            return None;
        }
        let name = format!("couponledger_test_{}", uuid::Uuid::new_v4().simple());
        let client = env.db.client().await.ok()?;
        let sql = format!(
            "CREATE TABLESPACE {name} LOCATION '{}'",
            dir.path().display()
        );
        match client.batch_execute(&sql).await {
            Ok(()) => Some(Tablespace { name, _dir: dir }),
            Err(e) => {
                eprintln!("CREATE TABLESPACE: {e}");
                None
            }
        }
    }

    async fn drop_it(self, env: &Env) {
        let client = env.db.client().await.unwrap();
        client
            .batch_execute(&format!("DROP TABLESPACE {}", self.name))
            .await
            .unwrap();
    }
}
