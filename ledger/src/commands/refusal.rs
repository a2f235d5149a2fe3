//! How a refused command answers, decided once (docs/design.md §7): the
//! API renders it, and the issuance worker stores it on a package job that
//! was refused, so a queued claim is refused exactly as the synchronous one
//! would have been. Failures (the store, the database, a bug) are not
//! refusals: they have no [`Answer`] here and a retry may get past them.

use super::CommandError;
use crate::domain::coupon_state;

/// A refusal in HTTP's terms: status, stable code, message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
}

impl Answer {
    fn new(status: u16, code: &'static str, message: String) -> Self {
        Self {
            status,
            code,
            message,
        }
    }
}

impl CommandError {
    /// The refusal's answer; `None` for a failure (see the module doc).
    pub fn answer(&self) -> Option<Answer> {
        let message = self.to_string();
        Some(match self {
            Self::NotFound(..) => Answer::new(404, "not_found", message),
            Self::Conflict(code, _) => Answer::new(409, code, message),
            Self::Unprocessable(code, _) => Answer::new(422, code, message),
            Self::Forbidden(_) => Answer::new(403, "forbidden", message),
            Self::NotEligible(_) => Answer::new(403, "not_eligible", message),
            Self::ChannelDisabled(_) => Answer::new(403, "channel_disabled", message),
            Self::SoldOut(_) => Answer::new(410, "sold_out", message),
            Self::Refused(coupon_state::Refusal::Expired) => {
                Answer::new(422, "coupon_expired", message)
            }
            Self::Refused(_) => Answer::new(409, "coupon_state", message),
            Self::Store(_) | Self::Db(_) | Self::Internal(_) => return None,
        })
    }
}

/// Why a batched claim or redemption got no coupon (each maps to one HTTP
/// status).
#[derive(Debug, Clone, thiserror::Error)]
pub enum ClaimRefused {
    #[error("nonce already used")]
    Replay,
    #[error("this channel may not issue this template")]
    Channel,
    #[error("user already holds the limit of {0} from this template")]
    AtLimit(i32),
    #[error("{}", .0.message())]
    NotEligible(crate::domain::eligibility::Rule),
    #[error("the template's quota is exhausted")]
    SoldOut,
    #[error("the code is used up")]
    UsedUp,
    #[error("the user already redeemed this code, or as many of its batch's codes as it allows")]
    AlreadyRedeemed,
    /// The template refused the whole batch (not active, window, ...).
    #[error("{1}")]
    Template(&'static str, String),
    /// What was not found, named.
    #[error("{0}")]
    NotFound(String),
    /// The batch's transaction failed: nothing of it was written.
    #[error("the batch this claim was written in failed; no coupon was issued, retry")]
    Failed,
}

impl ClaimRefused {
    pub fn from_refusal(r: crate::domain::claim_batch::Refusal, limit: i32) -> Self {
        use crate::domain::claim_batch::Refusal;
        match r {
            Refusal::Replay => Self::Replay,
            Refusal::Channel => Self::Channel,
            Refusal::AtLimit => Self::AtLimit(limit),
            Refusal::NotEligible(rule) => Self::NotEligible(rule),
            Refusal::SoldOut => Self::SoldOut,
            Refusal::UsedUp => Self::UsedUp,
            Refusal::AlreadyRedeemed => Self::AlreadyRedeemed,
        }
    }

    /// Every request's answer when its batch's transaction failed; `what`
    /// names the batch in the log (`claim` or `redemption`).
    pub fn from_batch_error(e: &CommandError, sn: &str, what: &'static str) -> Self {
        match e {
            CommandError::NotFound(..) => Self::NotFound(e.to_string()),
            CommandError::Unprocessable(code, message) => Self::Template(code, message.clone()),
            other => {
                let db = match other {
                    CommandError::Db(e) => e.as_db_error().map(|d| d.message().to_owned()),
                    _ => None,
                };
                tracing::error!(
                    template = sn,
                    batch = what,
                    error = format!("{other:#}"),
                    ?db,
                    "{what} batch failed"
                );
                Self::Failed
            }
        }
    }
}

impl ClaimRefused {
    /// What the request that was refused answers.
    pub fn answer(&self) -> Answer {
        let message = self.to_string();
        match self {
            Self::Replay => Answer::new(401, "unauthorized", message),
            Self::Channel => Answer::new(403, "forbidden", message),
            Self::AtLimit(_) => Answer::new(409, "per_user_limit", message),
            Self::NotEligible(_) => Answer::new(403, "not_eligible", message),
            Self::SoldOut | Self::UsedUp => Answer::new(410, "sold_out", message),
            Self::AlreadyRedeemed => Answer::new(409, "already_redeemed", message),
            Self::Template(code, _) => Answer::new(422, code, message),
            Self::NotFound(_) => Answer::new(404, "not_found", message),
            Self::Failed => Answer::new(503, "batch_failed", message),
        }
    }
}
