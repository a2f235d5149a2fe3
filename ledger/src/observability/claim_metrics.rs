//! Claims by outcome (docs/design.md §14): every answer of `POST /v1/claims`,
//! counted from its status by the request middleware, so refusals answered
//! before the handler (rate limits, bad signatures) count too.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

/// The route whose answers are counted.
pub const ROUTE: &str = "/v1/claims";

/// Every outcome label, each present (at 0) from the start.
pub const OUTCOMES: [&str; 6] = [
    "issued",
    "at_limit",
    "sold_out",
    "rate_limited",
    "rejected",
    "error",
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabel {
    pub outcome: &'static str,
}

#[derive(Clone, Default)]
pub struct ClaimMetrics {
    claims: Family<OutcomeLabel, Counter>,
}

/// The outcome a claim's status means: 201 issued (an idempotent replay of
/// a 201 too), 409 at the user's limit, 410 sold out, 429 rate limited,
/// any other 4xx rejected, 5xx (and anything else) error.
pub fn outcome(status: u16) -> &'static str {
    match status {
        201 => "issued",
        409 => "at_limit",
        410 => "sold_out",
        429 => "rate_limited",
        400..=499 => "rejected",
        _ => "error",
    }
}

impl ClaimMetrics {
    pub fn register(&self, registry: &mut Registry) {
        for outcome in OUTCOMES {
            self.claims
                .get_or_create(&OutcomeLabel { outcome })
                .inc_by(0);
        }
        registry.register(
            "claims",
            "Answers of POST /v1/claims by outcome (issued, at_limit, sold_out, \
             rate_limited, rejected, error)",
            self.claims.clone(),
        );
    }

    /// Counts one answer of the claims route.
    pub fn answered(&self, status: u16) {
        let outcome = outcome(status);
        self.claims.get_or_create(&OutcomeLabel { outcome }).inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_known_outcomes() {
        for (status, expected) in [
            (201, "issued"),
            (409, "at_limit"),
            (410, "sold_out"),
            (429, "rate_limited"),
            (401, "rejected"),
            (404, "rejected"),
            (422, "rejected"),
            (503, "error"),
            (200, "error"),
        ] {
            assert_eq!(outcome(status), expected, "{status}");
            assert!(OUTCOMES.contains(&outcome(status)));
        }
    }
}
