//! Request extractors whose rejections use the API's error shape.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

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
        let path = req.uri().path().to_owned();
        let body = read_body(req, state).await?;
        let value = parse_json(&body)?;
        Ok(Self {
            value,
            hash: request_hash(&[path.as_bytes(), &body]),
        })
    }
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

pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "request body is empty; expected JSON",
        ));
    }
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = if path == "." {
            String::new()
        } else {
            format!(" at {path}")
        };
        ApiError::bad_request(format!("invalid JSON{at}: {inner}"))
    })
}

/// Path parameters, with a 400 in the API's shape when they do not parse.
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Self(p.0))
            .map_err(|r| ApiError::bad_request(r.body_text()))
    }
}

/// Query parameters, with a 400 in the API's shape when they do not parse.
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Self(q.0))
            .map_err(|r| ApiError::bad_request(r.body_text()))
    }
}
