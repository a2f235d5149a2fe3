//! What a client sees when Postgres goes away under a running server and
//! comes back, as in a failover (docs/design.md §17): the link to Postgres
//! runs through a proxy the test cuts. Requests caught meanwhile answer 503
//! with `Retry-After`, never 500; retried with their Idempotency-Key once
//! Postgres is back, each takes effect exactly once; pooled connections
//! that died are opened again without a restart.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tests::tcp_proxy::TcpProxy;
use tests::{Env, Server};

async fn claim(
    server: &Server,
    ch: &tests::Channel,
    sn: &str,
    user: &str,
    key: &str,
) -> (u16, Option<String>, Value) {
    let body = json!({"template_sn": sn, "user_id": user}).to_string();
    let signed = ch.sign(
        "POST",
        "/v1/claims",
        &body,
        &uuid::Uuid::new_v4().to_string(),
    );
    let mut req = server
        .http
        .post(server.url("/v1/claims"))
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", key)
        .body(body);
    for (k, v) in signed.headers {
        req = req.header(k, v);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    let retry = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, retry, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_caught_while_postgres_is_away_answer_503_and_their_retries_take_effect_once() {
    let env = Env::new().await.unwrap();
    let postgres: SocketAddr = "127.0.0.1:5432".parse().unwrap();
    let proxy = TcpProxy::start(postgres).await.unwrap();
    let url = env.db.url().replace(":5432/", &format!(":{}/", proxy.port));
    let server = Server::start_with(&env, &[("DATABASE_URL", &url)])
        .await
        .unwrap();
    let sn = server.active_template(1_000, 1).await.unwrap();
    let ch = server.channel_for(&sn).await.unwrap();
    let (status, _, first) = claim(&server, &ch, &sn, "before", "k-before").await;
    assert_eq!(status, 201, "{first}");

    proxy.cut();
    let mut caught = vec![];
    for i in 0..20 {
        let (status, retry, body) =
            claim(&server, &ch, &sn, &format!("u{i}"), &format!("k{i}")).await;
        assert_eq!(status, 503, "{body}");
        assert!(
            retry.is_some_and(|s| s.parse::<u64>().is_ok_and(|s| s >= 1)),
            "Retry-After"
        );
        assert_eq!(body["error"]["code"], "unavailable", "{body}");
        caught.push(i);
    }
    proxy.restore();
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Each retried with its key: one coupon each; the retry of a retry
    // answers the same coupon.
    let mut ids = vec![];
    for i in &caught {
        let (status, _, body) = claim(&server, &ch, &sn, &format!("u{i}"), &format!("k{i}")).await;
        assert_eq!(status, 201, "{body}");
        let (again, _, same) = claim(&server, &ch, &sn, &format!("u{i}"), &format!("k{i}")).await;
        assert_eq!((again, &same["id"]), (201, &body["id"]));
        ids.push(body["id"].clone());
    }
    let (status, _, before) = claim(&server, &ch, &sn, "before", "k-before").await;
    assert_eq!(
        (status, &before["id"]),
        (201, &first["id"]),
        "the first answer again"
    );

    let client = env.db.client().await.unwrap();
    let row = client
        .query_one(
            "SELECT count(*), count(DISTINCT user_id) FROM coupons WHERE template_sn = $1",
            &[&sn],
        )
        .await
        .unwrap();
    let (coupons, users): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!(
        (coupons, users),
        (21, 21),
        "one coupon per user, none twice"
    );

    // A primary demoted under the pool answers writes "read-only": 503 too.
    let db = client
        .query_one("SELECT current_database()", &[])
        .await
        .unwrap()
        .get::<_, String>(0);
    let read_only =
        |on: bool| format!("ALTER DATABASE {db} SET default_transaction_read_only = {on}");
    client.batch_execute(&read_only(true)).await.unwrap();
    terminate_others(&client).await;
    let (status, retry, body) = claim(&server, &ch, &sn, "demoted", "k-demoted").await;
    assert_eq!((status, retry.is_some()), (503, true), "{body}");
    client.batch_execute(&read_only(false)).await.unwrap();
    terminate_others(&client).await;
    let (status, _, body) = claim(&server, &ch, &sn, "demoted", "k-demoted").await;
    assert_eq!(status, 201, "{body}");
}

/// Ends every other session of the test's database, as a restart would.
async fn terminate_others(client: &tokio_postgres::Client) {
    client
        .batch_execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .await
        .unwrap();
}
