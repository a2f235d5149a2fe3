//! A template's status machine: `draft → active ⇄ stopped`, any but `void` → `void`.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TemplateStatus {
    Draft,
    Active,
    Stopped,
    Void,
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
        Some(match s {
            "draft" => Self::Draft,
            "active" => Self::Active,
            "stopped" => Self::Stopped,
            "void" => Self::Void,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Active => "active",
            Self::Stopped => "stopped",
            Self::Void => "void",
        }
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

impl fmt::Display for TemplateStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::StatusAction::*;
    use super::TemplateStatus::*;

    #[test]
    fn allowed_moves() {
        assert_eq!(Draft.apply(Activate), Ok(Active));
        assert_eq!(Active.apply(Stop), Ok(Stopped));
        assert_eq!(Stopped.apply(Activate), Ok(Active));
        for s in [Draft, Active, Stopped] {
            assert_eq!(s.apply(Void), Ok(Void));
        }
    }

    #[test]
    fn refused_moves() {
        assert!(Active.apply(Activate).is_err());
        assert!(Draft.apply(Stop).is_err());
        for a in [Activate, Stop, Void] {
            assert!(Void.apply(a).is_err(), "void is final");
        }
    }
}
