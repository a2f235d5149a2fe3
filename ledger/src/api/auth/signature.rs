//! Channel request signatures (docs/design.md §6): `X-Signature` is hex
//! HMAC-SHA256(secret, `METHOD\nPATH\nTIMESTAMP\nNONCE\nhex(sha256(body))`),
//! within ±300 s, and each nonce is single-use.

use axum::http::HeaderMap;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::api::http::error::ApiError;
use crate::domain::ids::ChannelId;

pub use crate::domain::nonce::WINDOW_SECS;
const MAX_NONCE_LEN: usize = 128;

/// The signature headers of a channel request, parsed.
#[derive(Debug)]
pub struct SignedHeaders {
    pub channel_id: ChannelId,
    pub timestamp: i64,
    pub nonce: String,
    signature: Vec<u8>,
}

impl SignedHeaders {
    pub fn parse(headers: &HeaderMap) -> Result<Self, ApiError> {
        let get = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| ApiError::Unauthorized(format!("missing {name} header")))
        };
        let bad = |name: &str| ApiError::Unauthorized(format!("malformed {name} header"));
        let channel_id = get("X-Channel-Id")?
            .parse()
            .map(ChannelId)
            .map_err(|_| bad("X-Channel-Id"))?;
        let timestamp = get("X-Timestamp")?
            .parse()
            .map_err(|_| bad("X-Timestamp"))?;
        let nonce = get("X-Nonce")?.to_owned();
        if nonce.is_empty() || nonce.len() > MAX_NONCE_LEN {
            return Err(bad("X-Nonce"));
        }
        let signature = hex::decode(get("X-Signature")?).map_err(|_| bad("X-Signature"))?;
        Ok(Self {
            channel_id,
            timestamp,
            nonce,
            signature,
        })
    }

    /// Refuses a timestamp outside the window around `now`.
    pub fn check_fresh(&self, now: DateTime<Utc>) -> Result<(), ApiError> {
        if (now.timestamp() - self.timestamp).abs() > WINDOW_SECS {
            return Err(ApiError::Unauthorized(format!(
                "X-Timestamp is more than {WINDOW_SECS} s away from the server's clock"
            )));
        }
        Ok(())
    }

    /// Checks the signature in constant time.
    pub fn verify(
        &self,
        secret: &str,
        method: &str,
        path: &str,
        body: &[u8],
    ) -> Result<(), ApiError> {
        let mac = mac(secret, method, path, self.timestamp, &self.nonce, body);
        mac.verify_slice(&self.signature)
            .map_err(|_| ApiError::Unauthorized("signature does not match".into()))
    }
}

/// The headers of a channel's signature.
const SIGNATURE_HEADERS: [&str; 4] = ["X-Channel-Id", "X-Timestamp", "X-Nonce", "X-Signature"];

/// Refuses a request that carries a bearer token and a channel's signature
/// headers: the routes that take either must not pick one silently (a
/// client that meant the signature would get the token's rights).
pub fn one_credential(headers: &HeaderMap) -> Result<(), ApiError> {
    let signed = SIGNATURE_HEADERS.iter().any(|h| headers.contains_key(*h));
    if signed && headers.contains_key(axum::http::header::AUTHORIZATION) {
        return Err(ApiError::BadRequest {
            code: "both_credentials",
            message: "send a bearer token or a channel's signature headers, not both".into(),
        });
    }
    Ok(())
}

/// The hex signature a channel sends (also used by clients and tests).
pub fn sign(
    secret: &str,
    method: &str,
    path: &str,
    timestamp: i64,
    nonce: &str,
    body: &[u8],
) -> String {
    hex::encode(
        mac(secret, method, path, timestamp, nonce, body)
            .finalize()
            .into_bytes(),
    )
}

fn mac(
    secret: &str,
    method: &str,
    path: &str,
    timestamp: i64,
    nonce: &str,
    body: &[u8],
) -> Hmac<Sha256> {
    let body_hash = hex::encode(Sha256::digest(body));
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC accepts keys of any length");
    mac.update(format!("{method}\n{path}\n{timestamp}\n{nonce}\n{body_hash}").as_bytes());
    mac
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn headers(channel: Uuid, ts: i64, nonce: &str, sig: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("X-Channel-Id", channel.to_string().parse().unwrap());
        h.insert("X-Timestamp", ts.to_string().parse().unwrap());
        h.insert("X-Nonce", nonce.parse().unwrap());
        h.insert("X-Signature", sig.parse().unwrap());
        h
    }

    #[test]
    fn a_signature_verifies_only_for_the_same_request() {
        let ch = Uuid::new_v4();
        let sig = sign("s3cret", "POST", "/v1/claims", 1_700_000_000, "n1", b"{}");
        let parsed = SignedHeaders::parse(&headers(ch, 1_700_000_000, "n1", &sig)).unwrap();
        assert!(parsed.verify("s3cret", "POST", "/v1/claims", b"{}").is_ok());
        assert!(parsed.verify("other", "POST", "/v1/claims", b"{}").is_err());
        assert!(
            parsed
                .verify("s3cret", "POST", "/v1/claims", b"{ }")
                .is_err()
        );
        assert!(parsed.verify("s3cret", "PUT", "/v1/claims", b"{}").is_err());
    }

    #[test]
    fn the_timestamp_window_is_300_seconds_either_way() {
        let ch = Uuid::new_v4();
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        for (ts, ok) in [
            (1_700_000_300, true),
            (1_699_999_700, true),
            (1_700_000_301, false),
            (1_699_999_699, false),
        ] {
            let parsed = SignedHeaders::parse(&headers(ch, ts, "n", "00")).unwrap();
            assert_eq!(parsed.check_fresh(now).is_ok(), ok, "{ts}");
        }
    }

    #[test]
    fn malformed_headers_are_401_not_a_panic() {
        let mut h = headers(Uuid::new_v4(), 1, "n", "zz");
        assert!(matches!(
            SignedHeaders::parse(&h),
            Err(ApiError::Unauthorized(_))
        ));
        h.insert("X-Signature", "00".parse().unwrap());
        h.insert("X-Channel-Id", "not-a-uuid".parse().unwrap());
        assert!(matches!(
            SignedHeaders::parse(&h),
            Err(ApiError::Unauthorized(_))
        ));
        assert!(matches!(
            SignedHeaders::parse(&HeaderMap::new()),
            Err(ApiError::Unauthorized(_))
        ));
    }
}
