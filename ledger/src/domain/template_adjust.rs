//! Adjusting a running campaign (docs/design.md §15, "Adjustable
//! campaigns"): its issue window moved (never into the past), its
//! per-user limit raised, the validity of the coupons it issues from now
//! on changed. Coupons already issued keep what was fixed on them at issue.
//!
//! Pure: the template as it stands, the change asked for and "now" in; what
//! actually changes (each part from → to) or the refusal out.

use chrono::{DateTime, Utc};

use crate::domain::events::IssueWindow;
use crate::domain::template_status::TemplateStatus;
use crate::domain::validity::ValidityTerms;

/// What an adjustment reads of the template (its row, locked).
#[derive(Clone, Debug, PartialEq)]
pub struct Current {
    pub status: TemplateStatus,
    pub window: IssueWindow,
    pub per_user_limit: i32,
    pub validity: ValidityTerms,
}

/// What was asked: each part absent leaves it as it is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjustment {
    pub begin: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
    pub per_user_limit: Option<i32>,
    pub validity: Option<ValidityTerms>,
}

/// What changes, each part from → to; a part asked for with the value it
/// already has changes nothing (and makes no event).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjusted {
    pub window: Option<(IssueWindow, IssueWindow)>,
    pub per_user_limit: Option<(i32, i32)>,
    pub validity: Option<(ValidityTerms, ValidityTerms)>,
}

/// Why an adjustment is refused. `code` is the error code the API answers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the template is void: it cannot change")]
    Void,
    #[error("issue_window.{0}: must not be in the past")]
    WindowInPast(&'static str),
    #[error("issue_window.begin: claims opened at {0}; a begin that has passed cannot move")]
    BeginPassed(String),
    #[error("issue_window: begin ({begin}) must be before end ({end})")]
    WindowEmpty { begin: String, end: String },
    #[error("per_user_limit: may only be raised (now {0})")]
    LimitNotRaised(i32),
    #[error("validity: its coupons would already be expired")]
    ValidityEnded,
}

impl Refusal {
    /// The answer's error code.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Void => "template_status",
            Refusal::WindowInPast(_) => "issue_window_in_past",
            Refusal::BeginPassed(_) => "issue_window_started",
            Refusal::WindowEmpty { .. } => "issue_window_empty",
            Refusal::LimitNotRaised(_) => "per_user_limit_not_raised",
            Refusal::ValidityEnded => "validity_ended",
        }
    }

    /// A conflict with the template's state (409) rather than a change
    /// that cannot be applied as asked (422).
    pub fn is_conflict(&self) -> bool {
        matches!(
            self,
            Refusal::Void | Refusal::BeginPassed(_) | Refusal::LimitNotRaised(_)
        )
    }
}

/// A void template refuses every change; the rest is [`decide`]'s.
pub fn check_status(status: TemplateStatus) -> Result<(), Refusal> {
    match status {
        TemplateStatus::Void => Err(Refusal::Void),
        _ => Ok(()),
    }
}

/// What `asked` changes of `current` at `now`, or why it is refused.
pub fn decide(
    current: &Current,
    asked: &Adjustment,
    now: DateTime<Utc>,
) -> Result<Adjusted, Refusal> {
    check_status(current.status)?;
    let window = window(&current.window, asked, now)?;
    let per_user_limit = match asked.per_user_limit {
        Some(n) if n == current.per_user_limit => None,
        Some(n) if n < current.per_user_limit => {
            return Err(Refusal::LimitNotRaised(current.per_user_limit));
        }
        Some(n) => Some((current.per_user_limit, n)),
        None => None,
    };
    let validity = match asked.validity {
        Some(v) if v == current.validity => None,
        Some(v) if v.ended_by(now) => return Err(Refusal::ValidityEnded),
        Some(v) => Some((current.validity, v)),
        None => None,
    };
    Ok(Adjusted {
        window,
        per_user_limit,
        validity,
    })
}

/// The new window: a moved end must not be in the past; a begin may move
/// only while it is still ahead, and not into the past; begin before end.
fn window(
    current: &IssueWindow,
    asked: &Adjustment,
    now: DateTime<Utc>,
) -> Result<Option<(IssueWindow, IssueWindow)>, Refusal> {
    let begin = asked.begin.unwrap_or(current.begin);
    let end = asked.end.unwrap_or(current.end);
    if begin != current.begin {
        if current.begin <= now {
            return Err(Refusal::BeginPassed(current.begin.to_rfc3339()));
        }
        if begin < now {
            return Err(Refusal::WindowInPast("begin"));
        }
    }
    if end != current.end && end < now {
        return Err(Refusal::WindowInPast("end"));
    }
    if begin >= end {
        return Err(Refusal::WindowEmpty {
            begin: begin.to_rfc3339(),
            end: end.to_rfc3339(),
        });
    }
    let to = IssueWindow { begin, end };
    Ok((to != *current).then(|| (current.clone(), to)))
}

