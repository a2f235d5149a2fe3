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

use self::heuristic::{greedy, heuristic};

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

/// Fixed-point scale of the products of `1 − rate_off` in the bound.
const UNIT: i64 = 1_000_000_000;

/// Exact depth-first search over the sequences of one group.
struct Search<'g, 'c, 'a> {
    group: &'g [&'c Candidate<'a>],
    left: Remaining,
    /// The order lines any candidate of the group touches.
    lines: Vec<usize>,
    /// Cents left on the group's lines before any coupon.
    start: i64,
    /// `overlaps[i][j]`: candidates i and j share a line (else they commute).
    overlaps: Vec<Vec<bool>>,
    /// Per order line, scratch space for the bound (see `rate_bound`).
    keep: Vec<i64>,
    /// `partly[i][j]`: j covers some but not all of i's lines.
    partly: Vec<Vec<bool>>,
    path: Vec<usize>,
    best: Combo,
    nodes: usize,
    out_of_budget: bool,
}

impl<'g, 'c, 'a> Search<'g, 'c, 'a> {
    fn new(group: &'g [&'c Candidate<'a>], full: &Remaining, incumbent: Combo) -> Self {
        let mut lines: Vec<usize> = group
            .iter()
            .flat_map(|c| c.prepared.lines.iter().copied())
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let start = lines.iter().map(|&i| full.lines[i]).sum();
        let shares_line = |a: &[usize], b: &[usize]| a.iter().any(|l| b.binary_search(l).is_ok());
        let overlaps: Vec<Vec<bool>> = group
            .iter()
            .map(|a| {
                group
                    .iter()
                    .map(|b| shares_line(&a.prepared.lines, &b.prepared.lines))
                    .collect()
            })
            .collect();
        let contains = |a: &[usize], b: &[usize]| b.iter().all(|l| a.binary_search(l).is_ok());
        let partly = (0..group.len())
            .map(|i| {
                let lines_i = &group[i].prepared.lines;
                (0..group.len())
                    .map(|j| overlaps[i][j] && !contains(&group[j].prepared.lines, lines_i))
                    .collect()
            })
            .collect();
        Search {
            group,
            left: full.clone(),
            lines,
            start,
            overlaps,
            keep: vec![UNIT; full.lines.len()],
            partly,
            path: Vec::new(),
            best: incumbent,
            nodes: 0,
            out_of_budget: false,
        }
    }

    fn visit(&mut self, used: u16, total: i64) {
        if self.path_beats_best(total) {
            self.best = Combo {
                total,
                seq: self.path.clone(),
            };
        }
        self.nodes += 1;
        if self.nodes > NODE_BUDGET {
            self.out_of_budget = true;
            return;
        }
        let options: Vec<(usize, i64)> = (0..self.group.len())
            .filter(|&p| used & (1 << p) == 0)
            .filter_map(|p| {
                self.group[p]
                    .prepared
                    .discount(&self.left)
                    .ok()
                    .map(|d| (p, d))
            })
            .collect();
        let bound = total + self.future_bound(total, &options);
        let mut largest: Vec<i64> = options.iter().map(|o| o.1).collect();
        largest.sort_unstable_by(|a, b| b.cmp(a));
        for (p, discount) in options {
            if self.out_of_budget || self.hopeless(bound, total, &largest) {
                return;
            }
            if !self.canonical(p) {
                continue;
            }
            let parts = self.group[p].prepared.split(&self.left, discount);
            self.left.take(&parts);
            self.path.push(p);
            self.visit(used | (1 << p), total + discount);
            self.path.pop();
            self.left.give_back(&parts);
        }
    }

    /// An upper bound on what the coupons in `options` (those that still
    /// give something) can add, in any subset and order. Each coupon gives at
    /// most what it gives now (discounts only shrink with their base),
    /// nothing takes more than is left, and rates compound (`rate_bound`).
    fn future_bound(&mut self, total: i64, options: &[(usize, i64)]) -> i64 {
        let left = self.start - total;
        let optimistic: i64 = options.iter().map(|o| o.1).sum();
        optimistic.min(left).min(self.rate_bound(left, options))
    }

