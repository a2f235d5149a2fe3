//! `/metrics` after real traffic (issue 18): every family an operator
//! reads is exposed with a value the traffic explains, and `ops/alerts.yml`
//! is well formed and names only those families.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tests::ops_metrics::{FAMILIES, exposed, value};
use tests::workers::Workers;
use tests::{Env, Server, template_body};

use ledger::messaging::topology;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_expose_every_family_after_traffic() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[("LEDGER_METRICS_REFRESH_SECS", "1")])
        .await
        .unwrap();
    let workers =
        Workers::start(&env, "relay,balances,template_stats,notify,issuance,sealer").unwrap();

    // Claims: three issued, one at the user's limit, one sold out, one
    // with a bad signature.
    let sn = server.active_template(3, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    let mut statuses = vec![];
    for user in ["u1", "u1", "u2", "u3", "u4"] {
        statuses.push(server.claim(&channel, &sn, user).await.unwrap().0);
    }
    assert_eq!(statuses, [201, 409, 201, 201, 410]);
    let body = json!({"template_sn": sn, "user_id": "u5"}).to_string();
    let mut forged = channel.sign("POST", "/v1/claims", &body, "n-forged");
    forged.headers[3].1 = "00".repeat(32);
    assert_eq!(server.send_signed(forged, body).await.unwrap().0, 401);

    // A webhook endpoint (disabled: it is the families' series that count).
    let hook = json!({"url": "https://1.1.1.1/hook", "event_types": ["*"]});
    let (status, made) = server.admin_post("/v1/webhooks", &hook).await.unwrap();
    assert_eq!(status, 201, "{made}");
    let disable = format!("/v1/webhooks/{}/disable", made["id"].as_str().unwrap());
    assert_eq!(
        server.admin_post(&disable, &json!({})).await.unwrap().0,
        200
    );

    // A bulk issuance of 50 users.
    let bulk = server
        .activate_template(&template_body(100, 1))
        .await
        .unwrap();
    let file: String = (0..50).map(|i| format!("bulk-{i}\n")).collect();
    let r = server
        .admin(Method::POST, &format!("/v1/issuance-jobs?template={bulk}"))
        .header("Content-Type", "text/plain")
        .body(file)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let job: Value = r.json().await.unwrap();
    let job_id = job["job_id"].as_str().unwrap().to_owned();
    wait_job_done(&server, &job_id).await;

    // Wait until the workers have caught up and a refresh has seen it.
    let client = env.db.client().await.unwrap();
    let events: i64 = client
        .query_one("SELECT count(*) FROM events", &[])
        .await
        .unwrap()
        .get(0);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let text = loop {
        let text = server.metrics().await.unwrap();
        match settled(&text, events) {
            Ok(()) => break text,
            Err(why) if tokio::time::Instant::now() > deadline => {
                panic!("{why} after 60 s ({events} events) in\n{text}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
        }
    };

    for family in FAMILIES {
        assert!(exposed(&text, family), "{family} missing from\n{text}");
    }
    let claims = |outcome| value(&text, "couponledger_claims_total", &[("outcome", outcome)]);
    assert_eq!(claims("issued"), Some(3.0), "{text}");
    assert_eq!(claims("at_limit"), Some(1.0), "{text}");
    assert_eq!(claims("sold_out"), Some(1.0), "{text}");
    assert_eq!(claims("rejected"), Some(1.0), "{text}");
    assert_eq!(claims("rate_limited"), Some(0.0), "{text}");
    let created = [("route", "/v1/claims"), ("status", "201")];
    assert_eq!(
        value(&text, "couponledger_http_requests_total", &created),
        Some(3.0)
    );
    assert!(
        value(
            &text,
            "couponledger_http_request_duration_seconds_count",
            &created
        )
        .is_some_and(|n| n == 3.0),
        "{text}"
    );
    for (name, expected) in [
        ("couponledger_issuance_lines_read_total", 50.0),
        ("couponledger_issuance_chunks_published_total", 1.0),
        ("couponledger_issuance_coupons_issued", 50.0),
    ] {
        assert_eq!(value(&text, name, &[]), Some(expected), "{name}");
    }
    // One job, whatever status it is stored with (a read may report
    // `done` from its counters before the stored status says so).
    let jobs: f64 = tests::ops_metrics::samples(&text)
        .iter()
        .filter(|(name, ..)| *name == "couponledger_issuance_jobs")
        .map(|(.., v)| v)
        .sum();
    assert_eq!(jobs, 1.0, "{text}");
    let head = value(&text, "couponledger_events_head_position", &[]).unwrap();
    assert!(head > 0.0);
    for queue in topology::QUEUES {
        let q = [("queue", queue)];
        for family in [
            "couponledger_queue_messages",
            "couponledger_queue_messages_ready",
            "couponledger_queue_messages_unacknowledged",
            "couponledger_queue_consumers",
        ] {
            let v = value(&text, family, &q);
            assert!(v.is_some_and(|v| v >= 0.0), "{family}{{queue={queue}}}");
        }
        assert_eq!(
            value(&text, "couponledger_queue_max_length", &q),
            Some(topology::MAX_QUEUE_LENGTH as f64)
        );
    }
    assert_eq!(value(&text, "couponledger_dead_letters", &[]), Some(0.0));
    let pending = value(&text, "couponledger_reminders", &[("status", "pending")]);
    assert!(pending.is_some_and(|n| n >= 1.0), "{text}");
    assert_eq!(
        value(&text, "couponledger_reminders", &[("status", "failed")]),
        Some(0.0)
    );
    assert_eq!(
        value(&text, "couponledger_reminders_overdue", &[]),
        Some(0.0)
    );
    assert!(value(&text, "couponledger_sealer_position", &[]).is_some_and(|p| p > 0.0));
    assert_eq!(
        value(&text, "couponledger_sealer_lag_events", &[]),
        Some(0.0)
    );
    // The first checkpoint may not be taken yet (0): the gauge is there.
    let checkpoint = "couponledger_sealer_last_checkpoint_timestamp_seconds";
    assert!(value(&text, checkpoint, &[]).is_some_and(|t| t >= 0.0));
    workers.terminate().await.unwrap();
}

/// Whether the refreshed gauges show the workers caught up with `events`.
fn settled(text: &str, events: i64) -> Result<(), String> {
    let events = events as f64;
    let head = value(text, "couponledger_events_head_position", &[]);
    let check = |what: &str, ok: bool| if ok { Ok(()) } else { Err(what.to_owned()) };
    check(
        "management API up",
        value(text, "couponledger_rabbitmq_management_up", &[]) == Some(1.0),
    )?;
    check("head read", head.is_some_and(|h| h > 0.0))?;
    for projection in ["balances", "template_stats", "notify"] {
        let at = value(
            text,
            "couponledger_projection_position",
            &[("projection", projection)],
        );
        check(&format!("{projection} at the head"), at == head)?;
    }
    for route in ledger::messaging::routes::names() {
        let published = value(
            text,
            "couponledger_relay_published_events_total",
            &[("route", route)],
        );
        check(
            &format!("relay {route} published every event"),
            published == Some(events),
        )?;
        let lag = value(
            text,
            "couponledger_consumer_lag_events",
            &[("consumer", &format!("relay:{route}"))],
        );
        check(&format!("relay {route} lag 0"), lag == Some(0.0))?;
        let seconds = value(
            text,
            "couponledger_consumer_lag_seconds",
            &[("consumer", &format!("relay:{route}"))],
        );
        check(&format!("relay {route} lag 0 s"), seconds == Some(0.0))?;
    }
    check(
        "sealer sealed every event",
        value(text, "couponledger_sealer_sealed_events", &[]) == Some(events),
    )?;
    check(
        "issuance gauges refreshed",
        value(text, "couponledger_issuance_coupons_issued", &[]) == Some(50.0),
    )?;
    check(
        "reminders refreshed",
        value(text, "couponledger_reminders", &[("status", "pending")]).is_some_and(|n| n > 0.0),
    )
}

async fn wait_job_done(server: &Server, id: &str) {
    for _ in 0..600 {
        let r = server
            .admin(Method::GET, &format!("/v1/issuance-jobs/{id}"))
            .send()
            .await
            .unwrap();
        let job: Value = r.json().await.unwrap();
        if job["status"] == "done" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("job {id} not done");
}

fn alerts_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ops/alerts.yml")
}

/// The metric names an expression uses: every `couponledger_*` identifier.
fn metric_names(expr: &str) -> Vec<&str> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    expr.split(|c: char| !is_ident(c))
        .filter(|word| word.starts_with("couponledger_"))
        .collect()
}

/// A series name of `family`: itself, or a histogram's parts.
fn of_a_family(name: &str) -> bool {
    FAMILIES.iter().any(|family| {
        name == *family
            || ["_bucket", "_sum", "_count"]
                .iter()
                .any(|part| name.strip_suffix(part) == Some(family))
    })
}

#[test]
fn alert_rules_parse_and_name_only_exposed_metrics() {
    let path = alerts_file();
    let text = std::fs::read_to_string(&path).unwrap();
    let doc: Value = serde_norway::from_str(&text).unwrap();
    let groups = doc["groups"].as_array().expect("groups: a list");
    let mut alerts = vec![];
    for group in groups {
        assert!(group["name"].is_string(), "a group has a name: {group}");
        for rule in group["rules"].as_array().expect("rules: a list") {
            let name = rule["alert"].as_str().expect("alert: a name");
            let expr = rule["expr"].as_str().expect("expr");
            assert!(rule["for"].is_string(), "{name}: for");
            assert!(rule["labels"]["severity"].is_string(), "{name}: severity");
            assert!(
                rule["annotations"]["summary"].is_string()
                    && rule["annotations"]["description"].is_string(),
                "{name}: annotations"
            );
            let names = metric_names(expr);
            assert!(!names.is_empty(), "{name}: {expr}");
            for metric in names {
                assert!(of_a_family(metric), "{name}: {metric} is not exposed");
            }
            alerts.push(name.to_owned());
        }
    }
    for expected in [
        "RelayLagging",
        "DeadLettersPresent",
        "QueueNearItsBound",
        "RemindersFailing",
    ] {
        assert!(
            alerts.iter().any(|a| a == expected),
            "{expected}: {alerts:?}"
        );
    }

    // promtool checks the PromQL itself when it is installed.
    match std::process::Command::new("promtool")
        .args(["check", "rules"])
        .arg(&path)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "promtool check rules:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => eprintln!("promtool not run ({e}): only the YAML and the names were checked"),
    }
}
