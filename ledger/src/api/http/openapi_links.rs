//! The links of the OpenAPI document (OAS 3.1 §4.8.20): from the
//! operations that create things to those that read and change them, one
//! table naming operations by their `operationId`, so fuzzers and clients
//! follow ids the API itself made.

use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::link::{Link, LinkBuilder};
use utoipa::openapi::{OpenApi, RefOr};

use super::openapi::operations_mut;

/// One OpenAPI link (OAS 3.1 §4.8.20): after `from` answers `status`, `to`
/// can be called with `parameters` (name → runtime expression) and, for a
/// body, `body` (JSON whose string values may be expressions, the
/// extension schemathesis and others read). Fuzzers follow links to call
/// an operation with the ids the API itself created, instead of ids that
/// do not exist.
pub struct LinkSpec {
    pub from: &'static str,
    pub status: &'static str,
    pub to: &'static str,
    pub parameters: &'static [(&'static str, &'static str)],
    pub body: Option<&'static str>,
}

const SN: &[(&str, &str)] = &[("sn", "$response.body#/sn")];
const ID: &[(&str, &str)] = &[("id", "$response.body#/id")];
/// A template and the first channel on its list.
const TEMPLATE_CHANNEL: &[(&str, &str)] = &[
    ("sn", "$response.body#/sn"),
    ("id", "$response.body#/channels/0"),
];
const JOB: &[(&str, &str)] = &[("id", "$response.body#/job_id")];
/// An allow-list file of a template.
const ALLOW_LIST_FILE: &[(&str, &str)] = &[
    ("sn", "$response.body#/template_sn"),
    ("id", "$response.body#/file_id"),
];
const ORDER: &[(&str, &str)] = &[("order_id", "$response.body#/order_id")];
const USER: &[(&str, &str)] = &[("uid", "$response.body#/user_id")];
const FIRST_COUPON: &[(&str, &str)] = &[("id", "$response.body#/coupons/0/id")];
const FIRST_USER: &[(&str, &str)] = &[("uid", "$response.body#/coupons/0/user_id")];

const fn to(from: &'static str, status: &'static str, to: &'static str) -> LinkSpec {
    LinkSpec {
        from,
        status,
        to,
        parameters: &[],
        body: None,
    }
}

const fn with(
    from: &'static str,
    status: &'static str,
    to: &'static str,
    parameters: &'static [(&'static str, &'static str)],
) -> LinkSpec {
    LinkSpec {
        from,
        status,
        to,
        parameters,
        body: None,
    }
}

const fn body(
    from: &'static str,
    status: &'static str,
    to: &'static str,
    parameters: &'static [(&'static str, &'static str)],
    body: &'static str,
) -> LinkSpec {
    LinkSpec {
        from,
        status,
        to,
        parameters,
        body: Some(body),
    }
}

/// A lock of the claimed coupon on a one-line order of 300.00, priced for
/// the documented example template (20 off 100: 280.00 to pay); another
/// template's coupon answers 409 with the payable it computed.
const LOCK_CLAIMED: &str = r#"{
    "order": {"order_id": "order-{$response.body#/id}", "user_id": "$response.body#/user_id",
              "currency": "CNY", "shipping_fee": "0.00",
              "lines": [{"line_id": "l1", "sku": "sku-1", "category": "c-1",
                         "quantity": 1, "unit_price": "300.00"}]},
    "coupon_ids": ["$response.body#/id"], "expected_payable": "280.00"}"#;
const QUOTE_CLAIMED: &str = r#"{
    "user_id": "$response.body#/user_id",
    "order": {"order_id": "quote-{$response.body#/id}", "user_id": "$response.body#/user_id",
              "currency": "CNY", "shipping_fee": "0.00",
              "lines": [{"line_id": "l1", "sku": "sku-1", "category": "c-1",
                         "quantity": 1, "unit_price": "300.00"}]}}"#;
/// A full refund of that order's one line.
const REFUND_LINE: &str = r#"{"refund_id": "refund-{$response.body#/order_id}",
    "lines": [{"line_id": "l1", "quantity": 1}]}"#;

