//! The OpenAPI document, generated in-process from the router, is complete:
//! every success answer has a named schema, every path parameter is declared
//! `in: path` (and every declared one is in the path), and every route
//! documents the errors it can give in the error shape.

use serde_json::Value;

pub fn document() -> Value {
    let (_, openapi) = ledger::api::routes();
    serde_json::to_value(&openapi).expect("the document serialises")
}

const METHODS: &[&str] = &["get", "put", "post", "delete", "patch", "head", "options"];

/// Every (path, method, operation) of the document.
fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in METHODS {
            if let Some(op) = item.get(*method) {
                out.push((path.clone(), (*method).to_owned(), op.clone()));
            }
        }
    }
    out
}

/// Follows a `$ref` to its component schema.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r.rsplit('/').next().unwrap();
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

/// Why a schema says nothing of its shape, if it does not.
fn untyped(doc: &Value, schema: &Value) -> Option<String> {
    if schema.is_null() {
        return Some("no schema".into());
    }
    let named = schema.get("$ref").is_some();
    let target = resolve(doc, schema);
    if target.is_null() {
        return Some(format!("dangling {schema}"));
    }
    let is_object = target["type"] == "object";
    let bare = is_object
        && target.get("properties").is_none()
        && target.get("additionalProperties").is_none()
        && target.get("allOf").is_none();
    if bare {
        return Some(format!("a bare object: {target}"));
    }
    if is_object && !named {
        return Some(format!("an inline object, not a named schema: {target}"));
    }
    if target["type"] == "array" {
        return untyped(doc, &target["items"]).map(|why| format!("items: {why}"));
    }
    if target.get("type").is_none()
        && !["oneOf", "allOf", "anyOf", "enum"]
            .iter()
            .any(|k| target.get(*k).is_some())
    {
        return Some(format!("no type: {target}"));
    }
    None
}

