//! Request extractors whose rejections use the API's error shape.
//!
//! Every text a client sends passes through here (path parameters through
//! `path_param.rs`, which uses the same NUL check), so the checks that hold
//! for all of them live here once: no NUL character (Postgres cannot store
//! one: it would be a 500 deep inside), JSON bodies only as JSON, nothing
//! after the JSON value, and a declared length over the limit refused
//! before any byte of the body is awaited.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use serde::de::DeserializeOwned;
use serde_json::Value;
use strum::VariantArray;

use crate::api::http::error::ApiError;
use crate::domain::names;
use crate::exactly_once::idempotency::request_hash;
use crate::queries::page::Bounds;

/// A JSON body, parsed with a message naming the line, column and field at
/// fault, plus the hash of its bytes for Idempotency-Key comparison.
pub struct ApiJson<T> {
    pub value: T,
    pub hash: [u8; 32],
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let path = req.uri().path().to_owned();
        require_json(req.headers())?;
        let body = read_body(req, state).await?;
        let value = parse_json(&body)?;
        Ok(Self {
            value,
            hash: request_hash(&[path.as_bytes(), &body]),
        })
    }
}

/// The raw body, within the router's body limit. A `Content-Length` over
/// the limit is refused at once, not after waiting for a body never sent.
pub async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    let too_large = ApiError::PayloadTooLarge {
        limit: crate::api::BODY_LIMIT,
    };
    if declared_length(req.headers()).is_some_and(|n| n > crate::api::BODY_LIMIT as u64) {
        drain(req.into_body()).await;
        return Err(too_large);
    }
    Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            too_large
        } else {
            ApiError::bad_request(rejection.body_text())
        }
    })
}

/// Most a refused body is read on before the answer goes out.
const DRAIN_BYTES: usize = 4 * 1024 * 1024;
/// Longest a refused body is waited for: a client that declared a body it
/// does not send gets its answer after this.
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_millis(500);

/// Reads and drops what a client is still sending (bounded in bytes and
/// time) before an answer that refuses it: a client that writes its body
/// before reading the answer would otherwise find the connection closed
/// under it and never see the answer.
pub async fn drain(body: axum::body::Body) {
    use futures_util::StreamExt;
    let mut frames = body.into_data_stream();
    let mut read = 0;
    let _ = tokio::time::timeout(DRAIN_TIME, async {
        while read < DRAIN_BYTES {
            match frames.next().await {
                Some(Ok(frame)) => read += frame.len(),
                _ => break,
            }
        }
    })
    .await;
}

pub(crate) fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// A body declared as something else than JSON (`application/json` or
/// `application/*+json`) is refused (415). An undeclared body is read as
/// JSON: the API takes nothing else, and existing clients (body-less POSTs
/// such as `/activate`, signed claims) send none.
pub fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(());
    };
    let essence = value.to_str().unwrap_or("").split(';').next().unwrap_or("");
    let essence = essence.trim().to_ascii_lowercase();
    let json = essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"));
    if json {
        Ok(())
    } else {
        Err(ApiError::UnsupportedMediaType(format!(
            "Content-Type: {essence:.100} is not supported; expected application/json"
        )))
    }
}

/// Parses a JSON body into `T`. The body must be one JSON value (trailing
/// bytes are refused), valid Unicode (serde_json refuses lone surrogate
/// escapes) and free of NUL characters, whose field is named.
pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "request body is empty; expected JSON",
        ));
    }
    let mut value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("invalid JSON: {e}")))?;
    if let Some(at) = nul_in(&value, String::new()) {
        return Err(nul_error(&at));
    }
    if whole_numbers(&mut value) {
        // The bytes' line and column would no longer name the value read.
        return from_value(value);
    }
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(shape_error)
}

/// Largest whole number an f64 holds exactly (2^53).
const EXACT_F64: f64 = 9_007_199_254_740_992.0;

/// Rewrites every number written with a fraction of zero (`3.0`, `1e2`)
/// as the integer it is, and says whether it rewrote one. JSON has one
/// kind of number and JSON Schema calls `3.0` an integer, so a field the
/// document types `integer` takes it (docs/design.md §21, "Schemas");
/// serde alone would refuse it for an `i64`. Amounts are strings, and a
/// whole number beyond 2^53 is left as written (an f64 no longer says
/// which integer it was). Exact below it because serde_json parses floats
/// with `float_roundtrip` (without it, `4127671945619814.0` read as
/// `…814.5`).
fn whole_numbers(value: &mut Value) -> bool {
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            let Some(f) = n
                .as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() <= EXACT_F64)
            else {
                return false;
            };
            *value = Value::from(f as i64);
            true
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |any, v| whole_numbers(v) | any),
        Value::Object(map) => map
            .values_mut()
            .fold(false, |any, v| whole_numbers(v) | any),
        _ => false,
    }
}

/// Reads a JSON value already parsed (and checked for NULs by [`ApiJson`])
/// into `T`, the error naming the field at fault as [`parse_json`]'s does.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(shape_error)
}

/// A body of the wrong shape: 400 with the path of the field at fault.
fn shape_error(e: serde_path_to_error::Error<serde_json::Error>) -> ApiError {
    let path = e.path().to_string();
    let inner = e.into_inner();
    let at = if path == "." {
        String::new()
    } else {
        format!(" at {path}")
    };
    ApiError::bad_request(format!("invalid JSON{at}: {inner}"))
}

pub(crate) fn nul_error(field: &str) -> ApiError {
    ApiError::BadRequest {
        code: "invalid_field",
        message: format!("{field}: must not contain NUL characters"),
    }
}