/// The links of the document: from each operation that creates something
/// (a template, a channel, a coupon, an order's lock, a job, a batch, a
/// package) to the operations that read and change it.
pub const LINKS: &[LinkSpec] = &[
    // A template, created or answered after a change.
    with("create_template", "201", "read_template", SN),
    with("create_template", "201", "update_template", SN),
    with("create_template", "201", "activate_template", SN),
    with("create_template", "201", "stop_template", SN),
    with("create_template", "201", "void_template", SN),
    with("create_template", "201", "raise_quota", SN),
    with("create_template", "201", "allow_channel", SN),
    with("create_template", "201", "template_stats", SN),
    with("create_template", "201", "template_history", SN),
    with("create_template", "201", "template_events", SN),
    with("create_template", "201", "upload_allow_list", SN),
    with("create_template", "201", "read_allow_list", SN),
    LinkSpec {
        parameters: &[("template", "$response.body#/sn")],
        ..to("create_template", "201", "upload_issuance_job")
    },
    body(
        "create_template",
        "201",
        "create_code_batch",
        &[],
        r#"{"template_sn": "$response.body#/sn", "count": 20}"#,
    ),
    with(
        "upload_allow_list",
        "201",
        "read_allow_list_file",
        ALLOW_LIST_FILE,
    ),
    with("activate_template", "200", "read_template", SN),
    with("activate_template", "200", "stop_template", SN),
    with("activate_template", "200", "void_template", SN),
    with("activate_template", "200", "raise_quota", SN),
    with("activate_template", "200", "allow_channel", SN),
    with("activate_template", "200", "template_stats", SN),
    with("activate_template", "200", "template_terms", SN),
    body(
        "activate_template",
        "200",
        "claim",
        &[],
        r#"{"template_sn": "$response.body#/sn"}"#,
    ),
    LinkSpec {
        parameters: &[("template", "$response.body#/sn")],
        ..to("activate_template", "200", "upload_issuance_job")
    },
    with("stop_template", "200", "activate_template", SN),
    with("stop_template", "200", "void_template", SN),
    with("raise_quota", "200", "template_stats", SN),
    with("allow_channel", "200", "read_template", SN),
    with(
        "allow_channel",
        "200",
        "remove_template_channel",
        TEMPLATE_CHANNEL,
    ),
    // A channel: read, disabled, enabled, its secret rotated by its id.
    with("create_channel", "201", "read_channel", ID),
    with("create_channel", "201", "disable_channel", ID),
    with("create_channel", "201", "enable_channel", ID),
    body(
        "create_channel",
        "201",
        "rotate_channel_secret",
        ID,
        r#"{"overlap_secs": 60}"#,
    ),
    // An app key: read, rotated, revoked by its id.
    with("create_api_key", "201", "read_api_key", ID),
    with("create_api_key", "201", "revoke_api_key", ID),
    body(
        "create_api_key",
        "201",
        "rotate_api_key",
        ID,
        r#"{"overlap_secs": 60}"#,
    ),
    // A webhook: read, changed, disabled, enabled, its secret rotated, its
    // deliveries listed and replayed, by its id.
    with("create_webhook", "201", "read_webhook", ID),
    with("create_webhook", "201", "disable_webhook", ID),
    with("create_webhook", "201", "enable_webhook", ID),
    with("create_webhook", "201", "list_webhook_deliveries", ID),
    body(
        "create_webhook",
        "201",
        "change_webhook",
        ID,
        r#"{"description": "changed"}"#,
    ),
    body(
        "create_webhook",
        "201",
        "rotate_webhook_secret",
        ID,
        r#"{"overlap_secs": 60}"#,
    ),
    body(
        "create_webhook",
        "201",
        "replay_webhook",
        ID,
        r#"{"from_position": 0}"#,
    ),
    // A channel, allowed on templates by its id.
    body(
        "create_channel",
        "201",
        "allow_channel",
        &[],
        r#"{"channel_id": "$response.body#/id"}"#,
    ),
    // A coupon: claimed, redeemed with a code, or in a package's claim.
    with("claim", "201", "read_coupon", ID),
    with("claim", "201", "coupon_events", ID),
    with("claim", "201", "void_coupon", ID),
    with("claim", "201", "user_coupons", USER),
    with("claim", "201", "user_balance", USER),
    // What else the user can claim through the channel that just claimed.
    LinkSpec {
        parameters: &[
            ("uid", "$response.body#/user_id"),
            ("channel_id", "$response.body#/channel_id"),
        ],
        ..to("claim", "201", "user_claimable")
    },
    LinkSpec {
        parameters: &[("sn", "$response.body#/template_sn")],
        ..to("claim", "201", "template_stats")
    },
    body("claim", "201", "quote_order", &[], QUOTE_CLAIMED),
    body("claim", "201", "lock_order", &[], LOCK_CLAIMED),
    with("read_coupon", "200", "coupon_events", ID),
    with("void_coupon", "200", "read_coupon", ID),
    with("redeem", "201", "read_coupon", FIRST_COUPON),
    with("redeem", "201", "coupon_events", FIRST_COUPON),
    with("redeem", "201", "user_coupons", FIRST_USER),
    LinkSpec {
        parameters: &[("id", "$response.body#/batch_id")],
        ..to("redeem", "201", "read_code_batch")
    },
    with("redeem", "202", "read_package_job", JOB),
    with("claim_package", "201", "read_coupon", FIRST_COUPON),
    with("claim_package", "201", "coupon_events", FIRST_COUPON),
    with("claim_package", "201", "user_coupons", FIRST_USER),
    with("claim_package", "201", "user_balance", FIRST_USER),
    LinkSpec {
        parameters: &[("sn", "$response.body#/package_sn")],
        ..to("claim_package", "201", "read_package")
    },
    with("claim_package", "202", "read_package_job", JOB),
    // An order, locked: confirmed, cancelled, refunded.
    with("lock_order", "200", "confirm_order", ORDER),
    with("lock_order", "200", "read_order", ORDER),
    with("lock_order", "200", "cancel_order", ORDER),
    with("lock_order", "200", "refund_order", ORDER),
    body("confirm_order", "200", "refund_order", ORDER, REFUND_LINE),
    with("confirm_order", "200", "cancel_order", ORDER),
    LinkSpec {
        parameters: &[("order_id", "$request.path.order_id")],
        ..to("refund_order", "200", "refund_order")
    },
    // A bulk issuance job.
    with("upload_issuance_job", "202", "read_issuance_job", JOB),
    with("upload_issuance_job", "202", "issuance_job_report", JOB),
    with("upload_issuance_job", "202", "cancel_issuance_job", JOB),
    with("cancel_issuance_job", "200", "read_issuance_job", JOB),
    // A batch of redemption codes.
    with("create_code_batch", "201", "read_code_batch", ID),
    with("create_code_batch", "201", "code_batch_codes", ID),
    with("create_code_batch", "201", "stop_code_batch", ID),
    with("stop_code_batch", "200", "read_code_batch", ID),
    // A package.
    with("create_package", "201", "read_package", SN),
    with("create_package", "201", "activate_package", SN),
    with("create_package", "201", "stop_package", SN),
    with("create_package", "201", "claim_package", SN),
    with("create_package", "201", "allow_package_channel", SN),
    with("allow_package_channel", "200", "read_package", SN),
    with("allow_package_channel", "200", "claim_package", SN),
    body(
        "create_package",
        "201",
        "create_code_batch",
        &[],
        r#"{"package_sn": "$response.body#/sn", "count": 20}"#,
    ),
    with("activate_package", "200", "claim_package", SN),
    with("activate_package", "200", "read_package", SN),
    with("activate_package", "200", "stop_package", SN),
    with("stop_package", "200", "read_package", SN),
];