#[test]
fn every_success_answer_has_a_named_schema() {
    let doc = document();
    let mut faults = Vec::new();
    for (path, method, op) in operations(&doc) {
        for (status, answer) in op["responses"].as_object().unwrap() {
            if !status.starts_with('2') {
                continue;
            }
            let Some(content) = answer["content"].as_object() else {
                faults.push(format!("{method} {path} {status}: no content"));
                continue;
            };
            for (media, body) in content {
                if let Some(why) = untyped(&doc, &body["schema"]) {
                    faults.push(format!("{method} {path} {status} {media}: {why}"));
                }
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
}

/// `{name}`s of a path template.
fn template_params(path: &str) -> Vec<String> {
    path.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name.to_owned()))
        .collect()
}

#[test]
fn path_parameters_are_declared_in_the_path_and_only_there() {
    let doc = document();
    let mut faults = Vec::new();
    for (path, method, op) in operations(&doc) {
        let in_template = template_params(&path);
        let params = op["parameters"].as_array().cloned().unwrap_or_default();
        let declared: Vec<&str> = params
            .iter()
            .filter(|p| p["in"] == "path")
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        for name in &in_template {
            if !declared.contains(&name.as_str()) {
                faults.push(format!(
                    "{method} {path}: {{{name}}} is not declared in: path"
                ));
            }
        }
        for name in &declared {
            if !in_template.iter().any(|t| t == name) {
                faults.push(format!(
                    "{method} {path}: {name} is declared in: path but not in the path"
                ));
            }
        }
        for p in params.iter().filter(|p| p["in"] == "path") {
            if p["required"] != true {
                faults.push(format!(
                    "{method} {path}: path parameter {} is not required",
                    p["name"]
                ));
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
}

#[test]
fn query_parameters_are_declared_in_the_query() {
    let doc = document();
    let op = &doc["paths"]["/v1/users/{uid}/coupons"]["get"];
    let by_name = |name: &str| {
        op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} is declared"))
    };
    for name in ["status", "offset", "limit"] {
        assert_eq!(by_name(name)["in"], "query", "{name}");
    }
    assert_eq!(by_name("uid")["in"], "path");
    let list = &doc["paths"]["/v1/templates"]["get"]["parameters"];
    let names: Vec<(&str, &str)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["in"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [("status", "query"), ("offset", "query"), ("limit", "query")]
    );
}

fn has_error(doc: &Value, op: &Value, status: &str) -> bool {
    let schema = &op["responses"][status]["content"]["application/json"]["schema"];
    schema["$ref"]
        .as_str()
        .is_some_and(|r| r.ends_with("/ErrorBody"))
        && doc["components"]["schemas"]["ErrorBody"].is_object()
}

#[test]
fn every_route_documents_its_errors_with_the_error_body() {
    let doc = document();
    let mut faults = Vec::new();
    for (path, method, op) in operations(&doc) {
        let mut expected: Vec<&str> = Vec::new();
        let authed = op["security"].as_array().is_some_and(|s| !s.is_empty());
        let takes_input = op.get("requestBody").is_some()
            || op["parameters"].as_array().is_some_and(|p| !p.is_empty());
        if authed {
            expected.extend(["401", "403"]);
        }
        if takes_input {
            expected.push("400");
        }
        if op.get("requestBody").is_some() {
            expected.push("413");
        }
        if ["post", "patch"].contains(&method.as_str()) {
            expected.push("422"); // an Idempotency-Key reused with another request
        }
        if path.starts_with("/v1/") {
            expected.push("503");
        }
        // A named thing in the path may be missing; a user has no row (an
        // unknown user has no coupons), so `{uid}` cannot be.
        if path.contains('{') && !path.contains("{uid}") {
            expected.push("404");
        }
        if path == "/v1/claims" {
            expected.extend(["401", "404", "409", "410", "422", "429"]);
        }
        for status in expected {
            if !has_error(&doc, &op, status) {
                faults.push(format!(
                    "{method} {path}: {status} not documented with ErrorBody"
                ));
            }
        }
        for (status, answer) in op["responses"].as_object().unwrap() {
            if status.starts_with('4') && !has_error(&doc, &op, status) {
                faults.push(format!(
                    "{method} {path}: {status} is not an ErrorBody: {answer}"
                ));
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
}

#[test]
fn writes_document_the_idempotency_key_header() {
    let doc = document();
    for (path, method, op) in operations(&doc) {
        if !["post", "patch"].contains(&method.as_str()) {
            continue;
        }
        let params = op["parameters"].as_array().unwrap();
        assert!(
            params
                .iter()
                .any(|p| p["name"] == "Idempotency-Key" && p["in"] == "header"),
            "{method} {path}"
        );
    }
}

#[test]
fn metrics_are_documented_as_openmetrics_text() {
    let doc = document();
    let content = doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
        .as_object()
        .unwrap();
    assert_eq!(content.len(), 1);
    let media = content.keys().next().unwrap();
    assert!(media.starts_with("application/openmetrics-text"), "{media}");
}

#[test]
fn the_order_shapes_are_documented() {
    let doc = document();
    let schemas = &doc["components"]["schemas"];
    for (schema, fields) in [
        (
            "RawOrder",
            &["order_id", "user_id", "currency", "lines"][..],
        ),
        (
            "RawLine",
            &["line_id", "sku", "category", "quantity", "unit_price"],
        ),
        (
            "LockAnswer",
            &["order_id", "discount", "payable", "allocations"],
        ),
        ("OrderAnswer", &["order_id", "status", "coupon_ids"]),
        (
            "RefundAnswer",
            &["refund_id", "amount", "lines", "coupons_reissued"],
        ),
        ("QuoteAnswer", &["coupons", "best"]),
        ("TemplatePage", &["templates", "total", "offset", "limit"]),
    ] {
        for field in fields {
            assert!(
                schemas[schema]["properties"].get(*field).is_some(),
                "{schema}.{field}: {}",
                schemas[schema]
            );
        }
    }
    let status = resolve(&doc, &schemas["OrderAnswer"]["properties"]["status"]);
    let values: Vec<&str> = status["enum"]
        .as_array()
        .expect("the order status is an enum")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(values.contains(&"cancelled_before_lock"), "{values:?}");
    let lock = &doc["paths"]["/v1/orders/lock"]["post"]["requestBody"]["content"]["application/json"]
        ["schema"];
    let lock = resolve(&doc, lock);
    assert_eq!(
        lock["properties"]["order"]["$ref"], "#/components/schemas/RawOrder",
        "{lock}"
    );
}

/// `OPENAPI_DUMP=1 cargo nextest run -p ledger --test suite openapi::dump` prints it.
#[test]
fn dump() {
    if std::env::var_os("OPENAPI_DUMP").is_some() {
        println!("{}", serde_json::to_string_pretty(&document()).unwrap());
    }
}

#[test]
fn reminder_offsets_are_documented_as_a_number_or_a_list() {
    let doc = document();
    let raw = &doc["components"]["schemas"]["RawRemindDays"];
    let variants = raw["oneOf"].as_array().unwrap_or_else(|| panic!("{raw}"));
    let types: Vec<&str> = variants.iter().filter_map(|v| v["type"].as_str()).collect();
    assert_eq!(types, ["integer", "array"], "{raw}");
    let create =
        &doc["components"]["schemas"]["CreateTemplate"]["properties"]["remind_days_before"];
    assert!(create.to_string().contains("RawRemindDays"), "{create}");
}

#[test]
fn a_rate_limit_is_documented_with_its_buckets() {
    let doc = document();
    for shape in ["CreateTemplate", "UpdateTemplate"] {
        let field = &doc["components"]["schemas"][shape]["properties"]["rate_limit"];
        assert!(field.to_string().contains("RateLimit"), "{shape}: {field}");
    }
    let view = doc["components"]["schemas"]["TemplateView"].to_string();
    assert!(view.contains("\"rate_limit\""), "{view}");
    let limit = &doc["components"]["schemas"]["RateLimit"];
    let per_user = &limit["properties"]["per_user"]["oneOf"];
    let bucket = per_user
        .as_array()
        .and_then(|v| v.iter().find(|s| s.get("$ref").is_some()))
        .unwrap_or_else(|| panic!("{limit}"));
    let bucket = resolve(&doc, bucket);
    assert_eq!(bucket["properties"]["per_second"]["minimum"], 1, "{bucket}");
    assert_eq!(
        bucket["properties"]["burst"]["maximum"], 1_000_000,
        "{bucket}"
    );
}

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
    "audit_status",
    "cancel_issuance_job",
    "cancel_order",
    "claim",
    "claim_package",
    "code_batch_codes",
    "confirm_order",
    "coupon_events",
    "create_channel",
    "create_code_batch",
    "create_package",
    "create_template",
    "disable_channel",
    "enable_channel",
    "healthz",
    "issuance_job_report",
    "liability_report",
    "list_channels",
    "list_code_batches",
    "list_issuance_jobs",
    "list_packages",
    "list_templates",
    "lock_order",
    "metrics",
    "quote_order",
    "raise_quota",
    "read_allow_list",
    "read_allow_list_file",
    "read_channel",
    "read_code_batch",
    "read_coupon",
    "read_issuance_job",
    "read_package",
    "read_package_job",
    "read_template",
    "readyz",
    "redeem",
    "refund_order",
    "remove_template_channel",
    "rotate_channel_secret",
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
        ledger::api::http::openapi::LINKS.len(),
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

#[test]
fn shops_are_documented_on_lines_templates_scopes_and_the_report() {
    let doc = document();
    let schemas = &doc["components"]["schemas"];
    for (schema, field, says) in [
        ("RawLine", "shop_id", "shop"),
        ("CreateTemplate", "shop_id", "use_scope"),
        ("RawScopeEntry", "kind", "`shop`"),
    ] {
        let description = schemas[schema]["properties"][field]["description"]
            .as_str()
            .unwrap_or_else(|| panic!("{schema}.{field}: {}", schemas[schema]));
        assert!(
            description.contains(says),
            "{schema}.{field}: {description}"
        );
    }
    let params = doc["paths"]["/v1/reports/liability"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let by = params.iter().find(|p| p["name"] == "by").unwrap();
    let description = by["description"].as_str().unwrap();
    assert!(description.contains("`shop`"), "{description}");
}