/// The path (`order.lines[0].sku`, as serde_path_to_error writes it) of the
/// first string or key holding a NUL, if any.
fn nul_in(value: &Value, at: String) -> Option<String> {
    match value {
        Value::String(s) => s.contains('\0').then_some(at),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| nul_in(item, format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(key, item)| {
            let here = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            if key.contains('\0') {
                return Some(here.replace('\0', "\\u0000"));
            }
            nul_in(item, here)
        }),
        _ => None,
    }
    .map(|p| if p.is_empty() { "body".into() } else { p })
}

/// Query parameters, with a 400 in the API's shape when they do not parse.
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        if let Some(name) = nul_in_query(parts.uri.query().unwrap_or("")) {
            return Err(nul_error(&name));
        }
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Self(q.0))
            .map_err(|r| ApiError::bad_request(r.body_text()))
    }
}

/// A list's `offset` (default 0, not negative) and `limit` (default 50, 1
/// to `max`), or a 400 naming the one that is out of range.
pub fn page_bounds(offset: Option<i64>, limit: Option<i64>, max: i64) -> Result<Bounds, ApiError> {
    let invalid = |message: String| ApiError::BadRequest {
        code: "invalid_field",
        message,
    };
    let (offset, limit) = (offset.unwrap_or(0), limit.unwrap_or(50));
    if offset < 0 {
        return Err(invalid("offset: must not be negative".into()));
    }
    if !(1..=max).contains(&limit) {
        return Err(invalid(format!("limit: must be 1 to {max}")));
    }
    Ok(Bounds { offset, limit })
}

/// A list's `status` filter as its enum, or a 400 naming the values.
pub fn status_filter<T>(raw: Option<&str>) -> Result<Option<T>, ApiError>
where
    T: VariantArray + Copy + Into<&'static str> + std::str::FromStr,
{
    let parse = |s| names::parse_field::<T>("status", s);
    raw.map(parse)
        .transpose()
        .map_err(|message| ApiError::BadRequest {
            code: "invalid_field",
            message,
        })
}

/// The name of the first query parameter whose name or value holds a NUL
/// (in a URI a NUL can only arrive percent-encoded, as `%00`).
fn nul_in_query(query: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        pair.contains("%00").then(|| {
            let name = pair.split('=').next().unwrap_or("");
            format!("query parameter {:.64}", name.replace("%00", "\\u0000"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(e: ApiError) -> String {
        e.to_string()
    }

    #[derive(serde::Deserialize, Debug)]
    struct Counts {
        total: i64,
        lines: Vec<i32>,
    }

    #[test]
    fn a_whole_number_with_a_zero_fraction_is_an_integer() {
        let counts: Counts = parse_json(br#"{"total": 3.0, "lines": [1e2, 2]}"#).unwrap();
        assert_eq!((counts.total, counts.lines), (3, vec![100, 2]));
        let large: Counts = parse_json(br#"{"total": 4127671945619814.0, "lines": []}"#).unwrap();
        assert_eq!(large.total, 4_127_671_945_619_814);
        let e = parse_json::<Counts>(br#"{"total": 3.5, "lines": []}"#).unwrap_err();
        assert!(message(e).contains("at total"));
        // Past 2^53 an f64 no longer says which integer was meant.
        assert!(parse_json::<Counts>(br#"{"total": 1e300, "lines": []}"#).is_err());
    }

    #[test]
    fn a_nul_anywhere_names_its_field() {
        let body = br#"{"order": {"lines": [{"sku": "a"}, {"sku": "b\u0000"}]}}"#;
        let e = parse_json::<Value>(body).unwrap_err();
        assert_eq!(e.status(), 400);
        assert_eq!(
            message(e),
            "order.lines[1].sku: must not contain NUL characters"
        );
        let e = parse_json::<Value>(br#"{"a\u0000": 1}"#).unwrap_err();
        assert_eq!(message(e), "a\\u0000: must not contain NUL characters");
        let e = parse_json::<Value>(br#""\u0000""#).unwrap_err();
        assert_eq!(message(e), "body: must not contain NUL characters");
    }

    #[test]
    fn lone_surrogates_and_trailing_bytes_are_400() {
        for body in [
            &br#"{"a": "\ud800"}"#[..],
            br#"{"a": "x\udfffy"}"#,
            br#"{"a": 1} x"#,
            br#"{"a": 1}{}"#,
        ] {
            let e = parse_json::<Value>(body).unwrap_err();
            assert_eq!(e.status(), 400, "{}", String::from_utf8_lossy(body));
        }
        assert!(parse_json::<Value>(b"{\"a\": \"\\ud83d\\ude00\"} \n").is_ok());
    }

    #[test]
    fn a_nul_in_a_query_value_names_its_parameter() {
        assert_eq!(
            nul_in_query("limit=1&cursor=a%00b"),
            Some("query parameter cursor".into())
        );
        assert_eq!(nul_in_query("limit=1&cursor=a%2500b"), None);
    }

    #[test]
    fn json_content_types() {
        let with = |ct: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, ct.parse().unwrap());
            h
        };
        assert!(require_json(&with("application/json; charset=utf-8")).is_ok());
        assert!(require_json(&with("Application/JSON")).is_ok());
        assert!(require_json(&with("application/merge-patch+json")).is_ok());
        assert!(require_json(&HeaderMap::new()).is_ok());
        for ct in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/jsonx",
        ] {
            assert_eq!(require_json(&with(ct)).unwrap_err().status(), 415, "{ct}");
        }
    }
}
