//! The one way a new coupon's `CouponIssued` is built (claims, batched
//! claims, bulk-issuance chunks, package claims, reissues on refund): the
//! template's terms fix the validity at the issue instant, its face value
//! and currency, and the reminder offsets it has then; each coupon adds
//! its holder, a fresh id and where it came from.

use crate::domain::ids::{ChannelId, UserId};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use uuid::Uuid;

use super::events::CouponIssued;
use super::ids::{CouponId, TemplateSn};
use super::reminder::RemindDays;
use super::terms::Terms;
use super::validity::{Validity, ValidityOutOfRange};

/// Where a coupon came from, beyond its template: all `None` for an
/// operator's or the service's claim.
#[derive(Clone, Copy, Debug, Default)]
pub struct Origin {
    /// The channel that claimed it.
    pub channel_id: Option<ChannelId>,
    /// The coupon a refund returned, which this one replaces.
    pub refund_from: Option<Uuid>,
    /// The bulk-issuance job and the line of its file.
    pub job: Option<(Uuid, u64)>,
    /// The job asked `notify=true` (a `CouponsGranted` message lists it).
    pub job_notify: bool,
}

/// What every coupon a template issues at one instant shares.
pub struct Issue {
    shared: CouponIssued,
}

impl Issue {
    /// The template `sn`'s issue at `now` (validity computed once, with the
    /// business zone `tz` for day boundaries).
    pub fn at(
        template_sn: &TemplateSn,
        terms: &Terms,
        remind_days_before: Option<RemindDays>,
        (now, tz): (DateTime<Utc>, Tz),
    ) -> Result<Self, ValidityOutOfRange> {
        let validity = terms.validity().validity_for(now, tz)?;
        Ok(Self::within(
            template_sn,
            terms,
            remind_days_before,
            now,
            validity,
        ))
    }

    /// The issue at `now` of coupons valid over `validity`, given: a
    /// reissue keeps the validity of the coupon it replaces (docs/design.md §15).
    pub fn within(
        template_sn: &TemplateSn,
        terms: &Terms,
        remind_days_before: Option<RemindDays>,
        now: DateTime<Utc>,
        validity: Validity,
    ) -> Self {
        let shared = CouponIssued {
            coupon_id: Uuid::nil(),
            template_sn: template_sn.clone(),
            user_id: UserId::stored(String::new()),
            issued_at: now,
            effective_at: validity.effective_at,
            expires_at: validity.expires_at,
            face_value: terms.face_value(),
            currency: terms.currency().as_str().to_owned(),
            channel_id: None,
            refund_from: None,
            job_id: None,
            job_line: None,
            remind_days_before,
            job_notify: false,
        };
        Self { shared }
    }

    /// A new coupon for `user_id`, with a fresh id.
    pub fn coupon(&self, user_id: &UserId, origin: Origin) -> CouponIssued {
        CouponIssued {
            coupon_id: CouponId::generate().0,
            user_id: user_id.clone(),
            channel_id: origin.channel_id,
            refund_from: origin.refund_from,
            job_id: origin.job.map(|(id, _)| id),
            job_line: origin.job.map(|(_, line)| line),
            job_notify: origin.job.is_some() && origin.job_notify,
            ..self.shared.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::terms::RawTerms;

    #[test]
    fn coupons_of_one_issue_share_the_terms_and_differ_in_id_and_holder() {
        let raw: RawTerms = serde_json::from_value(serde_json::json!({
            "kind": "goods", "currency": "CNY",
            "discount": {"type": "fixed_off", "threshold": "100.00", "amount": "20.00"},
            "validity": {"type": "relative", "begin_days": 0, "end_days": 7},
            "stacking": "stackable",
        }))
        .unwrap();
        let terms = Terms::parse(&raw).unwrap();
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let issue = Issue::at(
            &TemplateSn::stored("SN1".into()),
            &terms,
            None,
            (now, chrono_tz::UTC),
        )
        .unwrap();
        let job = Uuid::new_v4();
        let user = |u| UserId::parse(u).unwrap();
        let a = issue.coupon(&user("u1"), Origin::default());
        let b = issue.coupon(
            &user("u2"),
            Origin {
                job: Some((job, 7)),
                ..Origin::default()
            },
        );
        assert_ne!(a.coupon_id, b.coupon_id);
        assert_eq!((a.user_id.as_str(), b.user_id.as_str()), ("u1", "u2"));
        assert_eq!((b.job_id, b.job_line), (Some(job), Some(7)));
        assert_eq!((a.job_id, a.channel_id, a.refund_from), (None, None, None));
        assert_eq!(a.expires_at, b.expires_at);
        assert_eq!(a.face_value, terms.face_value());
        assert_eq!(a.issued_at, now);
    }
}
