//! A batch of claims on one template (group commit, DESIGN §12), pure: which
//! requests get a coupon once the batch's guards have answered.
//!
//! The guards run in this order, each over the requests the previous left
//! standing: the nonce (a replay), the channel, the user's limit, then the
//! quota, which grants units to the first standing requests in arrival order.

/// Why one request of a batch gets no coupon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its nonce was spent before (a replayed request).
    Replay,
    /// The channel may not issue this template.
    Channel,
    /// The user holds the template's per-user limit.
    AtLimit,
    /// The quota ran out before this request.
    SoldOut,
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
    let mut seen = std::collections::HashSet::with_capacity(arrivals.len());
    let (mut batch, mut later) = (Vec::with_capacity(arrivals.len()), Vec::new());
    for a in arrivals {
        if seen.insert(user(&a).to_owned()) {
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
}
