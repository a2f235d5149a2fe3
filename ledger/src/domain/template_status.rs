//! A template's status machine: `draft → active ⇄ stopped`, any but `void` → `void`.

use crate::domain::names::name_list;
use serde::{Deserialize, Serialize};

name_list! {
    #[derive(Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    #[schemars(inline, transform = crate::domain::names::plain_schema)]
    pub enum TemplateStatus {
        Draft,
        Active,
        Stopped,
        Void,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusAction {
    Activate,
    Stop,
    Void,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {from} template cannot be {action}")]
pub struct StatusRefused {
    pub from: TemplateStatus,
    pub action: &'static str,
}

impl TemplateStatus {
    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }

    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }

    /// The status `action` leads to, or why it may not be taken.
    pub fn apply(self, action: StatusAction) -> Result<TemplateStatus, StatusRefused> {
        use StatusAction as A;
        use TemplateStatus as S;
        match (self, action) {
            (S::Draft | S::Stopped, A::Activate) => Ok(S::Active),
            (S::Active, A::Stop) => Ok(S::Stopped),
            (S::Draft | S::Active | S::Stopped, A::Void) => Ok(S::Void),
            (from, action) => Err(StatusRefused {
                from,
                action: action.past_tense(),
            }),
        }
    }
}

impl StatusAction {
    fn past_tense(self) -> &'static str {
        match self {
            Self::Activate => "activated",
            Self::Stop => "stopped",
            Self::Void => "voided",
        }
    }
}

/// Why a template issues no coupon now.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotIssuing {
    #[error("the template is {0}")]
    NotActive(TemplateStatus),
    #[error("the template issues from {} to {}", .begin.to_rfc3339(), .end.to_rfc3339())]
    OutsideWindow {
        begin: chrono::DateTime<chrono::Utc>,
        end: chrono::DateTime<chrono::Utc>,
    },
}

/// Whether a template in `status` with the issue window `[begin, end]`
/// issues coupons at `now`.
pub fn issuing(
    status: TemplateStatus,
    (begin, end): (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>),
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), NotIssuing> {
    if status != TemplateStatus::Active {
        return Err(NotIssuing::NotActive(status));
    }
    if now < begin || now > end {
        return Err(NotIssuing::OutsideWindow { begin, end });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::StatusAction as A;
    use super::TemplateStatus as S;

    #[test]
    fn allowed_moves() {
        assert_eq!(S::Draft.apply(A::Activate), Ok(S::Active));
        assert_eq!(S::Active.apply(A::Stop), Ok(S::Stopped));
        assert_eq!(S::Stopped.apply(A::Activate), Ok(S::Active));
        for s in [S::Draft, S::Active, S::Stopped] {
            assert_eq!(s.apply(A::Void), Ok(S::Void));
        }
    }

    #[test]
    fn refused_moves() {
        assert!(S::Active.apply(A::Activate).is_err());
        assert!(S::Draft.apply(A::Stop).is_err());
        for a in [A::Activate, A::Stop, A::Void] {
            assert!(S::Void.apply(a).is_err(), "void is final");
        }
    }
}
