//! Webhooks' rules, pure (docs/design.md §21): what an endpoint's URL and
//! event types may be, which addresses a delivery may reach, how a
//! delivery is signed, and what happens after each attempt.

use std::net::IpAddr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::domain::ledger_event::EventType;
use crate::domain::names::name_list;

name_list! {
    /// A delivery's state (`webhook_deliveries.status`).
    #[derive(serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum DeliveryStatus {
        /// Owed: due now, later (a retry), or behind an earlier event of its stream.
        Pending,
        Delivered,
        /// Out of retries; a replay queues it again.
        Failed,
    }
}

impl DeliveryStatus {
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

/// Most endpoints: each is read by the sender every round and holds its
/// own deliveries; a platform's receivers are tens.
pub const MAX_WEBHOOKS: i64 = 100;
/// Longest URL: what browsers and proxies reliably carry.
pub const MAX_URL_LEN: usize = 2_048;
pub const MAX_DESCRIPTION_LEN: usize = 500;
/// Every type is named once, so the list is at most every type.
pub const ALL_TYPES: &str = "*";
/// `LEDGER_WEBHOOK_RETRY_HOURS` and a webhook's `retry_hours`: a week at
/// most, so a failed delivery is still in the rows operators look at.
pub const MAX_RETRY_HOURS: i32 = 168;
/// A delivery answered within this counts; a slower one is retried.
pub const DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);
/// First retry's delay, doubled each attempt up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_secs(5);
pub const MAX_BACKOFF: Duration = Duration::from_secs(3_600);
/// A receiver's old secret keeps signing beside the new one this long
/// after a rotation, unless the rotation asks for another overlap.
pub const DEFAULT_OVERLAP_SECS: i64 = 24 * 3_600;
pub const MAX_OVERLAP_SECS: i64 = 7 * 24 * 3_600;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WebhookError {
    #[error("url: {0}")]
    Url(String),
    #[error("event_types: {0}")]
    EventTypes(String),
    #[error("description: at most {MAX_DESCRIPTION_LEN} characters")]
    Description,
    #[error("retry_hours: 1 to {MAX_RETRY_HOURS}")]
    RetryHours,
}

/// An endpoint's URL, parsed: `https` (or `http` where private addresses
/// are allowed, for a receiver on the same host), a host, no credentials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookUrl(url::Url);

impl WebhookUrl {
    pub fn parse(text: &str, allow_private: bool) -> Result<Self, WebhookError> {
        let bad = |why: &str| WebhookError::Url(why.to_owned());
        if text.len() > MAX_URL_LEN {
            return Err(bad("at most 2,048 characters"));
        }
        let url = url::Url::parse(text).map_err(|e| WebhookError::Url(e.to_string()))?;
        match url.scheme() {
            "https" => {}
            "http" if allow_private => {}
            _ => return Err(bad("must be https")),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("must not carry credentials"));
        }
        if url.fragment().is_some() {
            return Err(bad("must not have a fragment"));
        }
        let Some(host) = url.host() else {
            return Err(bad("must name a host"));
        };
        let literal = match host {
            url::Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
            url::Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
            url::Host::Domain(_) => None,
        };
        if let Some(ip) = literal.filter(|ip| !allow_private && !is_public(*ip)) {
            return Err(WebhookError::Url(format!(
                "{ip} is a private, loopback or link-local address"
            )));
        }
        Ok(Self(url))
    }

    pub fn as_url(&self) -> &url::Url {
        &self.0
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

/// The event types an endpoint asked for: every one (`["*"]`) or known
/// names, each once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventTypes {
    All,
    Only(Vec<EventType>),
}

