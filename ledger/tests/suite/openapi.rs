//! The OpenAPI document, generated in-process from the router, is complete:
//! every success answer has a named schema, every path parameter is declared
//! `in: path` (and every declared one is in the path), and every route
//! documents the errors it can give in the error shape. Operation ids and
//! links: `openapi_links.rs`.

use ledger::api::http::openapi::READS_BY_POST;
use serde_json::Value;

pub fn document() -> Value {
    let (_, openapi) = ledger::api::routes();
    serde_json::to_value(&openapi).expect("the document serialises")
}

const METHODS: &[&str] = &["get", "put", "post", "delete", "patch", "head", "options"];

/// Every (path, method, operation) of the document.
pub(crate) fn operations(doc: &Value) -> Vec<(String, String, Value)> {
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
pub(crate) fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
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
        let writes = ["post", "patch"].contains(&method.as_str());
        if writes && !READS_BY_POST.contains(&path.as_str()) {
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
        let writes = ["post", "patch"].contains(&method.as_str());
        if !writes || READS_BY_POST.contains(&path.as_str()) {
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

#[test]
fn shops_are_documented_on_lines_templates_scopes_and_the_report() {
    let doc = document();
    let schemas = &doc["components"]["schemas"];
    for (schema, field, says) in [
        ("RawLine", "shop_id", "shop"),
        ("CreateTemplate", "shop_id", "use_scope"),
        ("RawScopeEntry", "kind", "`shop`"),
    ] {
        // A nullable reference carries its description in its `oneOf`.
        let property = &schemas[schema]["properties"][field];
        let referenced = property["oneOf"].as_array().into_iter().flatten();
        let description = std::iter::once(property)
            .chain(referenced)
            .find_map(|p| p["description"].as_str())
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

/// Every query parameter says what it is, and `as_of` is required: a
/// parameter's schema built by a function (`schema_with`) loses both in
/// utoipa 5, which is why they are `value_type`s (`schemas::Offset`…).
#[test]
fn every_query_parameter_is_described() {
    let doc = document();
    let mut undescribed = Vec::new();
    for (path, method, op) in operations(&doc) {
        for p in op["parameters"].as_array().into_iter().flatten() {
            let described = p["description"].as_str().is_some_and(|d| !d.is_empty());
            if p["in"] == "query" && !described {
                undescribed.push(format!("{method} {path} {}", p["name"]));
            }
        }
    }
    assert!(undescribed.is_empty(), "{undescribed:#?}");
    let liability = &doc["paths"]["/v1/reports/liability"]["get"]["parameters"];
    let as_of = liability
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "as_of");
    assert_eq!(as_of.unwrap()["required"], true);
}

/// Every variant of a tagged body enum is closed, as serde's
/// `deny_unknown_fields` reads it: a field beside a variant's own is
/// refused, so the document must not call it valid (`ClosedVariants`).
#[test]
fn every_object_variant_takes_no_other_field() {
    let doc = document();
    let mut open = Vec::new();
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        for variant in schema["oneOf"].as_array().into_iter().flatten() {
            if variant["type"] == "object" && variant["additionalProperties"] != false {
                open.push(name.clone());
            }
        }
    }
    assert!(open.is_empty(), "open variants: {open:?}");
}
