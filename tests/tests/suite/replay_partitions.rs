//! `ledger replay --verify --partitions N` over 200,000 coupons: the same
//! verdict and the same named differences as in one pass, in a fraction of
//! its memory (a pass holds an eighth of the coupons, a bucket of users an
//! eighth of the users).

use ledger::replay::partition::MEMORY_BOUND_MB;
use tests::Env;
use tests::bench_store::issued_store;
use tests::peak_rss::ledger_peak_kib;
use tests::workers::findings;

const COUPONS: i64 = 200_000;

/// `ledger replay --verify --partitions <n>`: exit code, output, peak RSS in KiB.
async fn replay(env: &Env, partitions: &str) -> (Option<i32>, String, u64) {
    let args = ["replay", "--verify", "--partitions", partitions];
    let (out, peak) = ledger_peak_kib(env, &args).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.trim().is_empty(), "{stderr}");
    (out.status.code(), stdout, peak)
}

#[tokio::test(flavor = "multi_thread")]
async fn partitioned_replay_names_the_same_differences_in_bounded_memory() {
    let env = Env::new().await.unwrap();
    let client = env.db.client().await.unwrap();
    issued_store(&client, COUPONS).await;
    // What the process takes before it holds any coupon (runtime, pools,
    // the allocator's own reserve): not part of what grows with the store.
    let empty = Env::new().await.unwrap();
    let (_, _, base) = replay(&empty, "1").await;
    let (code, stdout, _) = replay(&env, "8").await;
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains(" 0 differences"), "{stdout}");

    // One coupon given away and one balance raised by hand.
    let stolen: uuid::Uuid = client
        .query_one("SELECT id FROM coupons WHERE user_id = 'u77'", &[])
        .await
        .unwrap()
        .get(0);
    client
        .batch_execute(&format!(
            "UPDATE coupons SET user_id = 'mallory' WHERE id = '{stolen}';
             UPDATE balances SET count = 2 WHERE user_id = 'u1234'"
        ))
        .await
        .unwrap();
    let (code_8, many, peak_8) = replay(&env, "8").await;
    let (code_1, one, peak_1) = replay(&env, "1").await;
    assert_eq!((code_8, code_1), (Some(1), Some(1)), "{many}\n{one}");
    for expected in [
        format!("coupons {stolen} user_id: live mallory vs replayed u77"),
        r#"balances ("u1234", "unused") count: live 2 vs replayed 1"#.to_owned(),
        ": 2 differences".to_owned(),
    ] {
        assert!(many.contains(&expected), "missing {expected:?} in\n{many}");
    }
    assert_eq!(findings(&many), findings(&one), "{many}\n{one}");
    assert!(many.contains("; 8 passes;") && one.contains("; 1 pass;"));

    // The coupons and users are what grows: an eighth of them per pass and
    // bucket (two buckets at a time) takes well under half the memory of
    // all at once (above an empty store's), and stays under the bound.
    assert!(
        peak_8.saturating_sub(base) < peak_1.saturating_sub(base) / 2,
        "8 passes peaked at {peak_8} KiB, one pass at {peak_1} KiB, an empty store at {base} KiB"
    );
    assert!(peak_8 < MEMORY_BOUND_MB * 1024, "{peak_8} KiB");
    println!("peak RSS: 8 passes {peak_8} KiB, one pass {peak_1} KiB, empty {base} KiB");
}
