//! The best combination of a user's coupons for an order (the quote's `best`).
//!
//! Candidates are the coupons that give a discount on their own. The answer
//! is the best of: each exclusive coupon alone; and the best sequence of
//! stackable goods coupons (one per template) plus the best stackable
//! shipping coupon. Order matters among goods coupons (each applies to what
//! the earlier ones left), so sequences, not sets, are searched:
//!
//! - coupons of one template are interchangeable: the best of them stands in;
//! - goods coupons whose scopes share no line never interact, so each group
//!   of overlapping scopes is searched on its own and the results add up;
//! - a group of at most [`EXACT_LIMIT`] templates is searched exactly, depth
//!   first in input order, seeded with the greedy answer, with branch and
//!   bound: a coupon's discount only shrinks as what is left shrinks, so what
//!   each unused coupon gives now bounds what it can still give; nothing can
//!   take more than is left; and rates compound (see `Search::rate_bound`);
//! - of two orders of coupons that share no line only one is searched (they
//!   commute exactly);
//! - when every candidate covers the same lines, only what is left of them
//!   in all matters: the search tracks that sum, not the lines, and skips a
//!   (used set, sum) it reached before by an earlier path (see
//!   `Search::reached_before`);
//! - larger groups, and groups whose search exceeds its node budget (an
//!   adversarial mix, far beyond any real wallet), use the heuristic: the
//!   better of greedy-by-current-discount and the best ordered pair (groups
//!   of ≤ 24), then first-improvement local search (remove, insert, swap,
//!   replace). `Best::exact` says which. Either way the answer is never
//!   worse than the best single coupon, nor (groups ≤ 24) the best pair.
//!
//! Ties: the larger discount, then fewer coupons, then the sequence of input
//! positions that is smaller lexicographically.

mod heuristic;
mod search;

use self::heuristic::{greedy, heuristic};
use self::search::Search;

use std::cmp::Ordering;
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::coupon::Coupon;
use crate::domain::discount::{Prepared, Remaining};
use crate::domain::money::Money;
use crate::domain::order::Order;
use crate::domain::terms::{Kind, Stacking};

/// The most templates of one interacting group searched exactly.
pub const EXACT_LIMIT: usize = 12;
// The search keeps the used candidates of a group in a `u16`.
const _: () = assert!(EXACT_LIMIT <= 16);
/// Nodes the exact search of one group may visit before it settles for
/// the best found so far (bounds the time of any quote).
const NODE_BUDGET: usize = 10_000;
/// Coupon applications the heuristic may spend improving one group.
const HEURISTIC_BUDGET: usize = 6_000;
/// Groups up to this size also try every ordered pair.
const PAIR_LIMIT: usize = 24;

/// The best combination: apply `coupon_ids` in this order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Best<C> {
    pub coupon_ids: Vec<C>,
    pub discount: Money,
    pub payable: Money,
    /// False when a heuristic decided some group (see the module docs).
    pub exact: bool,
}

/// A coupon that gives a discount on its own.
struct Candidate<'a> {
    index: usize,
    template: &'a str,
    prepared: Prepared<'a>,
    alone: i64,
}

/// A combination under consideration: total cents and a sequence.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Combo {
    total: i64,
    seq: Vec<usize>,
}

impl Combo {
    /// The tie-break order: more discount, fewer coupons, smaller sequence.
    fn cmp_rank(&self, other: &Combo) -> Ordering {
        other
            .total
            .cmp(&self.total)
            .then(self.seq.len().cmp(&other.seq.len()))
            .then(self.seq.cmp(&other.seq))
    }

    fn better_than(&self, other: &Combo) -> bool {
        self.cmp_rank(other) == Ordering::Less
    }
}

/// Finds the best combination of `coupons` for `order` at `now`.
pub fn best_combination<C: Clone + Eq>(
    order: &Order,
    coupons: &[Coupon<C>],
    now: DateTime<Utc>,
) -> Best<C> {
    let full = Remaining::of(order);
    let candidates: Vec<Candidate<'_>> = coupons
        .iter()
        .enumerate()
        .filter_map(|(index, c)| {
            let prepared = Prepared::new(order, c, now).ok()?;
            let alone = prepared.discount(&full).ok()?;
            Some(Candidate {
                index,
                template: &c.template_sn,
                prepared,
                alone,
            })
        })
        .collect();
    let (stacked, exact) = best_stack(&candidates, &full);
    let best = candidates
        .iter()
        .filter(|c| c.prepared.stacking == Stacking::Exclusive)
        .map(|c| Combo {
            total: c.alone,
            seq: vec![c.index],
        })
        .chain(std::iter::once(stacked))
        .min_by(Combo::cmp_rank)
        .unwrap_or_default();
    let replayed = replay(&candidates, &best.seq, &full);
    debug_assert_eq!(
        replayed,
        Some(best.total),
        "the chosen sequence must replay to its total"
    );
    Best {
        coupon_ids: best.seq.iter().map(|&i| coupons[i].id.clone()).collect(),
        discount: Money::from_cents(best.total),
        payable: Money::from_cents(order.total().cents() - best.total),
        exact,
    }
}

