//! The best combination of a user's coupons, and the quote.

use crate::support::{coupon, fixed_off, goods, m, now, order, terms_with};
use ledger::domain::{Coupon, Money, best_combination, price, quote};
use serde_json::json;

fn rate(rate_off: &str) -> serde_json::Value {
    json!({"type": "rate", "rate_off": rate_off})
}

fn exclusive(id: &str, t: &str, amount: &str) -> Coupon<String> {
    coupon(
        id,
        t,
        terms_with(fixed_off("0", amount), "goods", "exclusive", json!([])),
    )
}

fn ids(best: &ledger::domain::Best<String>) -> Vec<&str> {
    best.coupon_ids.iter().map(String::as_str).collect()
}

#[test]
fn order_matters_and_the_best_order_is_found() {
    let o = order(&[("a", "c", 1, "60"), ("b", "c", 1, "40")], "0");
    // A needs the full 100 to apply, so it must come before the rate.
    let coupons = [
        coupon("B", "tB", goods(rate("0.1"))),
        coupon("A", "tA", goods(fixed_off("100", "10"))),
    ];
    let best = best_combination(&o, &coupons, now());
    assert_eq!(
        (ids(&best), best.discount, best.payable),
        (vec!["A", "B"], m("19"), m("81"))
    );
    assert!(best.exact);
    // Without a threshold the rate should come first: 10 + 10 beats 10 + 9.
    let coupons = [
        coupon("C", "tC", goods(fixed_off("0", "10"))),
        coupon("B", "tB", goods(rate("0.1"))),
    ];
    let best = best_combination(&o, &coupons, now());
    assert_eq!((ids(&best), best.discount), (vec!["B", "C"], m("20")));
}

#[test]
fn an_exclusive_coupon_stands_alone() {
    let o = order(&[("a", "c", 1, "100")], "10");
    let stack = [
        coupon("A", "tA", goods(fixed_off("0", "10"))),
        coupon("B", "tB", goods(fixed_off("0", "15"))),
    ];
    let mut coupons = stack.to_vec();
    coupons.push(exclusive("X", "tX", "30"));
    assert_eq!(ids(&best_combination(&o, &coupons, now())), vec!["X"]);
    coupons[2] = exclusive("X", "tX", "20");
    assert_eq!(ids(&best_combination(&o, &coupons, now())), vec!["A", "B"]);
}

#[test]
fn one_coupon_per_template_and_one_shipping_coupon() {
    let o = order(&[("a", "c", 1, "100")], "10");
    let shipping = |id: &str, t: &str, amount: &str| {
        coupon(
            id,
            t,
            terms_with(fixed_off("0", amount), "shipping", "stackable", json!([])),
        )
    };
    let coupons = [
        coupon("A1", "tA", goods(fixed_off("0", "10"))),
        coupon("A2", "tA", goods(fixed_off("0", "10"))),
        shipping("S1", "tS1", "3"),
        shipping("S2", "tS2", "8"),
    ];
    let best = best_combination(&o, &coupons, now());
    assert_eq!((ids(&best), best.discount), (vec!["A1", "S2"], m("18")));
    let p = price(&o, &[coupons[0].clone(), coupons[3].clone()], now()).unwrap();
    assert_eq!((p.discount, p.payable), (best.discount, best.payable));
}

#[test]
fn ties_prefer_fewer_coupons_then_input_order() {
    let o = order(&[("a", "c", 1, "100")], "0");
    let coupons = [
        coupon("A", "tA", goods(fixed_off("0", "10"))),
        coupon("B", "tB", goods(fixed_off("0", "10"))),
        exclusive("X", "tX", "20"),
        exclusive("Y", "tY", "20"),
    ];
    assert_eq!(ids(&best_combination(&o, &coupons, now())), vec!["X"]);
    let coupons = [exclusive("Y", "tY", "5"), exclusive("X", "tX", "5")];
    assert_eq!(ids(&best_combination(&o, &coupons, now())), vec!["Y"]);
}

#[test]
fn nothing_usable_means_no_discount() {
    let o = order(&[("a", "c", 1, "10")], "5");
    let coupons = [coupon("A", "tA", goods(fixed_off("100", "10")))];
    let best = best_combination(&o, &coupons, now());
    assert!(best.coupon_ids.is_empty());
    assert_eq!((best.discount, best.payable), (Money::ZERO, m("15")));
    assert!(
        best_combination::<String>(&o, &[], now())
            .coupon_ids
            .is_empty()
    );
}

