//! The OpenAPI document's shared parts: the bearer schemes, and the error
//! answers every route of a kind can give (added here once, so that no route
//! forgets one). A route's own errors (404, 409, 410, 422) are in its
//! `#[utoipa::path]`.

use utoipa::openapi::path::{Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{
    ContentBuilder, OpenApi, Ref, RefOr, Required, ResponseBuilder, Schema, Type,
};

/// Adds the `admin` and `service` bearer schemes.
pub struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for name in ["admin", "service"] {
            let scheme = HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build();
            components.add_security_scheme(name, SecurityScheme::Http(scheme));
        }
    }
}

/// Documents the errors common to routes of a kind, and the headers of writes.
pub struct CommonAnswers;

impl utoipa::Modify for CommonAnswers {
    fn modify(&self, openapi: &mut OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let api = path.starts_with("/v1/");
            let claims = path == "/v1/claims";
            let writes = [&mut item.post, &mut item.patch, &mut item.put];
            for op in writes.into_iter().flatten() {
                add_write_headers(op);
                op.responses
                    .responses
                    .entry("422".to_owned())
                    .or_insert_with(|| error("The Idempotency-Key was used with another request."));
            }
            let all = [
                &mut item.get,
                &mut item.post,
                &mut item.patch,
                &mut item.put,
                &mut item.delete,
            ];
            for op in all.into_iter().flatten() {
                add_errors(op, api, claims);
            }
        }
    }
}

fn add_errors(op: &mut Operation, api: bool, claims: bool) {
    let has_body = op.request_body.is_some();
    let has_params = op.parameters.as_ref().is_some_and(|p| !p.is_empty());
    let authed = op.security.as_ref().is_some_and(|s| !s.is_empty());
    let mut add = |status: &str, why: &str| {
        op.responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| error(why));
    };
    if has_body || has_params {
        add(
            "400",
            "Bad input: the message names the field (or header) at fault.",
        );
    }
    if has_body {
        add("413", "The body is larger than 64 KiB.");
        add("415", "The body is not `application/json`.");
    }
    if authed {
        add("401", "No bearer token, or an unknown one.");
        add("403", "A token of the other kind (admin / service).");
    }
    if claims {
        add(
            "401",
            "Bad or stale signature, unknown channel, or a spent nonce.",
        );
        add(
            "429",
            "Too many bad signatures from this channel: retry later.",
        );
    }
    if api {
        add("503", "Postgres is unreachable.");
    }
}

/// An answer with the error body.
fn error(description: &str) -> RefOr<utoipa::openapi::Response> {
    let content = ContentBuilder::new()
        .schema(Some(Ref::from_schema_name("ErrorBody")))
        .build();
    ResponseBuilder::new()
        .description(description)
        .content("application/json", content)
        .build()
        .into()
}

/// `Idempotency-Key` and `X-Request-Id`, read by every write.
fn add_write_headers(op: &mut Operation) {
    let params = op.parameters.get_or_insert_with(Vec::new);
    let headers = [
        (
            "Idempotency-Key",
            "Optional: the same key with the same request answers as the first time; \
             with another request, 422. 1 to 255 visible ASCII characters.",
        ),
        (
            "X-Request-Id",
            "Optional correlation id (at most 128 characters), recorded in the events.",
        ),
    ];
    for (name, description) in headers {
        if params.iter().any(|p| p.name == name) {
            continue;
        }
        let schema = Schema::Object(
            utoipa::openapi::ObjectBuilder::new()
                .schema_type(Type::String)
                .build(),
        );
        params.push(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Header)
                .required(Required::False)
                .description(Some(description))
                .schema(Some(schema))
                .build(),
        );
    }
}
