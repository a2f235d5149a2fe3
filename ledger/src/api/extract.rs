//! Request extractors whose rejections use the API's error shape. Every
//! text a client sends passes here, so this is where a NUL character (which
//! Postgres cannot store in text) is refused, naming the field.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::ApiError;
use crate::idempotency::request_hash;

/// A JSON body, parsed with a message naming the line, column and field at
/// fault, plus the hash of its bytes for Idempotency-Key comparison.
pub struct ApiJson<T> {
    pub value: T,
    pub hash: [u8; 32],
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        json_content_type(req.headers().get(CONTENT_TYPE))?;
        let path = req.uri().path().to_owned();
        let body = read_body(req, state).await?;
        let value = parse_json(&body)?;
        Ok(Self {
            value,
            hash: request_hash(&[path.as_bytes(), &body]),
        })
    }
}

/// A JSON route takes `application/json` (or `+json`, or no type at all).
fn json_content_type(value: Option<&axum::http::HeaderValue>) -> Result<(), ApiError> {
    let Some(value) = value else {
        return Ok(());
    };
    let media = value.to_str().unwrap_or("").split(';').next().unwrap_or("");
    let media = media.trim().to_ascii_lowercase();
    if media == "application/json" || media.ends_with("+json") {
        return Ok(());
    }
    Err(ApiError::UnsupportedMediaType(format!(
        "this route takes application/json, not {media:?}"
    )))
}

/// The raw body, within the router's body limit.
pub async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::PayloadTooLarge {
                limit: super::BODY_LIMIT,
            }
        } else {
            ApiError::bad_request(rejection.body_text())
        }
    })
}

/// The body as `T`: one JSON value and nothing after it, no NUL in any text.
pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "request body is empty; expected JSON",
        ));
    }
    refuse_nul_in_json(body)?;
    let de = &mut serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = if path == "." {
            String::new()
        } else {
            format!(" at {path}")
        };
        ApiError::bad_request(format!("invalid JSON{at}: {inner}"))
    })?;
    de.end()
        .map_err(|e| ApiError::bad_request(format!("invalid JSON: {e} after the value")))?;
    Ok(value)
}

/// A `\u0000` escape anywhere in the body: 400 naming the field it is in.
fn refuse_nul_in_json(body: &[u8]) -> Result<(), ApiError> {
    let escaped_nul = body
        .windows(6)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && w[2..].iter().all(|b| *b == b'0'));
    if !escaped_nul {
        return Ok(());
    }
    // Rare: parse it as a value to name the field (a `\\u0000` text is no NUL).
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return Ok(()); // the typed parse reports what is wrong
    };
    match nul_at(&value, String::new()) {
        Some(field) => Err(nul_error(&field)),
        None => Ok(()),
    }
}

/// Where the first text (key or value) with a NUL character is.
fn nul_at(value: &Value, at: String) -> Option<String> {
    let name = |at: &str| {
        if at.is_empty() {
            "body".to_owned()
        } else {
            at.to_owned()
        }
    };
    match value {
        Value::String(s) if s.contains('\0') => Some(name(&at)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| nul_at(v, format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let field = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            if k.contains('\0') {
                return Some(name(&at));
            }
            nul_at(v, field)
        }),
        _ => None,
    }
}

fn nul_error(field: &str) -> ApiError {
    ApiError::BadRequest {
        code: "invalid_field",
        message: format!("{field}: must not contain a NUL character"),
    }
}

/// Path parameters, with a 400 in the API's shape when they do not parse
/// or hold a NUL character.
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        if let Ok(raw) = RawPathParams::from_request_parts(parts, state).await
            && let Some((name, _)) = raw.iter().find(|(_, v)| v.contains('\0'))
        {
            return Err(nul_error(name));
        }
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Self(p.0))
            .map_err(|r| ApiError::bad_request(r.body_text()))
    }
}

/// Query parameters, with a 400 in the API's shape when they do not parse
/// (unknown fields included, where `T` denies them) or hold a NUL character.
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or("");
        if query.to_ascii_lowercase().contains("%00") {
            return Err(nul_error("query"));
        }
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Self(q.0))
            .map_err(|r| ApiError::bad_request(r.body_text()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Body {
        name: String,
        lines: Vec<Line>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Line {
        sku: String,
    }

    fn message(body: &str) -> String {
        match parse_json::<Body>(body.as_bytes()) {
            Err(e) => e.to_string(),
            Ok(b) => format!("accepted {b:?}"),
        }
    }

    #[test]
    fn a_nul_is_refused_naming_its_field() {
        let body = r#"{"name": "a", "lines": [{"sku": "x\u0000y"}]}"#;
        assert_eq!(
            message(body),
            "lines[0].sku: must not contain a NUL character"
        );
        let escaped_backslash = r#"{"name": "a\\u0000", "lines": []}"#;
        assert!(message(escaped_backslash).starts_with("accepted"));
    }

    #[test]
    fn trailing_bytes_after_the_value_are_refused() {
        let m = message(r#"{"name": "a", "lines": []} {"#);
        assert!(m.contains("trailing characters"), "{m}");
        assert!(message("{\"name\": \"a\", \"lines\": []}\n  ").starts_with("accepted"));
    }

    #[test]
    fn lone_surrogates_are_a_parse_error() {
        let m = message(r#"{"name": "\ud800", "lines": []}"#);
        assert!(m.starts_with("invalid JSON"), "{m}");
    }
}