#[cfg(test)]
mod tests {
    use chrono::TimeDelta;

    use super::*;
    use crate::domain::validity::RawValidity;

    fn at(hours: i64) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
            + TimeDelta::hours(hours)
    }

    fn relative(days: i64) -> ValidityTerms {
        ValidityTerms::parse(&RawValidity::Relative {
            begin_days: 0,
            end_days: days,
        })
        .unwrap()
    }

    /// Open from -10 h to +10 h around `at(0)`, limit 2, 7 days' validity.
    fn running() -> Current {
        Current {
            status: TemplateStatus::Active,
            window: IssueWindow {
                begin: at(-10),
                end: at(10),
            },
            per_user_limit: 2,
            validity: relative(7),
        }
    }

    fn end(h: i64) -> Adjustment {
        Adjustment {
            end: Some(at(h)),
            ..Adjustment::default()
        }
    }

    #[test]
    fn the_end_moves_either_way_but_not_into_the_past() {
        let now = at(0);
        let longer = decide(&running(), &end(48), now).unwrap();
        let (from, to) = longer.window.unwrap();
        assert_eq!((from.end, to.end, to.begin), (at(10), at(48), at(-10)));
        let shorter = decide(&running(), &end(1), now).unwrap();
        assert_eq!(shorter.window.unwrap().1.end, at(1));
        assert_eq!(
            decide(&running(), &end(-1), now),
            Err(Refusal::WindowInPast("end"))
        );
        // An ended window may be reopened, to an end ahead.
        let ended = decide(&running(), &end(20), at(15)).unwrap();
        assert_eq!(ended.window.unwrap().1.end, at(20));
    }

    #[test]
    fn a_begin_moves_only_while_ahead_and_not_into_the_past() {
        let passed = Adjustment {
            begin: Some(at(1)),
            ..Adjustment::default()
        };
        let refused = decide(&running(), &passed, at(0)).unwrap_err();
        assert!(matches!(refused, Refusal::BeginPassed(_)), "{refused}");
        assert!(refused.is_conflict());
        let mut ahead = running();
        ahead.window.begin = at(5);
        let sooner = Adjustment {
            begin: Some(at(2)),
            ..Adjustment::default()
        };
        assert_eq!(
            decide(&ahead, &sooner, at(0))
                .unwrap()
                .window
                .unwrap()
                .1
                .begin,
            at(2)
        );
        let past = Adjustment {
            begin: Some(at(-1)),
            ..Adjustment::default()
        };
        assert_eq!(
            decide(&ahead, &past, at(0)),
            Err(Refusal::WindowInPast("begin"))
        );
        let after_end = Adjustment {
            begin: Some(at(12)),
            ..Adjustment::default()
        };
        let refused = decide(&ahead, &after_end, at(0)).unwrap_err();
        assert_eq!(refused.code(), "issue_window_empty");
        assert!(!refused.is_conflict());
    }

    #[test]
    fn the_same_window_changes_nothing() {
        let same = Adjustment {
            begin: Some(at(-10)),
            end: Some(at(10)),
            ..Adjustment::default()
        };
        assert_eq!(decide(&running(), &same, at(0)), Ok(Adjusted::default()));
    }

    #[test]
    fn the_limit_only_grows() {
        let raise = |n| Adjustment {
            per_user_limit: Some(n),
            ..Adjustment::default()
        };
        assert_eq!(
            decide(&running(), &raise(5), at(0)).unwrap().per_user_limit,
            Some((2, 5))
        );
        assert_eq!(
            decide(&running(), &raise(2), at(0)).unwrap().per_user_limit,
            None
        );
        assert_eq!(
            decide(&running(), &raise(1), at(0)),
            Err(Refusal::LimitNotRaised(2))
        );
    }

    #[test]
    fn a_validity_already_over_is_refused() {
        let change = |v| Adjustment {
            validity: Some(v),
            ..Adjustment::default()
        };
        let longer = decide(&running(), &change(relative(30)), at(0)).unwrap();
        assert_eq!(longer.validity, Some((relative(7), relative(30))));
        let over = ValidityTerms::parse(&RawValidity::Absolute {
            begin: "2026-01-01T00:00:00Z".into(),
            end: "2026-02-01T00:00:00Z".into(),
        })
        .unwrap();
        assert_eq!(
            decide(&running(), &change(over), at(0)),
            Err(Refusal::ValidityEnded)
        );
    }

    #[test]
    fn a_void_template_refuses_everything() {
        let mut void = running();
        void.status = TemplateStatus::Void;
        assert_eq!(decide(&void, &end(48), at(0)), Err(Refusal::Void));
        assert_eq!(
            decide(&void, &Adjustment::default(), at(0)),
            Err(Refusal::Void)
        );
        let mut stopped = running();
        stopped.status = TemplateStatus::Stopped;
        assert!(decide(&stopped, &end(48), at(0)).is_ok());
    }
}