impl EventTypes {
    pub fn parse(asked: &[String]) -> Result<Self, WebhookError> {
        let bad = |why: String| WebhookError::EventTypes(why);
        if asked.is_empty() || asked.len() > EventType::ALL.len() {
            return Err(bad(format!(
                "[\"*\"] or 1 to {} event types",
                EventType::ALL.len()
            )));
        }
        if asked.iter().any(|t| t == ALL_TYPES) {
            return match asked.len() {
                1 => Ok(Self::All),
                _ => Err(bad("\"*\" stands alone".into())),
            };
        }
        let unknown: Vec<&str> = asked
            .iter()
            .filter(|t| EventType::parse(t).is_none())
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(bad(format!("unknown {unknown:?}")));
        }
        let mut types: Vec<EventType> = asked.iter().filter_map(|t| EventType::parse(t)).collect();
        types.sort_by_key(|t| t.as_str());
        types.dedup();
        Ok(Self::Only(types))
    }

    /// As stored and answered: `["*"]` or the names.
    pub fn names(&self) -> Vec<String> {
        match self {
            Self::All => vec![ALL_TYPES.to_owned()],
            Self::Only(types) => types.iter().map(|t| t.as_str().to_owned()).collect(),
        }
    }

    /// Whether an event of `event_type` goes to the endpoint.
    pub fn wants(&self, event_type: &str) -> bool {
        match self {
            Self::All => true,
            Self::Only(types) => types.iter().any(|t| t.as_str() == event_type),
        }
    }
}

pub fn description(text: Option<String>) -> Result<Option<String>, WebhookError> {
    match text {
        Some(t) if t.chars().count() > MAX_DESCRIPTION_LEN => Err(WebhookError::Description),
        other => Ok(other),
    }
}

pub fn retry_hours(hours: i32) -> Result<i32, WebhookError> {
    if (1..=MAX_RETRY_HOURS).contains(&hours) {
        Ok(hours)
    } else {
        Err(WebhookError::RetryHours)
    }
}

/// Whether a delivery may reach `ip` when private addresses are not
/// allowed: not loopback, private, link-local, shared (CGNAT),
/// unspecified, multicast, documentation or an IPv6 form of one of them.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (b == 18 || b == 19))
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && v6.segments()[1] == 0x0db8)
        }
    }
}

/// `Ledger-Signature`: `t=<unix>` and one `v1=` per secret that signs now
/// (the current one, and during a rotation's overlap the one before), each
/// the hex HMAC-SHA256 of `"<t>.<body>"`.
pub fn signature_header(secrets: &[&str], t: i64, body: &[u8]) -> String {
    let mut header = format!("t={t}");
    for secret in secrets {
        header.push_str(",v1=");
        header.push_str(&sign(secret, t, body));
    }
    header
}

fn sign(secret: &str, t: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// How one attempt went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// A 2xx within the time allowed.
    Delivered { status: u16 },
    /// Another status, a timeout, a refused address, a broken connection.
    Refused { status: Option<u16>, error: String },
}

impl Next {
    /// The delivery's state after it.
    pub fn status(&self) -> DeliveryStatus {
        match self {
            Next::Delivered => DeliveryStatus::Delivered,
            Next::Retry(_) => DeliveryStatus::Pending,
            Next::Failed => DeliveryStatus::Failed,
        }
    }
}

/// What becomes of a delivery after an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    Delivered,
    /// Again at this time.
    Retry(DateTime<Utc>),
    /// No more attempts: past the retry window.
    Failed,
}

/// The decision after attempt number `attempts` (1 for the first) of a
/// delivery created at `created`; `jitter` in 0..=1 spreads retries so a
/// receiver coming back is not hit by every delivery at once.
pub fn next(
    attempt: &Attempt,
    (attempts, created): (i32, DateTime<Utc>),
    retry_hours: i32,
    now: DateTime<Utc>,
    jitter: f64,
) -> Next {
    if matches!(attempt, Attempt::Delivered { .. }) {
        return Next::Delivered;
    }
    let at = now + backoff(attempts, jitter);
    if at > created + chrono::Duration::hours(i64::from(retry_hours)) {
        return Next::Failed;
    }
    Next::Retry(at)
}

