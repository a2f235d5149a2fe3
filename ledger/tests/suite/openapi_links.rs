//! The OpenAPI document's operation ids and links: every operation has a
//! unique, named id; every link names an operation and fields that exist;
//! every operation on a created thing is a link's target.

use serde_json::Value;

use super::openapi::{document, operations, resolve};

/// `operationId` → (path, method, operation).
fn by_operation_id(doc: &Value) -> std::collections::BTreeMap<String, (String, String, Value)> {
    operations(doc)
        .into_iter()
        .map(|(path, method, op)| {
            let id = op["operationId"]
                .as_str()
                .expect("an operationId")
                .to_owned();
            (id, (path, method, op))
        })
        .collect()
}

#[test]
fn every_operation_has_a_unique_named_operation_id() {
    let doc = document();
    let all = operations(&doc);
    let ids = by_operation_id(&doc);
    assert_eq!(
        ids.len(),
        all.len(),
        "operationIds repeat: {:?}",
        ids.keys()
    );
    let named: Vec<&str> = ids.keys().map(String::as_str).collect();
    assert_eq!(
        named, PUBLIC_OPERATION_IDS,
        "an operationId was added, renamed or lost"
    );
}

/// Every operationId, sorted. Clients and the links call operations by
/// them, so one changes only on purpose, here and in its `#[utoipa::path]`.
const PUBLIC_OPERATION_IDS: &[&str] = &[
    "activate_package",
    "activate_template",
    "allow_channel",
    "allow_package_channel",
    "audit_actions",
    "audit_status",
    "cancel_issuance_job",
    "cancel_order",
    "change_webhook",
    "claim",
    "claim_package",
    "code_batch_codes",
    "confirm_order",
    "coupon_events",
    "create_api_key",
    "create_channel",
    "create_code_batch",
    "create_package",
    "create_template",
    "create_webhook",
    "disable_channel",
    "disable_webhook",
    "enable_channel",
    "enable_webhook",
    "healthz",
    "issuance_job_report",
    "liability_report",
    "list_api_keys",
    "list_channels",
    "list_code_batches",
    "list_issuance_jobs",
    "list_packages",
    "list_templates",
    "list_webhook_deliveries",
    "list_webhooks",
    "lock_order",
    "me",
    "metrics",
    "quote_order",
    "raise_quota",
    "read_allow_list",
    "read_allow_list_file",
    "read_api_key",
    "read_channel",
    "read_code_batch",
    "read_coupon",
    "read_issuance_job",
    "read_order",
    "read_package",
    "read_package_job",
    "read_template",
    "read_webhook",
    "readyz",
    "redeem",
    "refund_order",
    "remove_template_channel",
    "replay_webhook",
    "revoke_api_key",
    "rotate_api_key",
    "rotate_channel_secret",
    "rotate_webhook_secret",
    "stop_code_batch",
    "stop_package",
    "stop_template",
    "template_events",
    "template_history",
    "template_stats",
    "template_terms",
    "update_template",
    "upload_allow_list",
    "upload_issuance_job",
    "user_balance",
    "user_claimable",
    "user_coupons",
    "void_coupon",
    "void_template",
    "workers_status",
];

/// The schema one step down a JSON pointer: a property (through `allOf`,
/// `oneOf`, `anyOf`) or, for an index, an array's items.
fn child<'a>(doc: &'a Value, schema: &'a Value, segment: &str) -> Option<&'a Value> {
    let schema = resolve(doc, schema);
    if let Some(found) = schema["properties"].get(segment) {
        return Some(found);
    }
    if segment.parse::<usize>().is_ok() && schema.get("items").is_some() {
        return Some(&schema["items"]);
    }
    ["allOf", "oneOf", "anyOf"]
        .iter()
        .filter_map(|k| schema[*k].as_array())
        .flatten()
        .find_map(|branch| child(doc, branch, segment))
}

/// The runtime expressions in a link's value: the whole string, or each
/// `{$…}` embedded in it.
fn expressions(text: &str) -> Vec<&str> {
    if text.starts_with('$') {
        return vec![text];
    }
    text.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(e, _)| e))
        .filter(|e| e.starts_with('$'))
        .collect()
}

