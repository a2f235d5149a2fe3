//! compose.yaml (issue 18), checked without a Docker engine: the stack's
//! services are there, each has a health check (but the one-shot
//! `migrate`), every `depends_on` names a service and a condition it can
//! meet, and the binaries get only the variables `ledger/src/config/variables.rs`
//! lists.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ledger::config::LogFormat;
use serde_norway::Value;

const CONDITIONS: [&str; 3] = [
    "service_started",
    "service_healthy",
    "service_completed_successfully",
];

fn repo_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
}

fn compose() -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(repo_file("compose.yaml")).unwrap();
    let mut doc: Value = serde_norway::from_str(&text).expect("compose.yaml is YAML");
    doc.apply_merge().expect("merge keys resolve");
    let services = doc.get("services").expect("services").clone();
    serde_norway::from_value(services).expect("services is a map of names")
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        None => vec![],
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|i| i.as_str().expect("a string").to_owned())
            .collect(),
        Some(other) => panic!("not a string or list: {other:?}"),
    }
}

/// A service's environment as name → value, from a map or a `NAME=value` list.
fn environment(service: &Value) -> BTreeMap<String, String> {
    match service.get("environment") {
        None => BTreeMap::new(),
        Some(Value::Mapping(m)) => m
            .iter()
            .map(|(k, v)| {
                let value = match v {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => serde_norway::to_string(other).unwrap().trim().to_owned(),
                };
                (k.as_str().unwrap().to_owned(), value)
            })
            .collect(),
        Some(list) => strings(Some(list))
            .into_iter()
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((&kv, ""));
                (k.to_owned(), v.to_owned())
            })
            .collect(),
    }
}

fn depends_on(service: &Value) -> Vec<(String, String)> {
    match service.get("depends_on") {
        None => vec![],
        Some(Value::Mapping(m)) => m
            .iter()
            .map(|(name, spec)| {
                let condition = spec
                    .get("condition")
                    .and_then(Value::as_str)
                    .unwrap_or("service_started");
                (name.as_str().unwrap().to_owned(), condition.to_owned())
            })
            .collect(),
        Some(list) => strings(Some(list))
            .into_iter()
            .map(|n| (n, "service_started".to_owned()))
            .collect(),
    }
}

#[test]
fn compose_runs_the_whole_stack_with_health_checks() {
    let services = compose();
    for name in [
        "postgres", "rabbitmq", "redis", "migrate", "ledger", "workers",
    ] {
        assert!(services.contains_key(name), "no service {name}");
    }
    let rabbit_image = services["rabbitmq"]["image"].as_str().unwrap();
    assert!(rabbit_image.contains("management"), "{rabbit_image}");

    for (name, service) in &services {
        let health = service.get("healthcheck");
        if name == "migrate" {
            assert!(health.is_none(), "migrate is a one-shot, not a service");
            assert_eq!(strings(service.get("command")), ["ledger", "migrate"]);
            assert_eq!(service["restart"].as_str(), Some("no"));
            continue;
        }
        let test = strings(health.and_then(|h| h.get("test")));
        assert!(
            test.len() >= 2 && ["CMD", "CMD-SHELL"].contains(&test[0].as_str()),
            "{name}: a health check with a command, got {test:?}"
        );
    }

    for (name, service) in &services {
        for (on, condition) in depends_on(service) {
            assert_ne!(&on, name);
            let Some(other) = services.get(&on) else {
                panic!("{name} depends on {on}, which is no service");
            };
            assert!(
                CONDITIONS.contains(&condition.as_str()),
                "{name}: {condition}"
            );
            match condition.as_str() {
                "service_healthy" => assert!(
                    other.get("healthcheck").is_some(),
                    "{name} waits for {on} to be healthy, which has no health check"
                ),
                "service_completed_successfully" => assert!(
                    other.get("healthcheck").is_none() && on == "migrate",
                    "{name} waits for {on} to complete: only the one-shot migrate does"
                ),
                _ => {}
            }
        }
    }
    let needs = |name: &str, on: &str, condition: &str| {
        assert!(
            depends_on(&services[name]).contains(&(on.to_owned(), condition.to_owned())),
            "{name} should wait for {on}: {condition}"
        );
    };
    needs("migrate", "postgres", "service_healthy");
    for app in ["ledger", "workers"] {
        needs(app, "migrate", "service_completed_successfully");
        needs(app, "rabbitmq", "service_healthy");
    }
    needs("ledger", "redis", "service_healthy");

    assert_eq!(
        strings(services["ledger"].get("command")),
        ["ledger", "serve"]
    );
    assert_eq!(
        strings(services["workers"].get("command")),
        ["workers", "run"]
    );
    let ports = strings(services["ledger"].get("ports"));
    assert!(
        ports
            .iter()
            .any(|p| p.ends_with(":8080") && p.starts_with("127.0.0.1:8080")),
        "the console at http://127.0.0.1:8080/admin: {ports:?}"
    );
    assert!(
        services["workers"].get("ports").is_none(),
        "replicas of workers cannot share a host port"
    );
}

#[test]
fn compose_gives_the_binaries_only_the_variables_they_read() {
    let services = compose();
    let known = ledger::config::variables::names();
    for name in ["migrate", "ledger", "workers"] {
        let env = environment(&services[name]);
        for var in env.keys() {
            assert!(
                known.contains(var),
                "{name} sets {var}, which ledger/src/config/variables.rs does not list"
            );
        }
        for var in ["DATABASE_URL", "AMQP_URL", "REDIS_URL"] {
            assert!(env.contains_key(var), "{name} lacks {var}");
        }
        assert_eq!(env["LEDGER_LOG_FORMAT"], "json", "{name}");
        let lookup = |v: &str| env.get(v).cloned();
        assert_eq!(LogFormat::from_lookup(lookup).unwrap(), LogFormat::Json);
    }
    let ledger = environment(&services["ledger"]);
    assert_eq!(ledger["LEDGER_LISTEN"], "0.0.0.0:8080");
    for secret in [
        "LEDGER_ADMIN_TOKEN",
        "LEDGER_SERVICE_TOKEN",
        "LEDGER_SECRET_KEY",
    ] {
        // Required from the operator's environment, never a value in the file.
        let value = &ledger[secret];
        assert!(
            value.starts_with(&format!("${{{secret}:?")),
            "{secret}: {value}"
        );
    }
}

#[test]
fn one_dockerfile_builds_both_binaries() {
    let text = std::fs::read_to_string(repo_file("Dockerfile")).unwrap();
    assert!(text.matches("FROM ").count() >= 2, "multi-stage");
    assert!(
        text.contains("cargo build --release -p ledger -p workers"),
        "{text}"
    );
    for bin in ["release/ledger", "release/workers"] {
        assert!(text.contains(bin), "the image has {bin}");
    }
    let ignore = std::fs::read_to_string(repo_file(".dockerignore")).unwrap();
    assert!(
        ignore.lines().any(|l| l.trim() == "target"),
        "target/ stays out"
    );
}