/// The link's name in its response's `links`: its target, and a suffix
/// when two links of a response share one.
fn link_name(spec: &LinkSpec, taken: &std::collections::BTreeMap<String, RefOr<Link>>) -> String {
    let mut name = spec.to.to_owned();
    let mut n = 2;
    while taken.contains_key(&name) {
        name = format!("{}_{n}", spec.to);
        n += 1;
    }
    name
}

/// Adds [`LINKS`] to their operations' answers. utoipa 5.5's `Link` serialises its own `operation_id`
/// and `request_body` in snake case, so those two go in as their OpenAPI
/// names through the link's extension map, which is written as is.
pub struct Links;

impl utoipa::Modify for Links {
    fn modify(&self, openapi: &mut OpenApi) {
        for op in operations_mut(openapi) {
            let Some(id) = op.operation_id.clone() else {
                continue;
            };
            for spec in LINKS.iter().filter(|s| s.from == id) {
                let Some(RefOr::T(answer)) = op.responses.responses.get_mut(spec.status) else {
                    continue;
                };
                let mut fields = vec![("operationId".to_owned(), serde_json::Value::from(spec.to))];
                if let Some(body) = spec.body {
                    let body: serde_json::Value =
                        serde_json::from_str(body).expect("a link's body is JSON");
                    fields.push(("requestBody".to_owned(), body));
                }
                let mut link = LinkBuilder::new().extensions(Some(Extensions::from_iter(fields)));
                for (name, expression) in spec.parameters {
                    link = link.parameter(*name, *expression);
                }
                let name = link_name(spec, &answer.links);
                answer.links.insert(name, RefOr::T(link.build()));
            }
        }
    }
}