#[test]
fn the_quote_lists_every_coupon_with_its_own_discount() {
    let o = order(&[("a", "c", 1, "100")], "0");
    let coupons = [
        coupon("A", "tA", goods(fixed_off("0", "10"))),
        coupon("B", "tB", goods(fixed_off("200", "50"))),
    ];
    let q = quote(&o, &coupons, now(), false, &[]);
    assert_eq!(
        (q.coupons[0].usable, q.coupons[0].discount),
        (true, m("10"))
    );
    assert!(!q.coupons[1].usable);
    assert_eq!(
        q.coupons[1].reason.as_ref().map(|r| r.code()),
        Some("below_threshold")
    );
    assert_eq!(ids(&q.best), vec!["A"]);
    assert!(!q.truncated);
}

/// More candidates than one quote searches: the highest single discounts
/// are searched, listed first, and the quote says it was truncated.
#[test]
fn a_wallet_past_the_search_bound_searches_the_highest_discounts_first() {
    let o = order(&[("a", "c", 1, "1000")], "0");
    let n = ledger::domain::quote::SEARCH_BOUND + 50;
    let coupons: Vec<Coupon<String>> = (0..n)
        .map(|i| {
            exclusive(
                &format!("C{i}"),
                &format!("t{i}"),
                &format!("{}", 1 + i % 97),
            )
        })
        .collect();
    let q = quote(&o, &coupons, now(), false, &[]);
    assert!(q.truncated);
    assert_eq!(q.coupons.len(), ledger::domain::quote::SEARCH_BOUND);
    assert_eq!(
        q.coupons[0].discount,
        m("97"),
        "the highest single discount first"
    );
    assert!(q.coupons.windows(2).all(|w| w[0].discount >= w[1].discount));
    assert_eq!(q.best.discount, m("97"));
    let small = quote(&o, &coupons[..3], now(), true, &[]);
    assert!(small.truncated, "the caller left some out");
}

/// Five stackable templates on one order; the two largest alone are the
/// two whose copies filled the old bound's 200 places.
fn five_stackable() -> Vec<(String, ledger::domain::Terms)> {
    vec![
        ("t0".into(), goods(fixed_off("0", "40"))),
        ("t1".into(), goods(fixed_off("0", "35"))),
        ("t2".into(), goods(rate("0.1"))),
        ("t3".into(), goods(fixed_off("100", "12"))),
        ("t4".into(), goods(fixed_off("0", "8"))),
    ]
}

/// A wallet holding many copies of each of 5 templates quotes as one
/// holding a single copy of each: an order takes at most one coupon of a
/// template, so the copies never crowd the others out of the search.
#[test]
fn copies_of_a_template_do_not_crowd_others_out_of_the_search() {
    let o = order(&[("a", "c", 1, "300"), ("b", "c", 2, "50")], "0");
    let one_each: Vec<Coupon<String>> = five_stackable()
        .into_iter()
        .map(|(t, terms)| coupon(&format!("{t}-0"), &t, terms))
        .collect();
    let best_of_five = best_combination(&o, &one_each, now());
    assert_eq!(best_of_five.coupon_ids.len(), 5, "every template helps");
    for copies in [2, 20, 100, 1_000] {
        let wallet: Vec<Coupon<String>> = (0..copies)
            .flat_map(|k| {
                five_stackable()
                    .into_iter()
                    .map(move |(t, terms)| coupon(&format!("{t}-{k}"), &t, terms))
            })
            .collect();
        let q = quote(&o, &wallet, now(), false, &[]);
        assert_eq!(q.best.discount, best_of_five.discount, "{copies} copies");
        assert_eq!(q.coupons.len(), 5, "one listed per template");
        assert!(!q.truncated, "5 templates are within the bound");
        let mut templates: Vec<&str> = q.best.coupon_ids.iter().map(|id| &id[..2]).collect();
        templates.sort_unstable();
        templates.dedup();
        assert_eq!(templates.len(), q.best.coupon_ids.len(), "one of each");
    }
}

/// Of a template's copies the quote offers the one expiring first.
#[test]
fn of_a_templates_copies_the_one_expiring_first_is_offered() {
    let o = order(&[("a", "c", 1, "100")], "0");
    let mut later = coupon("late", "tA", goods(fixed_off("0", "10")));
    let mut sooner = coupon("soon", "tA", goods(fixed_off("0", "10")));
    later.validity.expires_at = now() + chrono::Duration::days(9);
    sooner.validity.expires_at = now() + chrono::Duration::days(2);
    let q = quote(&o, &[later, sooner], now(), false, &[]);
    assert_eq!(ids(&q.best), vec!["soon"]);
    assert_eq!(q.coupons.len(), 1);
}

