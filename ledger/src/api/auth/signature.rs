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

/// Most digits of `X-Timestamp` (Unix seconds have 10 until 2286).
const MAX_TIMESTAMP_DIGITS: usize = 12;
/// `X-Signature`: lowercase hex of a SHA-256 HMAC.
const SIGNATURE_HEX_LEN: usize = 64;

/// The signature headers of a channel request, parsed. What is signed is
/// what was sent (docs/reference/signing.md): the timestamp's text, the
/// nonce's, the path as it came in the request line.
#[derive(Debug)]
pub struct SignedHeaders {
    pub channel_id: ChannelId,
    pub timestamp: i64,
    /// `X-Timestamp` as sent: decimal digits only.
    timestamp_text: String,
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
        let timestamp_text = get("X-Timestamp")?;
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if timestamp_text.is_empty()
            || timestamp_text.len() > MAX_TIMESTAMP_DIGITS
            || !digits(timestamp_text)
            || (timestamp_text.len() > 1 && timestamp_text.starts_with('0'))
        {
            return Err(bad("X-Timestamp"));
        }
        let timestamp = timestamp_text.parse().map_err(|_| bad("X-Timestamp"))?;
        let nonce = get("X-Nonce")?.to_owned();
        if nonce.is_empty() || nonce.len() > MAX_NONCE_LEN {
            return Err(bad("X-Nonce"));
        }
        let hex_text = get("X-Signature")?;
        let lower_hex = |t: &str| t.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if hex_text.len() != SIGNATURE_HEX_LEN || !lower_hex(hex_text) {
            return Err(bad("X-Signature"));
        }
        let signature = hex::decode(hex_text).map_err(|_| bad("X-Signature"))?;
        Ok(Self {
            channel_id,
            timestamp,
            timestamp_text: timestamp_text.to_owned(),
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
        let mac = mac(
            secret,
            method,
            path,
            &self.timestamp_text,
            &self.nonce,
            body,
        );
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
        mac(secret, method, path, &timestamp.to_string(), nonce, body)
            .finalize()
            .into_bytes(),
    )
}

/// The HMAC of the five lines docs/reference/signing.md names, each as sent.
fn mac(
    secret: &str,
    method: &str,
    path: &str,
    timestamp: &str,
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
            let parsed = SignedHeaders::parse(&headers(ch, ts, "n", &"0".repeat(64))).unwrap();
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
        h.insert("X-Signature", "0".repeat(64).parse().unwrap());
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

    /// What is signed is what was sent: the timestamp's text (a `+` or a
    /// leading zero would sign other text than the value), lowercase hex.
    #[test]
    fn only_the_documented_forms_are_taken() {
        let ch = Uuid::new_v4();
        let sig = sign("s", "POST", "/v1/claims", 1_700_000_000, "n", b"{}");
        let mut h = headers(ch, 1_700_000_000, "n", &sig);
        assert!(SignedHeaders::parse(&h).is_ok());
        h.insert("X-Signature", sig.to_uppercase().parse().unwrap());
        assert!(SignedHeaders::parse(&h).is_err(), "uppercase hex");
        h.insert("X-Signature", sig[..62].parse().unwrap());
        assert!(SignedHeaders::parse(&h).is_err(), "short");
        h.insert("X-Signature", sig.parse().unwrap());
        for ts in [
            "+1700000000",
            "01700000000",
            "-1",
            "1700000000.0",
            " 1700000000",
            "",
        ] {
            h.insert("X-Timestamp", ts.parse().unwrap());
            assert!(SignedHeaders::parse(&h).is_err(), "{ts:?}");
        }
        // The text as sent is what the signature covers.
        let text = "1700000000";
        h.insert("X-Timestamp", text.parse().unwrap());
        let parsed = SignedHeaders::parse(&h).unwrap();
        assert!(parsed.verify("s", "POST", "/v1/claims", b"{}").is_ok());
        assert!(
            parsed.verify("s", "POST", "/v1/claim%73", b"{}").is_err(),
            "the path as sent"
        );
    }
}
