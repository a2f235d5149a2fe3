//! The exact search over the sequences of one group of interacting
//! templates: depth first in input order, branch and bound (see `best`).

use std::cmp::Ordering;
use std::collections::HashSet;

use super::{Candidate, Combo, NODE_BUDGET};
use crate::domain::discount::Remaining;

/// Fixed-point scale of the products of `1 − rate_off` in the bound.
const UNIT: i64 = 1_000_000_000;

/// Exact depth-first search over the sequences of one group.
pub(super) struct Search<'g, 'c, 'a> {
    group: &'g [&'c Candidate<'a>],
    /// What is left of each line (kept only when not `one_scope`).
    left: Remaining,
    /// The order lines any candidate of the group touches.
    lines: Vec<usize>,
    /// Cents left on the group's lines before any coupon.
    start: i64,
    /// Every candidate covers all of `lines`: each discount is then a
    /// function of what is left of them in all (`start − total`), and so
    /// is the future. The search then neither splits discounts over lines
    /// nor keeps `left` (the chosen sequence is replayed line by line).
    one_scope: bool,
    /// `overlaps[i][j]`: candidates i and j share a line (else they commute).
    overlaps: Vec<Vec<bool>>,
    /// Per order line, scratch space for the bound (see `rate_bound`).
    keep: Vec<i64>,
    /// `partly[i][j]`: j covers some but not all of i's lines.
    partly: Vec<Vec<bool>>,
    path: Vec<usize>,
    /// The states reached so far, with `one_scope` (see `reached_before`):
    /// the used set and what is left in all. At most one per node, so
    /// bounded by the node budget.
    reached: HashSet<(u16, i64)>,
    pub(super) best: Combo,
    nodes: usize,
    pub(super) out_of_budget: bool,
}

impl<'g, 'c, 'a> Search<'g, 'c, 'a> {
    pub(super) fn new(group: &'g [&'c Candidate<'a>], full: &Remaining, incumbent: Combo) -> Self {
        let mut lines: Vec<usize> = group
            .iter()
            .flat_map(|c| c.prepared.lines.iter().copied())
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let start = lines.iter().map(|&i| full.lines[i]).sum();
        let one_scope = group.iter().all(|c| c.prepared.lines == lines);
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
            one_scope,
            overlaps,
            keep: vec![UNIT; full.lines.len()],
            partly,
            path: Vec::new(),
            reached: HashSet::new(),
            best: incumbent,
            nodes: 0,
            out_of_budget: false,
        }
    }

    pub(super) fn visit(&mut self, used: u16, total: i64) {
        if self.reached_before(used, total) {
            return;
        }
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
            .filter_map(|p| Some((p, self.discount(p, total)?)))
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
            let parts = (!self.one_scope).then(|| {
                let parts = self.group[p].prepared.split(&self.left, discount);
                self.left.take(&parts);
                parts
            });
            self.path.push(p);
            self.visit(used | (1 << p), total + discount);
            self.path.pop();
            if let Some(parts) = parts {
                self.left.give_back(&parts);
            }
        }
    }

    /// What candidate `p` would discount now, after `total` was taken.
    fn discount(&self, p: usize, total: i64) -> Option<i64> {
        let prepared = &self.group[p].prepared;
        prepared.discount_on(self.base(p, total)).ok()
    }

    /// What candidate `p` would discount from now.
    fn base(&self, p: usize, total: i64) -> i64 {
        if self.one_scope {
            self.start - total
        } else {
            self.group[p].prepared.base(&self.left)
        }
    }

    /// An upper bound on what the coupons in `options` (those that still
    /// give something) can add, in any subset and order. Each coupon gives at
    /// most what it gives now (discounts only shrink with their base),
    /// nothing takes more than is left, and rates compound (`rate_bound`).
    fn future_bound(&mut self, total: i64, options: &[(usize, i64)]) -> i64 {
        let left = self.start - total;
        let optimistic: i64 = options.iter().map(|o| o.1).sum();
        optimistic.min(left).min(self.rate_bound(total, options))
    }

    /// Rate coupons (rate_off < 0.5, cap not reached) compound: whatever
    /// the order, line `l` keeps at least `r_l · Π(1 − rate)` of the rates
    /// covering it, less what the other coupons take, each at most what it
    /// gives now. So the future discount is at most
    /// `left − Σ r_l·Π(1 − rate) + Σ others` plus what rounding can add per
    /// rate (`rounding_slack`). Fixed-point products round down, which only
    /// raises the bound.
    fn rate_bound(&mut self, total: i64, options: &[(usize, i64)]) -> i64 {
        let left = self.start - total;
        let mut others = 0;
        let mut rates: Vec<(usize, i64)> = Vec::new();
        for &(p, discount) in options {
            let prepared = &self.group[p].prepared;
            // A capped rate gives at most its cap from here on, like a fixed
            // amount: counting it so is tighter than letting it compound.
            let base = self.base(p, total);
            let uncapped = |basis: &i128| i128::from(discount) >= i128::from(base) * basis / 10_000;
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
        let kept = self.kept(left);
        let kept = i64::try_from(kept / i128::from(UNIT)).unwrap_or(0);
        left - kept + others + slack
    }

    /// `Σ left_l · keep_l` over the group's lines (in 1/UNIT cents), then
    /// every `keep_l` reset. With `one_scope`, every rate covers every line,
    /// so `keep` is the same on all of them: `left · keep`.
    fn kept(&mut self, left: i64) -> i128 {
        let kept = if self.one_scope {
            i128::from(left) * i128::from(self.keep[self.lines[0]])
        } else {
            // i64 per line when it fits (lines under ~92 million): i128 is slower.
            let line = |l: usize| match self.left.lines[l].checked_mul(self.keep[l]) {
                Some(product) => i128::from(product),
                None => i128::from(self.left.lines[l]) * i128::from(self.keep[l]),
            };
            self.lines.iter().map(|&l| line(l)).sum()
        };
        for &l in &self.lines {
            self.keep[l] = UNIT;
        }
        kept
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

    /// Whether, with `one_scope`, another path reached this state (the same
    /// coupons used, the same cents left in all) before this one. The
    /// future depends only on the state, and so does the total, so every
    /// completion of this path ties one of that path's on discount and
    /// length and loses on the sequence: the depth-first search runs in
    /// input order, so that path was smaller. What the earlier visit pruned
    /// could not beat the best then, and the best only improved since.
    /// Orders of the same coupons that round alike (rates compound, fixed
    /// amounts add) meet here: 12 adversarial candidates take 833 nodes,
    /// not the budget. Without `one_scope` the state is every line's cents,
    /// which different orders rarely share: hashing them cost more than
    /// the merges saved (docs/benchmarks.md, issue 51).
    fn reached_before(&mut self, used: u16, total: i64) -> bool {
        self.one_scope && self.path.len() >= 2 && !self.reached.insert((used, self.start - total))
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