/// A coupon whose discount alone is more than its template's budget has
/// left is unusable (`budget_exhausted`) and left out of the best; one
/// that fits, and one whose template has no budget, are not.
#[test]
fn a_coupon_its_budget_cannot_pay_is_unusable_and_out_of_the_best() {
    let o = order(&[("a", "c", 1, "100")], "0");
    let wallet = [
        coupon("big", "tA", goods(fixed_off("0", "30"))),
        coupon("small", "tB", goods(fixed_off("0", "10"))),
        coupon("open", "tC", goods(fixed_off("0", "5"))),
    ];
    let money = |s: &str| ledger::domain::money::Money::parse(s).unwrap();
    let budgets = [
        ("tA".to_owned(), money("29.99")),
        ("tB".to_owned(), money("10.00")),
    ];
    let q = quote(&o, &wallet, now(), false, &budgets);
    let big = q.coupons.iter().find(|c| c.coupon_id == "big").unwrap();
    assert!(!big.usable);
    assert_eq!(
        big.reason.as_ref().map(|r| r.code()),
        Some("budget_exhausted")
    );
    assert!(
        q.coupons
            .iter()
            .filter(|c| c.coupon_id != "big")
            .all(|c| c.usable)
    );
    let mut best = ids(&q.best);
    best.sort_unstable();
    assert_eq!(best, vec!["open", "small"]);
}

/// 12 distinct whole-order templates mixing rates and thresholds: every
/// order of them gives a different total.
fn twelve_interacting() -> Vec<Coupon<String>> {
    (0..12)
        .map(|i| {
            let terms = if i % 2 == 0 {
                goods(rate(&format!("0.0{}", 1 + i / 2)))
            } else {
                goods(fixed_off(&format!("{}", 20 * i), &format!("{}", 5 + i)))
            };
            coupon(&format!("k{i}"), &format!("t{i}"), terms)
        })
        .collect()
}

#[test]
fn twelve_interacting_coupons_are_searched_exactly() {
    let lines: Vec<(String, String)> = (0..10)
        .map(|i| (format!("s{i}"), format!("c{}", i % 3)))
        .collect();
    let spec: Vec<(&str, &str, i64, &str)> = lines
        .iter()
        .enumerate()
        .map(|(i, (s, c))| (s.as_str(), c.as_str(), 1 + (i as i64 % 3), "19.90"))
        .collect();
    let o = order(&spec, "0");
    let coupons = twelve_interacting();
    let best = best_combination(&o, &coupons, now());
    assert!(best.exact);
    let chosen: Vec<_> = best
        .coupon_ids
        .iter()
        .map(|id| coupons.iter().find(|c| &c.id == id).unwrap().clone())
        .collect();
    let p = price(&o, &chosen, now()).unwrap();
    assert_eq!((p.discount, p.payable), (best.discount, best.payable));
    // Rates first (they compound on more), the fixed amounts after.
    for single in &coupons {
        let alone = price(&o, std::slice::from_ref(single), now())
            .map(|p| p.discount)
            .unwrap_or_default();
        assert!(best.discount >= alone);
    }
}

#[test]
fn many_candidates_fall_back_to_the_heuristic() {
    let o = order(&[("a", "c", 3, "99.00"), ("b", "d", 2, "45.50")], "0");
    let coupons: Vec<_> = (0..20)
        .map(|i| {
            let terms = if i % 3 == 0 {
                goods(rate("0.05"))
            } else {
                goods(fixed_off(&format!("{}", 10 * i), "3"))
            };
            coupon(&format!("k{i}"), &format!("t{i}"), terms)
        })
        .collect();
    let best = best_combination(&o, &coupons, now());
    assert!(
        !best.exact,
        "20 interacting templates exceed the exact limit"
    );
    let best_single = coupons
        .iter()
        .filter_map(|c| price(&o, std::slice::from_ref(c), now()).ok())
        .map(|p| p.discount)
        .max();
    assert!(Some(best.discount) >= best_single);
    let chosen: Vec<_> = best
        .coupon_ids
        .iter()
        .map(|id| coupons.iter().find(|c| &c.id == id).unwrap().clone())
        .collect();
    assert_eq!(price(&o, &chosen, now()).unwrap().discount, best.discount);
}

#[test]
fn coupons_on_separate_lines_are_searched_group_by_group() {
    // 20 category coupons on 20 categories: 20 independent groups of one.
    let cats: Vec<String> = (0..20).map(|i| format!("c{i}")).collect();
    let spec: Vec<(&str, &str, i64, &str)> =
        cats.iter().map(|c| ("s", c.as_str(), 1, "10.00")).collect();
    let o = order(&spec, "0");
    let coupons: Vec<_> = cats
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let scope = json!([{"kind": "category", "values": [c]}]);
            coupon(
                &format!("k{i}"),
                &format!("t{i}"),
                terms_with(fixed_off("0", "1"), "goods", "stackable", scope),
            )
        })
        .collect();
    let best = best_combination(&o, &coupons, now());
    assert!(best.exact);
    assert_eq!((best.coupon_ids.len(), best.discount), (20, m("20")));
}
