//! Every route × every role and app-key scope (docs/design.md §19), read
//! from the OpenAPI document (each operation's `x-permission`) and the one
//! permission table (`Role::may`, `KeyScope::grants`): an allowed caller is
//! never answered 401 or 403; a refused one is 403 `forbidden` naming the
//! permission. A route without a rule stops the server from being built
//! (`api::routes`), so it fails every test before this one.

use ledger::domain::key_scope::KeyScope;
use ledger::domain::permission::Permission;
use ledger::domain::role::Role;
use reqwest::Method;
use serde_json::{Value, json};
use strum::VariantArray;
use tests::access::{assert_forbidden, call, make_key};
use tests::{Env, Server};

/// One static operator per role (the merchant's shop: `shop-a`).
const OPERATORS: &str = "o-ops:t-ops:ops, o-fin:t-fin:finance, o-sup:t-sup:support, \
    o-mer:t-mer:merchant:shop-a, o-adm:t-adm";

struct Caller {
    name: String,
    token: String,
    may: Box<dyn Fn(Permission) -> bool>,
}

async fn callers(server: &Server) -> Vec<Caller> {
    let mut all = Vec::new();
    for (name, token, role) in [
        ("o-adm", "t-adm", Role::Admin),
        ("o-ops", "t-ops", Role::Ops),
        ("o-fin", "t-fin", Role::Finance),
        ("o-sup", "t-sup", Role::Support),
        ("o-mer", "t-mer", Role::Merchant),
    ] {
        let may = Box::new(move |p| role.may(p));
        all.push(Caller {
            name: name.into(),
            token: token.into(),
            may,
        });
    }
    for &scope in KeyScope::VARIANTS {
        let name = format!("key-{}", scope.to_string().replace(':', "-"));
        let (_, token) = make_key(server, &name, &[&scope.to_string()]).await;
        let may = Box::new(move |p| scope.grants().contains(&p));
        all.push(Caller { name, token, may });
    }
    all
}

/// Each operation of the document: (method, path, its `x-permission`).
fn operations(doc: &Value) -> Vec<(Method, String, String)> {
    let mut ops = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Ok(method) = method.to_uppercase().parse::<Method>() else {
                continue;
            };
            let access = op["x-permission"].as_str();
            let access = access.unwrap_or_else(|| panic!("{method} {path} names no permission"));
            ops.push((method, path.clone(), access.to_owned()));
        }
    }
    ops
}

/// The path with each parameter filled: the shop-a template and package
/// (so that the merchant's shop holds), or an id nothing has.
fn filled(path: &str, sn: &str, package: &str) -> String {
    let mut out = Vec::new();
    for segment in path.split('/') {
        out.push(match segment {
            "{sn}" if path.starts_with("/v1/packages") => package.to_owned(),
            "{sn}" => sn.to_owned(),
            "{uid}" => "u-1".to_owned(),
            "{order_id}" => "o-none".to_owned(),
            s if s.starts_with('{') => uuid::Uuid::now_v7().to_string(),
            s => s.to_owned(),
        });
    }
    out.join("/")
}

#[tokio::test(flavor = "multi_thread")]
async fn every_route_answers_every_role_and_scope_as_the_table_says() {
    let env = Env::new().await.unwrap();
    let server = Server::start_with(&env, &[("LEDGER_ADMIN_TOKENS", OPERATORS)])
        .await
        .unwrap();
    let mut body = tests::template_body(10, 1);
    body["shop_id"] = json!("shop-a");
    let sn = server.activate_template(&body).await.unwrap();
    let items = json!([{"template_sn": sn, "count": 1}]);
    let now = chrono::Utc::now();
    let package = json!({"name": "p", "total": 5, "per_user_limit": 1, "items": items,
        "issue_window": {"begin": now, "end": now + chrono::Duration::days(1)}});
    let (status, package) = server.admin_post("/v1/packages", &package).await.unwrap();
    assert_eq!(status, 201, "{package}");
    let package = package["sn"].as_str().unwrap().to_owned();
    let doc = server.openapi().await.unwrap();
    let callers = callers(&server).await;
    let mut checked = 0;
    for (method, path, access) in operations(&doc) {
        let url = filled(&path, &sn, &package);
        let permission = match access.as_str() {
            "open" | "metrics" => continue,
            "channel" => {
                // A bearer token is no channel signature.
                let answer = call(&server, "t-adm", method.clone(), &url, Some(&json!({}))).await;
                assert_eq!(answer.0, 401, "{method} {path}: {}", answer.1);
                continue;
            }
            "signed in" => None,
            p => Some(
                p.trim_start_matches("channel or ")
                    .parse::<Permission>()
                    .unwrap(),
            ),
        };
        for caller in &callers {
            let what = format!("{} {method} {path}", caller.name);
            let answer = call(
                &server,
                &caller.token,
                method.clone(),
                &url,
                Some(&json!({})),
            )
            .await;
            match permission {
                Some(p) if !(caller.may)(p) => assert_forbidden(&what, &answer, &p.to_string()),
                _ => assert!(![401, 403].contains(&answer.0), "{what}: {answer:?}"),
            }
            checked += 1;
        }
    }
    assert!(checked > 60 * 9, "{checked} calls checked");
    // Every event a caller's request wrote names the caller.
    let client = env.db.client().await.unwrap();
    let unnamed = "SELECT count(*) FROM events WHERE metadata->>'actor' IN ('admin', 'service')
        AND NOT ((metadata ? 'operator' AND metadata ? 'role') OR metadata ? 'api_key')";
    let unnamed: i64 = client.query_one(unnamed, &[]).await.unwrap().get(0);
    assert_eq!(unnamed, 0, "events of a request that name no principal");
}
