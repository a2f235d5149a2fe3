//! A batch of claims on one template (group commit, docs/design.md §12), pure: which
//! requests get a coupon once the batch's guards have answered.
//!
//! The guards run in this order, each over the requests the previous left
//! standing: the nonce (a replay), the channel, the user's limit, then the
//! quota, which grants units to the first standing requests in arrival order.
//! A batch of redemptions (docs/design.md §13) runs the code's guards first (its
//! uses, then the user's redemptions of the batch), then the same user's
//! limit and quota.

/// Why one request of a batch gets no coupon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its nonce was spent before (a replayed request).
    Replay,
    /// The channel may not issue this template.
    Channel,
    /// The user may not claim it: the rule that refused (docs/design.md §15).
    NotEligible(crate::domain::eligibility::Rule),
    /// The user holds the template's per-user limit.
    AtLimit,
    /// The quota ran out before this request.
    SoldOut,
    /// A redemption's code has no use left.
    UsedUp,
    /// The user already redeemed this code, or the batch's per-user count.
    AlreadyRedeemed,
}

impl Refusal {
    /// Whether a redemption refused so had taken a use of its code (which
    /// then goes back).
    pub fn took_a_use(self) -> bool {
        !matches!(self, Refusal::UsedUp)
    }

    /// Whether a redemption refused so had been counted against the user's
    /// redemptions of the batch (which then goes back).
    pub fn counted_for_the_user(self) -> bool {
        matches!(
            self,
            Refusal::NotEligible(_) | Refusal::AtLimit | Refusal::SoldOut
        )
    }
}

/// The outcome of each request: None gets a coupon. `refused` holds the
/// refusals before the quota, `granted` the units the quota gave the batch
/// (at most the number standing).
pub fn settle(refused: &[Option<Refusal>], granted: usize) -> Vec<Option<Refusal>> {
    let standing = refused.iter().filter(|r| r.is_none()).count();
    debug_assert!(granted <= standing, "the quota grants only what was asked");
    let mut left = granted;
    refused
        .iter()
        .map(|r| match r {
            Some(r) => Some(*r),
            None if left > 0 => {
                left -= 1;
                None
            }
            None => Some(Refusal::SoldOut),
        })
        .collect()
}

/// Splits arrivals into a batch and the requests left for the next one: a
/// user appears at most once per batch, so the per-user guard can take one
/// unit per user in one statement.
pub fn one_per_user<T>(arrivals: Vec<T>, user: impl Fn(&T) -> &str) -> (Vec<T>, Vec<T>) {
    one_per_key(arrivals, |a| user(a).to_owned())
}

/// [`one_per_user`] for any key: a redemption's batch holds each user and
/// each code once (every guard is one upsert over distinct rows).
pub fn one_per_key<T, K: std::hash::Hash + Eq>(
    arrivals: Vec<T>,
    key: impl Fn(&T) -> K,
) -> (Vec<T>, Vec<T>) {
    let mut seen = std::collections::HashSet::with_capacity(arrivals.len());
    let (mut batch, mut later) = (Vec::with_capacity(arrivals.len()), Vec::new());
    for a in arrivals {
        if seen.insert(key(&a)) {
            batch.push(a);
        } else {
            later.push(a);
        }
    }
    (batch, later)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quota_goes_to_the_first_standing_requests() {
        let refused = [None, Some(Refusal::AtLimit), None, None];
        assert_eq!(
            settle(&refused, 2),
            vec![None, Some(Refusal::AtLimit), None, Some(Refusal::SoldOut)]
        );
    }

    #[test]
    fn a_repeated_user_waits_for_the_next_batch() {
        let (batch, later) = one_per_user(vec!["a", "b", "a", "c", "b"], |u| u);
        assert_eq!(batch, vec!["a", "b", "c"]);
        assert_eq!(later, vec!["a", "b"]);
    }

    #[test]
    fn a_redemption_gives_back_what_its_refusal_had_taken() {
        assert!(!Refusal::UsedUp.took_a_use());
        assert!(Refusal::AlreadyRedeemed.took_a_use());
        assert!(!Refusal::AlreadyRedeemed.counted_for_the_user());
        assert!(Refusal::AtLimit.took_a_use() && Refusal::AtLimit.counted_for_the_user());
        assert!(Refusal::SoldOut.took_a_use() && Refusal::SoldOut.counted_for_the_user());
    }
}
