//! Wrong bearer tokens (admin or service), by what they were answered:
//! `forbidden` (403, counted against the address) or `limited` (429, the
//! address used up its window; `api/auth/token_limit.rs`).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AnswerLabel {
    pub answer: &'static str,
}

/// Every answer label, each present (at 0) from the start.
const ANSWERS: [&str; 2] = ["forbidden", "limited"];

#[derive(Clone, Default)]
pub struct TokenMetrics {
    wrong: Family<AnswerLabel, Counter>,
}

impl TokenMetrics {
    pub fn register(&self, registry: &mut Registry) {
        for answer in ANSWERS {
            self.wrong.get_or_create(&AnswerLabel { answer }).inc_by(0);
        }
        registry.register(
            "wrong_tokens",
            "Wrong admin or service bearer tokens, by answer (forbidden, limited)",
            self.wrong.clone(),
        );
    }

    pub fn forbidden(&self) {
        self.wrong
            .get_or_create(&AnswerLabel {
                answer: "forbidden",
            })
            .inc();
    }

    pub fn limited(&self) {
        self.wrong
            .get_or_create(&AnswerLabel { answer: "limited" })
            .inc();
    }
}
