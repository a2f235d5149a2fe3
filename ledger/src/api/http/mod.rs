//! HTTP plumbing shared by every route: the server, the one error type and
//! its JSON shape, extractors whose rejections use that shape (path
//! parameters parsed into their domain types), the request
//! context (correlation id, Idempotency-Key, the command transaction), the
//! request log and per-route metrics, the OpenAPI document's extras, health
//! and the console's assets.

pub mod admin;
pub mod context;
pub mod error;
pub mod extract;
pub mod health;
pub mod openapi;
pub mod openapi_links;
pub mod path_param;
pub mod request_log;
pub mod request_metrics;
pub mod schemas;
pub mod server;