/// Why `expression`, evaluated after `source` answered `status`, names
/// nothing, if it does not.
fn unresolved(doc: &Value, source: &Value, status: &str, expression: &str) -> Option<String> {
    if let Some(pointer) = expression.strip_prefix("$response.body#") {
        let content = &source["responses"][status]["content"]["application/json"]["schema"];
        let mut schema = content;
        for segment in pointer.split('/').skip(1) {
            match child(doc, schema, segment) {
                Some(next) => schema = next,
                None => {
                    return Some(format!(
                        "{expression}: no `{segment}` in the answer's schema"
                    ));
                }
            }
        }
        return None;
    }
    if let Some(name) = expression.strip_prefix("$request.path.") {
        let declared = source["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["in"] == "path" && p["name"] == name);
        return (!declared).then(|| format!("{expression}: the source has no such path parameter"));
    }
    Some(format!("{expression}: not an expression this test knows"))
}

/// Why a link's request body does not fit the target's, if it does not:
/// every key is a property of the target's request schema, at every depth,
/// and every expression in it resolves.
fn body_faults(doc: &Value, value: &Value, schema: &Value, at: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            for (key, inner) in fields {
                match child(doc, schema, key) {
                    Some(field) => body_faults(doc, inner, field, &format!("{at}/{key}"), out),
                    None => out.push(format!("{at}/{key}: not in the target's request body")),
                }
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                match child(doc, schema, &i.to_string()) {
                    Some(item) => body_faults(doc, inner, item, &format!("{at}/{i}"), out),
                    None => out.push(format!("{at}: not an array in the target's request body")),
                }
            }
        }
        _ => {}
    }
}

fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(fields) => fields.values().flat_map(strings).collect(),
        _ => vec![],
    }
}

#[test]
fn every_link_names_an_operation_and_fields_that_exist() {
    let doc = document();
    let ids = by_operation_id(&doc);
    let mut faults = Vec::new();
    let mut count = 0;
    for (path, method, op) in operations(&doc) {
        for (status, answer) in op["responses"].as_object().unwrap() {
            let Some(links) = answer["links"].as_object() else {
                continue;
            };
            for (name, link) in links {
                count += 1;
                let at = format!("{method} {path} {status} → {name}");
                assert!(
                    link.get("operation_id").is_none() && link.get("request_body").is_none(),
                    "{at}: OpenAPI's names are operationId and requestBody: {link}"
                );
                let Some((_, _, target)) = link["operationId"].as_str().and_then(|t| ids.get(t))
                else {
                    faults.push(format!("{at}: no operation {}", link["operationId"]));
                    continue;
                };
                let params = target["parameters"].as_array().cloned().unwrap_or_default();
                for (param, expression) in link["parameters"].as_object().into_iter().flatten() {
                    let (place, bare) = param.split_once('.').unwrap_or(("", param));
                    let known = params
                        .iter()
                        .any(|p| p["name"] == bare && (place.is_empty() || p["in"] == place));
                    if !known {
                        faults.push(format!("{at}: the target has no parameter {param}"));
                    }
                    for e in expressions(expression.as_str().unwrap_or_default()) {
                        faults
                            .extend(unresolved(&doc, &op, status, e).map(|f| format!("{at}: {f}")));
                    }
                }
                if let Some(body) = link.get("requestBody") {
                    let schema = &target["requestBody"]["content"]["application/json"]["schema"];
                    if schema.is_null() {
                        faults.push(format!("{at}: the target takes no JSON body"));
                    }
                    body_faults(&doc, body, schema, "requestBody", &mut faults);
                    for e in strings(body).into_iter().flat_map(expressions) {
                        faults
                            .extend(unresolved(&doc, &op, status, e).map(|f| format!("{at}: {f}")));
                    }
                }
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
    assert_eq!(
        count,
        ledger::api::http::openapi_links::LINKS.len(),
        "every entry of the table is a link in the document (its source answers that status)"
    );
}

#[test]
fn every_operation_on_a_created_thing_is_the_target_of_a_link() {
    let doc = document();
    let mut targets = std::collections::BTreeSet::new();
    for (_, _, op) in operations(&doc) {
        for answer in op["responses"].as_object().unwrap().values() {
            for link in answer["links"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(_, l)| l)
            {
                targets.insert(link["operationId"].as_str().unwrap().to_owned());
            }
        }
    }
    let unlinked: Vec<String> = operations(&doc)
        .into_iter()
        .filter(|(path, _, op)| {
            path.contains('{') && !targets.contains(op["operationId"].as_str().unwrap())
        })
        .map(|(path, method, _)| format!("{method} {path}"))
        .collect();
    assert!(unlinked.is_empty(), "no link leads to {unlinked:#?}");
}
