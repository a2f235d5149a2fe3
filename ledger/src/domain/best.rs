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
//!   first with branch and bound (a coupon's discount only shrinks as what is
//!   left shrinks, so "what each unused coupon gives now" bounds the future),
//!   pruning a state already reached with as much discount; larger groups,
//!   and groups whose search exceeds its node budget, use the heuristic
//!   (greedy by current discount, the best pair, then local improvement),
//!   which also seeds the exact search, so the answer is never worse than the
//!   best single coupon or (for groups of ≤ 24) the best pair.
//!
//! Ties: the larger discount, then fewer coupons, then the sequence of input
//! positions that is smaller lexicographically.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::coupon::Coupon;
use crate::domain::discount::{Prepared, Remaining};
use crate::domain::money::Money;
use crate::domain::order::Order;
use crate::domain::terms::{Kind, Stacking};

/// The most templates of one interacting group searched exactly.
pub const EXACT_LIMIT: usize = 12;
/// Nodes the exact search of one group may visit before it settles for
/// the best found so far (bounds the time of any quote).
const NODE_BUDGET: usize = 20_000;
/// Memo cells (states × lines) the exact search may keep, ≈ 8 MB.
const MEMO_CELLS: usize = 1 << 20;
/// Sequence evaluations the heuristic may spend improving one group.
const HEURISTIC_BUDGET: usize = 4_000;
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
    let mut left = full.clone();
    let mut total = 0;
    for &p in seq {
        let prepared = &group[p].prepared;
        let discount = prepared.discount(&left).ok()?;
        left.take(&prepared.split(&left, discount));
        total += discount;
    }
    Some(total)
}

/// Greedy by current discount, the best ordered pair, then local search.
fn heuristic(group: &[&Candidate<'_>], full: &Remaining) -> Combo {
    let mut best = greedy(group, full);
    if group.len() <= PAIR_LIMIT {
        for a in 0..group.len() {
            for b in (0..group.len()).filter(|&b| b != a) {
                if let Some(total) = evaluate(group, &[a, b], full) {
                    let pair = Combo {
                        total,
                        seq: vec![a, b],
                    };
                    if pair.better_than(&best) {
                        best = pair;
                    }
                }
            }
        }
    }
    improve(group, full, best)
}

/// Repeatedly applies the coupon that gives the most on what is left.
fn greedy(group: &[&Candidate<'_>], full: &Remaining) -> Combo {
    let mut left = full.clone();
    let mut combo = Combo::default();
    let mut used = vec![false; group.len()];
    loop {
        let pick = (0..group.len())
            .filter(|&p| !used[p])
            .filter_map(|p| group[p].prepared.discount(&left).ok().map(|d| (p, d)))
            .min_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let Some((p, discount)) = pick else {
            return combo;
        };
        left.take(&group[p].prepared.split(&left, discount));
        used[p] = true;
        combo.total += discount;
        combo.seq.push(p);
    }
}

/// First-improvement local search over remove / insert / swap / replace
/// moves until none improves or the evaluation budget is spent.
fn improve(group: &[&Candidate<'_>], full: &Remaining, mut best: Combo) -> Combo {
    let mut budget = HEURISTIC_BUDGET;
    'rounds: while budget > 0 {
        let current = best.seq.clone();
        for seq in neighbours(&current, group.len()) {
            if budget == 0 {
                break 'rounds;
            }
            budget -= 1;
            if let Some(total) = evaluate(group, &seq, full) {
                let candidate = Combo { total, seq };
                if candidate.better_than(&best) {
                    best = candidate;
                    continue 'rounds;
                }
            }
        }
        break;
    }
    best
}

/// The sequences one move away from `seq` (positions drawn from `0..n`).
fn neighbours(seq: &[usize], n: usize) -> impl Iterator<Item = Vec<usize>> + '_ {
    let unused: Vec<usize> = (0..n).filter(|p| !seq.contains(p)).collect();
    let len = seq.len();
    let removals = (0..len).map(move |i| [&seq[..i], &seq[i + 1..]].concat());
    let unused_for_insert = unused.clone();
    let inserts = (0..=len).flat_map(move |i| {
        unused_for_insert
            .clone()
            .into_iter()
            .map(move |u| [&seq[..i], &[u], &seq[i..]].concat())
    });
    let swaps = (0..len).flat_map(move |i| {
        (i + 1..len).map(move |j| {
            let mut s = seq.to_vec();
            s.swap(i, j);
            s
        })
    });
    let replaces = (0..len).flat_map(move |i| {
        unused.clone().into_iter().map(move |u| {
            let mut s = seq.to_vec();
            s[i] = u;
            s
        })
    });
    removals.chain(inserts).chain(swaps).chain(replaces)
}

/// Exact depth-first search over the sequences of one group.
struct Search<'g, 'c, 'a> {
    group: &'g [&'c Candidate<'a>],
    left: Remaining,
    /// The lines any candidate of the group touches: the memo key's domain.
    lines: Vec<usize>,
    /// Cents left on those lines before any coupon.
    start: i64,
    path: Vec<usize>,
    best: Combo,
    /// (used set, what is left on the group's lines) of the states visited.
    /// Same state ⇒ same total (the total is what left the group's lines).
    seen: HashSet<(u16, Vec<i64>)>,
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
        Search {
            group,
            left: full.clone(),
            lines,
            start,
            path: Vec::new(),
            best: incumbent,
            seen: HashSet::new(),
            nodes: 0,
            out_of_budget: false,
        }
    }

    fn visit(&mut self, used: u16, total: i64) {
        let here = Combo {
            total,
            seq: self.path.clone(),
        };
        if here.better_than(&self.best) {
            self.best = here;
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
        // Each coupon's discount can only shrink from here on, and nothing
        // can take more than is left on the group's lines.
        let optimistic: i64 = options.iter().map(|o| o.1).sum();
        let bound = total + optimistic.min(self.start - total);
        for (p, discount) in options {
            if self.out_of_budget || self.hopeless(bound) {
                return;
            }
            let parts = self.group[p].prepared.split(&self.left, discount);
            self.left.take(&parts);
            if self.first_time(used | (1 << p)) {
                self.path.push(p);
                self.visit(used | (1 << p), total + discount);
                self.path.pop();
            }
            self.left.give_back(&parts);
        }
    }

    /// Whether no extension of the current path (one coupon longer or more)
    /// can beat the best, given an upper bound on its total.
    fn hopeless(&self, bound: i64) -> bool {
        let longer = self.path.len() + 1;
        match bound.cmp(&self.best.total) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => {
                // Only a tie is possible: it must use fewer coupons, or as
                // many with a smaller sequence. The search runs in
                // lexicographic order, so only the seed can be overtaken so.
                let prefix = &self.best.seq[..self.path.len().min(self.best.seq.len())];
                longer > self.best.seq.len()
                    || (longer == self.best.seq.len() && self.path.as_slice() > prefix)
            }
        }
    }

    /// Records reaching a state; false if it was reached before, then by a
    /// lexicographically smaller path with the same coupons and total, whose
    /// subtree was already searched.
    fn first_time(&mut self, used: u16) -> bool {
        if self.seen.len() * self.lines.len().max(1) >= MEMO_CELLS {
            return true;
        }
        self.seen.insert((
            used,
            self.lines.iter().map(|&i| self.left.lines[i]).collect(),
        ))
    }
}
