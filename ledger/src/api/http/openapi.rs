//! The OpenAPI document's shared parts: the bearer schemes, the error
//! answers every route of a kind can give (added here once, so that no route
//! forgets one), no NUL in any text; the links between operations are in
//! `openapi_links.rs`. A route's path, its `operationId` and its own
//! errors (404, 409, 410, 422) are in its `#[utoipa::path]`: a path is
//! written there and nowhere else.

use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::path::{Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{AdditionalProperties, ArrayItems, SchemaType};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{
    ContentBuilder, OpenApi, Ref, RefOr, Required, ResponseBuilder, Schema, Type,
};

use crate::api::http::schemas::NO_NUL;
use crate::exactly_once::idempotency::MAX_KEY_LEN;

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

/// POSTs that only read (a body too rich for a query string): they take no
/// Idempotency-Key, and answer no 422 for one.
pub const READS_BY_POST: &[&str] = &["/v1/orders/quote"];

/// Documents the errors common to routes of a kind, and the headers of writes.
pub struct CommonAnswers;

impl utoipa::Modify for CommonAnswers {
    fn modify(&self, openapi: &mut OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let api = path.starts_with("/v1/");
            let claims = path == "/v1/claims";
            let writes = [&mut item.post, &mut item.patch, &mut item.put];
            let reads_only = READS_BY_POST.contains(&path.as_str());
            for op in writes.into_iter().flatten().filter(|_| !reads_only) {
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
        add(
            "429",
            "Too many wrong tokens from this address within a minute: retry after \
             `Retry-After` seconds.",
        );
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

/// Bodies that must change something: at least one field
/// (`minProperties`, set here: utoipa-gen 5.5 writes `min_properties` as
/// `maxProperties`).
const NON_EMPTY_BODIES: &[&str] = &["UpdateTemplate", "WindowChange"];

/// Sets [`NON_EMPTY_BODIES`]' `minProperties`.
pub struct NonEmptyBodies;

impl utoipa::Modify for NonEmptyBodies {
    fn modify(&self, openapi: &mut OpenApi) {
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        for name in NON_EMPTY_BODIES {
            if let Some(RefOr::T(Schema::Object(body))) = components.schemas.get_mut(*name) {
                body.min_properties = Some(1);
            }
        }
    }
}

/// Enums serde reads with `deny_unknown_fields` whose variants utoipa
/// leaves open: each variant takes no field beside its own.
const CLOSED_VARIANTS: &[&str] = &["RawDiscount", "RawValidity"];

/// Closes [`CLOSED_VARIANTS`]' variants (`additionalProperties: false`).
pub struct ClosedVariants;

impl utoipa::Modify for ClosedVariants {
    fn modify(&self, openapi: &mut OpenApi) {
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        for name in CLOSED_VARIANTS {
            let Some(RefOr::T(Schema::OneOf(one))) = components.schemas.get_mut(*name) else {
                continue;
            };
            for variant in one.items.iter_mut() {
                if let RefOr::T(Schema::Object(o)) = variant {
                    o.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
                }
            }
        }
    }
}

/// Says of every text in the document that has no pattern, format or
/// enum of its own that it holds no NUL: the one check every text the API
/// takes passes (`extract.rs`), written here once for all of them. (Texts
/// of answers hold none either: Postgres stores none.)
pub struct NoNul;

impl utoipa::Modify for NoNul {
    fn modify(&self, openapi: &mut OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            components.schemas.values_mut().for_each(no_nul);
        }
        for op in operations_mut(openapi) {
            for param in op.parameters.iter_mut().flatten() {
                param.schema.iter_mut().for_each(no_nul);
            }
            let bodies = op
                .request_body
                .iter_mut()
                .flat_map(|b| b.content.values_mut());
            for content in bodies {
                content.schema.iter_mut().for_each(no_nul);
            }
        }
    }
}

fn no_nul(schema: &mut RefOr<Schema>) {
    let RefOr::T(schema) = schema else { return };
    match schema {
        Schema::Object(o) => {
            let text = match &o.schema_type {
                SchemaType::Type(t) => *t == Type::String,
                SchemaType::Array(types) => types.contains(&Type::String),
                SchemaType::AnyValue => false,
            };
            let free = o.pattern.is_none() && o.format.is_none() && o.enum_values.is_none();
            if text && free {
                o.pattern = Some(NO_NUL.to_owned());
            }
            o.properties.values_mut().for_each(no_nul);
            if let Some(extra) = o.additional_properties.as_deref_mut()
                && let AdditionalProperties::RefOr(extra) = extra
            {
                no_nul(extra);
            }
        }
        Schema::Array(a) => {
            if let ArrayItems::RefOrSchema(items) = &mut a.items {
                no_nul(items);
            }
        }
        Schema::OneOf(o) => o.items.iter_mut().for_each(no_nul),
        Schema::AllOf(o) => o.items.iter_mut().for_each(no_nul),
        Schema::AnyOf(o) => o.items.iter_mut().for_each(no_nul),
        _ => {}
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
        let schema = Schema::Object(match name {
            // What `exactly_once::idempotency::validate_key` takes.
            "Idempotency-Key" => crate::api::http::schemas::visible::<1, MAX_KEY_LEN>(),
            _ => utoipa::openapi::ObjectBuilder::new()
                .schema_type(Type::String)
                .build(),
        });
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

/// Every operation of the document.
pub(super) fn operations_mut(openapi: &mut OpenApi) -> impl Iterator<Item = &mut Operation> {
    openapi.paths.paths.values_mut().flat_map(|item| {
        let methods = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.patch,
            &mut item.delete,
        ];
        methods.into_iter().flatten()
    })
}

/// The methods a path of the document has operations for.
pub fn methods(item: &utoipa::openapi::PathItem) -> Vec<axum::http::Method> {
    use axum::http::Method;
    let all = [
        (&item.get, Method::GET),
        (&item.put, Method::PUT),
        (&item.post, Method::POST),
        (&item.patch, Method::PATCH),
        (&item.delete, Method::DELETE),
    ];
    all.into_iter()
        .filter(|(op, _)| op.is_some())
        .map(|(_, m)| m)
        .collect()
}

/// Names on each operation the permission its rule needs
/// (`x-permission`, docs/design.md §19), so that clients and the matrix
/// test read the one table through the document.
pub struct Permissions;

impl utoipa::Modify for Permissions {
    fn modify(&self, openapi: &mut OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let ops = [
                (&mut item.get, "GET"),
                (&mut item.put, "PUT"),
                (&mut item.post, "POST"),
                (&mut item.patch, "PATCH"),
                (&mut item.delete, "DELETE"),
            ];
            for (op, method) in ops {
                let (Some(op), Some(rule)) =
                    (op, crate::api::auth::route_rules::find_str(method, path))
                else {
                    continue;
                };
                let access = serde_json::to_value(rule.access.describe()).unwrap_or_default();
                let mut extensions = Extensions::default();
                extensions.insert("x-permission".to_owned(), access);
                op.extensions
                    .get_or_insert_with(Default::default)
                    .merge(extensions);
            }
        }
    }
}
