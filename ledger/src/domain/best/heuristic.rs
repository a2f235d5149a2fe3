//! The heuristic for groups too large (or too adversarial) for the exact
//! search: greedy by current discount, the best ordered pair, then
//! first-improvement local search (remove, insert, swap, replace).

use super::{Candidate, Combo, HEURISTIC_BUDGET, PAIR_LIMIT, evaluate, evaluate_from, prefixes};
use crate::domain::discount::Remaining;

/// Greedy by current discount, the best ordered pair, then local search.
pub(super) fn heuristic(group: &[&Candidate<'_>], full: &Remaining) -> Combo {
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
pub(super) fn greedy(group: &[&Candidate<'_>], full: &Remaining) -> Combo {
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
/// moves until none improves or the budget of coupon applications is spent.
/// A move keeps the sequence up to its first change, so only the rest is
/// replayed, from the cached prefix states.
fn improve(group: &[&Candidate<'_>], full: &Remaining, mut best: Combo) -> Combo {
    let mut budget = HEURISTIC_BUDGET;
    'rounds: while budget > best.seq.len() {
        budget -= best.seq.len();
        let current = best.seq.clone();
        let cached = prefixes(group, &current, full);
        for (from, seq) in neighbours(&current, group.len()) {
            let cost = seq.len() - from;
            if cost > budget {
                break 'rounds;
            }
            budget -= cost;
            let (left, taken) = &cached[from];
            if let Some(total) = evaluate_from(group, &seq[from..], left, *taken) {
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

/// The sequences one move away from `seq` (positions drawn from `0..n`),
/// each with the index of its first change.
fn neighbours(seq: &[usize], n: usize) -> impl Iterator<Item = (usize, Vec<usize>)> + '_ {
    let unused: Vec<usize> = (0..n).filter(|p| !seq.contains(p)).collect();
    let len = seq.len();
    let removals = (0..len).map(move |i| (i, [&seq[..i], &seq[i + 1..]].concat()));
    let unused_for_insert = unused.clone();
    let inserts = (0..=len).flat_map(move |i| {
        let unused = unused_for_insert.clone();
        unused
            .into_iter()
            .map(move |u| (i, [&seq[..i], &[u], &seq[i..]].concat()))
    });
    let swaps = (0..len).flat_map(move |i| {
        (i + 1..len).map(move |j| {
            let mut s = seq.to_vec();
            s.swap(i, j);
            (i, s)
        })
    });
    let replaces = (0..len).flat_map(move |i| {
        unused.clone().into_iter().map(move |u| {
            let mut s = seq.to_vec();
            s[i] = u;
            (i, s)
        })
    });
    removals.chain(inserts).chain(swaps).chain(replaces)
}