    /// Rate coupons (rate_off < 0.5, cap not reached) compound: whatever
    /// the order, line `l` keeps at least `r_l · Π(1 − rate)` of the rates
    /// covering it, less what the other coupons take, each at most what it
    /// gives now. So the future discount is at most
    /// `left − Σ r_l·Π(1 − rate) + Σ others` plus what rounding can add per
    /// rate (`rounding_slack`). Fixed-point products round down, which only
    /// raises the bound.
    fn rate_bound(&mut self, left: i64, options: &[(usize, i64)]) -> i64 {
        let mut others = 0;
        let mut rates: Vec<(usize, i64)> = Vec::new();
        for &(p, discount) in options {
            let prepared = &self.group[p].prepared;
            // A capped rate gives at most its cap from here on, like a fixed
            // amount: counting it so is tighter than letting it compound.
            let uncapped = |basis: &i128| {
                i128::from(discount) >= i128::from(prepared.base(&self.left)) * basis / 10_000
            };
            match prepared
                .rule
                .rate_basis()
                .filter(|b| *b < 5_000 && uncapped(b))
            {
                Some(basis) => rates.push((p, i64::try_from(10_000 - basis).unwrap_or(10_000))),
                None => others += discount,
            }
        }
        let mut slack = 1;
        for &(p, keep) in &rates {
            slack += self.rounding_slack(p, keep, &rates);
            for &l in &self.group[p].prepared.lines {
                self.keep[l] = self.keep[l] * keep / 10_000;
            }
        }
        let mut kept: i128 = 0;
        for &l in &self.lines {
            // i64 when it fits (lines under ~92 million): i128 is slower.
            kept += match self.left.lines[l].checked_mul(self.keep[l]) {
                Some(product) => i128::from(product),
                None => i128::from(self.left.lines[l]) * i128::from(self.keep[l]),
            };
            self.keep[l] = UNIT;
        }
        let kept = i64::try_from(kept / i128::from(UNIT)).unwrap_or(0);
        left - kept + others + slack
    }

    /// The cents by which rate `p` can take more than its exact share
    /// `rate · r_l` from the lines' kept products: ½ cent of rounding its
    /// discount, plus the split's cent-level deviations (which sum to 0 and
    /// to at most n/4 on either side) weighted by how unequal the shares its
    /// lines keep can be — which only the rates covering some but not all of
    /// them make unequal; all over `1 − rate` (`keep` in 1/10 000).
    fn rounding_slack(&self, p: usize, keep: i64, rates: &[(usize, i64)]) -> i64 {
        let kept_share = rates
            .iter()
            .filter(|(j, _)| *j != p && self.partly[p][*j])
            .fold(10_000, |share, (_, k)| share * k / 10_000);
        let spread = 10_000 - kept_share;
        let lines = i64::try_from(self.group[p].prepared.lines.len()).unwrap_or(i64::MAX / 20_000);
        let ten_thousandths = 5_000 + (lines * spread + 3) / 4;
        (ten_thousandths + keep - 1) / keep
    }

    /// Coupons that share no line commute exactly (same discounts, same
    /// parts), so of `…, last, p` and `…, p, last` only the one in input
    /// order is searched.
    fn canonical(&self, p: usize) -> bool {
        self.path
            .last()
            .is_none_or(|&last| p > last || self.overlaps[last][p])
    }

    /// `Combo { total, seq: path }.better_than(&best)` without allocating.
    fn path_beats_best(&self, total: i64) -> bool {
        let best = &self.best;
        (
            total,
            std::cmp::Reverse(self.path.len()),
            std::cmp::Reverse(self.path.as_slice()),
        ) > (
            best.total,
            std::cmp::Reverse(best.seq.len()),
            std::cmp::Reverse(best.seq.as_slice()),
        )
    }

    /// Whether no extension of the current path (one coupon longer or more)
    /// can beat the best, given an upper bound on its total and the
    /// discounts the unused coupons give now, largest first.
    fn hopeless(&self, bound: i64, total: i64, largest: &[i64]) -> bool {
        let (depth, best_len) = (self.path.len(), self.best.seq.len());
        match bound.cmp(&self.best.total) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => {
                // Only a tie is possible: it must use as many coupons with a
                // smaller sequence (the search runs in lexicographic order,
                // so only the seed can be overtaken so), or fewer coupons.
                let prefix = &self.best.seq[..depth.min(best_len)];
                if depth < best_len && self.path.as_slice() <= prefix {
                    return false;
                }
                if depth + 1 >= best_len {
                    return true;
                }
                let fewer: i64 = largest.iter().take(best_len - 1 - depth).sum();
                total + fewer < self.best.total
            }
        }
    }
}