/// The best stackable combination (goods sequence + one shipping coupon),
/// in input positions, and whether it is exact.
fn best_stack(candidates: &[Candidate<'_>], full: &Remaining) -> (Combo, bool) {
    let stackable = |k: Kind| {
        candidates
            .iter()
            .filter(move |c| c.prepared.stacking == Stacking::Stackable && c.prepared.kind == k)
    };
    let shipping =
        stackable(Kind::Shipping).min_by(|a, b| b.alone.cmp(&a.alone).then(a.index.cmp(&b.index)));
    let goods = one_per_template(stackable(Kind::Goods).collect());
    let mut combo = Combo::default();
    let mut exact = true;
    for group in interacting_groups(&goods) {
        let (best, group_exact) = best_sequence(&group, full);
        combo.total += best.total;
        combo.seq.extend(best.seq.iter().map(|&p| group[p].index));
        exact &= group_exact;
    }
    if let Some(s) = shipping {
        combo.total += s.alone;
        combo.seq.push(s.index);
    }
    (combo, exact)
}

/// Coupons of one template have the same terms: keep the one that gives the
/// most alone (then the earliest), in input order.
fn one_per_template<'c, 'a>(goods: Vec<&'c Candidate<'a>>) -> Vec<&'c Candidate<'a>> {
    let mut kept: Vec<&Candidate<'a>> = Vec::new();
    for c in goods {
        match kept.iter_mut().find(|k| k.template == c.template) {
            Some(k) if c.alone > k.alone => *k = c,
            Some(_) => {}
            None => kept.push(c),
        }
    }
    kept.sort_by_key(|c| c.index);
    kept
}

/// Splits candidates into groups whose scopes are connected by shared lines
/// (union-find over candidates), each group in input order.
fn interacting_groups<'c, 'a>(goods: &[&'c Candidate<'a>]) -> Vec<Vec<&'c Candidate<'a>>> {
    let mut parent: Vec<usize> = (0..goods.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut owner_of_line: HashMap<usize, usize> = HashMap::new();
    for (ci, c) in goods.iter().enumerate() {
        for &line in &c.prepared.lines {
            let other = *owner_of_line.entry(line).or_insert(ci);
            let (a, b) = (root(&mut parent, ci), root(&mut parent, other));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut groups: Vec<(usize, Vec<&Candidate<'a>>)> = Vec::new();
    for (ci, c) in goods.iter().enumerate() {
        let r = root(&mut parent, ci);
        match groups.iter_mut().find(|g| g.0 == r) {
            Some(g) => g.1.push(c),
            None => groups.push((r, vec![c])),
        }
    }
    groups.into_iter().map(|g| g.1).collect()
}

/// The best sequence of one group, in group positions; exact when possible.
fn best_sequence(group: &[&Candidate<'_>], full: &Remaining) -> (Combo, bool) {
    if group.len() > EXACT_LIMIT {
        return (heuristic(group, full), false);
    }
    // Greedy is a cheap, usually good seed: the search prunes against it.
    let mut search = Search::new(group, full, greedy(group, full));
    search.visit(0, 0);
    if search.out_of_budget {
        let fallback = heuristic(group, full);
        let best = if fallback.better_than(&search.best) {
            fallback
        } else {
            search.best
        };
        return (best, false);
    }
    (search.best, true)
}

/// Applies a sequence (input positions) from the full order; `None` when a
/// coupon of it would give nothing where it stands.
fn replay(candidates: &[Candidate<'_>], seq: &[usize], full: &Remaining) -> Option<i64> {
    let mut left = full.clone();
    let mut total = 0;
    for &index in seq {
        let c = candidates.iter().find(|c| c.index == index)?;
        let discount = c.prepared.discount(&left).ok()?;
        left.take(&c.prepared.split(&left, discount));
        total += discount;
    }
    Some(total)
}

/// Applies a sequence of group positions from the full order.
fn evaluate(group: &[&Candidate<'_>], seq: &[usize], full: &Remaining) -> Option<i64> {
    evaluate_from(group, seq, full, 0)
}

/// Applies `seq` after a prefix that left `start` and took `taken`.
fn evaluate_from(
    group: &[&Candidate<'_>],
    seq: &[usize],
    start: &Remaining,
    taken: i64,
) -> Option<i64> {
    let mut left = start.clone();
    let mut total = taken;
    for &p in seq {
        let prepared = &group[p].prepared;
        let discount = prepared.discount(&left).ok()?;
        left.take(&prepared.split(&left, discount));
        total += discount;
    }
    Some(total)
}

/// What is left, and the total taken, after each prefix of `seq`.
fn prefixes(group: &[&Candidate<'_>], seq: &[usize], full: &Remaining) -> Vec<(Remaining, i64)> {
    let mut out = Vec::with_capacity(seq.len() + 1);
    let (mut left, mut total) = (full.clone(), 0);
    out.push((left.clone(), total));
    for &p in seq {
        let prepared = &group[p].prepared;
        // `seq` is a valid sequence: every coupon of it applies.
        let discount = prepared.discount(&left).unwrap_or(0);
        left.take(&prepared.split(&left, discount));
        total += discount;
        out.push((left.clone(), total));
    }
    out
}
