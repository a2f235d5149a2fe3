//! The admin console (docs/design.md §14) at `/admin`, served by `ledger serve`
//! itself: one HTML shell and its assets, compiled into the binary, nothing
//! fetched from elsewhere (it works offline).
//!
//! The shell holds no data and needs no token: the page asks for the admin
//! token, keeps it in the tab's `sessionStorage` (gone with the browser
//! session, never local storage), and sends it as the `Authorization`
//! header of its calls to the JSON API (`/v1/...`). It is never put in a
//! URL, so it reaches no access log.

use axum::Router;
use axum::extract::Path;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::api::AppState;
use crate::api::http::error::ApiError;

/// Scripts and styles only from this origin, no inline script, no framing.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

const INDEX: &str = include_str!("../../../assets/admin/index.html");

/// The console's icon, an SVG (Chromium and Firefox show one when its
/// content type says so), served where browsers look for an icon by
/// themselves, `/favicon.ico`, and linked from the page: asking for it is
/// never a 404 in the request log.
const FAVICON: &str = include_str!("../../../assets/admin/favicon.svg");

/// (name under `/admin/assets/`, content type, content).
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../assets/admin/app.js"),
    ),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../../../assets/admin/app.css"),
    ),
    (
        "uPlot.iife.min.js",
        "text/javascript; charset=utf-8",
        include_str!("../../../assets/admin/vendor/uPlot.iife.min.js"),
    ),
    (
        "uPlot.min.css",
        "text/css; charset=utf-8",
        include_str!("../../../assets/admin/vendor/uPlot.min.css"),
    ),
];

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/admin", get(index))
        .route("/admin/", get(index))
        .route("/admin/assets/{file}", get(asset))
        .route("/favicon.ico", get(favicon))
}

/// No token: an icon holds no data. Cached for a day (it seldom changes).
async fn favicon() -> Response {
    page("image/svg+xml", FAVICON, "public, max-age=86400")
}

async fn index() -> Response {
    page("text/html; charset=utf-8", INDEX, "no-cache")
}

async fn asset(Path(file): Path<String>) -> Result<Response, ApiError> {
    let (_, kind, body) = ASSETS
        .iter()
        .find(|(name, _, _)| *name == file)
        .ok_or_else(|| ApiError::NotFound("no such asset".into()))?;
    Ok(page(kind, body, "no-cache"))
}

fn page(kind: &'static str, body: &'static str, cache: &'static str) -> Response {
    let headers = [
        (CONTENT_TYPE, HeaderValue::from_static(kind)),
        (CACHE_CONTROL, HeaderValue::from_static(cache)),
        (
            HeaderName::from_static("content-security-policy"),
            HeaderValue::from_static(CSP),
        ),
        (
            HeaderName::from_static("x-content-type-options"),
            HeaderValue::from_static("nosniff"),
        ),
        (
            HeaderName::from_static("referrer-policy"),
            HeaderValue::from_static("no-referrer"),
        ),
    ];
    (headers, body).into_response()
}