/// Exponential backoff from [`FIRST_BACKOFF`], capped at [`MAX_BACKOFF`],
/// then between half and all of it (`jitter` 0..=1).
pub fn backoff(attempts: i32, jitter: f64) -> chrono::Duration {
    let doublings = u32::try_from(attempts.saturating_sub(1))
        .unwrap_or(0)
        .min(20);
    let full = FIRST_BACKOFF
        .saturating_mul(1 << doublings)
        .min(MAX_BACKOFF);
    let share = 0.5 + 0.5 * jitter.clamp(0.0, 1.0);
    let millis = (full.as_millis() as f64 * share) as i64;
    chrono::Duration::milliseconds(millis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn urls_must_be_https_public_and_plain() {
        assert!(WebhookUrl::parse("https://hooks.example.com/in", false).is_ok());
        for bad in [
            "http://hooks.example.com/in",
            "https://user:pw@hooks.example.com/",
            "https://127.0.0.1/x",
            "https://10.1.2.3/x",
            "https://[::1]/x",
            "https://169.254.169.254/latest",
            "https://[::ffff:192.168.0.1]/",
            "ftp://hooks.example.com/",
            "not a url",
        ] {
            assert!(WebhookUrl::parse(bad, false).is_err(), "{bad}");
        }
        assert!(WebhookUrl::parse("http://127.0.0.1:9/x", true).is_ok());
    }

    #[test]
    fn public_addresses_are_told_from_private_ones() {
        for ip in ["8.8.8.8", "2606:4700::1111", "1.1.1.1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "127.0.0.1",
            "10.0.0.1",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.1.1",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fc00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "224.0.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn event_types_are_all_or_known_names() {
        assert_eq!(EventTypes::parse(&["*".into()]), Ok(EventTypes::All));
        let two = EventTypes::parse(&[
            "CouponUsed".into(),
            "CouponIssued".into(),
            "CouponUsed".into(),
        ]);
        let two = two.unwrap();
        assert_eq!(two.names(), ["CouponIssued", "CouponUsed"]);
        assert!(two.wants("CouponUsed") && !two.wants("OrderLocked"));
        assert!(EventTypes::parse(&[]).is_err());
        assert!(EventTypes::parse(&["*".into(), "CouponUsed".into()]).is_err());
        let unknown = EventTypes::parse(&["CouponEaten".into()]).unwrap_err();
        assert!(unknown.to_string().contains("CouponEaten"), "{unknown}");
    }

    #[test]
    fn the_signature_is_hmac_of_time_dot_body_per_secret() {
        let header = signature_header(&["whsec_new", "whsec_old"], 1_700_000_000, b"{}");
        let parts: Vec<&str> = header.split(',').collect();
        assert_eq!(parts[0], "t=1700000000");
        assert_eq!(parts.len(), 3);
        let mut mac = Hmac::<Sha256>::new_from_slice(b"whsec_old").unwrap();
        mac.update(b"1700000000.{}");
        assert_eq!(
            parts[2],
            format!("v1={}", hex::encode(mac.finalize().into_bytes()))
        );
        assert_ne!(parts[1], parts[2]);
    }

    #[test]
    fn retries_back_off_until_the_window_closes() {
        let created = Utc.with_ymd_and_hms(2026, 11, 11, 0, 0, 0).unwrap();
        let refused = Attempt::Refused {
            status: Some(500),
            error: "500".into(),
        };
        assert_eq!(backoff(1, 1.0), chrono::Duration::seconds(5));
        assert_eq!(backoff(3, 1.0), chrono::Duration::seconds(20));
        assert_eq!(backoff(3, 0.0), chrono::Duration::seconds(10));
        assert_eq!(backoff(40, 1.0), chrono::Duration::hours(1));
        let soon = created + chrono::Duration::minutes(1);
        assert!(matches!(
            next(&refused, (2, created), 24, soon, 0.5),
            Next::Retry(_)
        ));
        let late = created + chrono::Duration::hours(24);
        assert_eq!(next(&refused, (30, created), 24, late, 0.5), Next::Failed);
        let ok = Attempt::Delivered { status: 204 };
        assert_eq!(next(&ok, (30, created), 24, late, 0.5), Next::Delivered);
    }
}
