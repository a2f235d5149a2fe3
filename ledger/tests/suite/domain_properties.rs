//! Properties over random orders and coupons: allocations sum exactly,
//! discounts stay within their base, payable ≥ 0, refunds in any sequence
//! return exactly what was paid, the best combination beats every single
//! coupon and every pair, and the integer rounding is the documented one.

use std::collections::BTreeMap;

use crate::support::{always, now};
use ledger::domain::{
    Coupon, DiscountRule, Money, Order, Pricing, RawOrder, RawTerms, Refund, RefundLine,
    Settlement, Terms, best_combination, discount_of, price,
};
use proptest::prelude::*;
use proptest::sample::subsequence;
use rust_decimal::Decimal;
use serde_json::{Value, json};

fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

fn line_strategy() -> impl Strategy<Value = Value> {
    (0..4usize, 0..3usize, 1..6i64, 0..20_000i64).prop_map(|(sku, cat, q, price)| {
        let (sku, category) = (["a", "b", "c", "d"][sku], ["x", "y", "z"][cat]);
        json!({"sku": sku, "category": category, "quantity": q, "unit_price": money(price)})
    })
}

fn order_strategy() -> impl Strategy<Value = Order> {
    let tags = subsequence(vec!["vip", "new"], 0..=2);
    (
        prop::collection::vec(line_strategy(), 1..7),
        0..2_000i64,
        0..2usize,
        tags,
    )
        .prop_map(|(lines, shipping, region, tags)| {
            let lines: Vec<Value> = lines
                .into_iter()
                .enumerate()
                .map(|(i, mut l)| {
                    l["line_id"] = json!(format!("l{i}"));
                    l
                })
                .collect();
            let region = ["r1", "r2"][region];
            let raw: RawOrder = serde_json::from_value(json!({
                "order_id": "o", "user_id": "u", "currency": "CNY", "region": region,
                "user_tags": tags, "lines": lines, "shipping_fee": money(shipping),
            }))
            .unwrap();
            Order::parse(&raw).unwrap()
        })
}

fn rule_strategy() -> impl Strategy<Value = Value> {
    let opt = |s: std::ops::Range<i64>| prop::option::of(s);
    prop_oneof![
        (0..30_000i64, 1..5_000i64).prop_map(
            |(t, a)| json!({"type": "fixed_off", "threshold": money(t), "amount": money(a)})
        ),
        (1..10_000i64, 1..3_000i64, opt(1..10_000)).prop_map(|(s, a, max)| {
            let mut v = json!({"type": "per_threshold_off", "step": money(s), "amount": money(a)});
            if let Some(max) = max {
                v["max_off"] = json!(money(max));
            }
            v
        }),
        (1..=10_000i64, opt(0..20_000), opt(1..10_000)).prop_map(|(basis, t, max)| {
            let rate = if basis == 10_000 {
                "1".to_owned()
            } else {
                format!("0.{basis:04}")
            };
            let mut v = json!({"type": "rate", "rate_off": rate});
            if let Some(t) = t {
                v["threshold"] = json!(money(t));
            }
            if let Some(max) = max {
                v["max_off"] = json!(money(max));
            }
            v
        }),
        prop::collection::vec((1..8_000i64, 0..2_000i64), 1..4).prop_map(|steps| {
            let (mut threshold, mut amount) = (0, 0);
            let tiers: Vec<Value> = steps
                .into_iter()
                .enumerate()
                .map(|(i, (dt, da))| {
                    threshold += if i == 0 { dt - 1 } else { dt };
                    amount += if i == 0 { da + 1 } else { da };
                    json!({"threshold": money(threshold), "amount": money(amount)})
                })
                .collect();
            json!({"type": "ladder", "tiers": tiers})
        }),
    ]
}

fn scope_strategy() -> impl Strategy<Value = Value> {
    let entry = prop_oneof![
        subsequence(vec!["a", "b", "c", "d"], 1..=3)
            .prop_map(|v| json!({"kind": "product", "values": v})),
        subsequence(vec!["x", "y", "z"], 1..=2)
            .prop_map(|v| json!({"kind": "category", "values": v})),
        subsequence(vec!["r1", "r2"], 1..=1).prop_map(|v| json!({"kind": "region", "values": v})),
        subsequence(vec!["vip", "new"], 1..=1)
            .prop_map(|v| json!({"kind": "user_tag", "values": v})),
    ];
    prop::collection::vec(entry, 0..3).prop_map(Value::from)
}

fn terms_strategy() -> impl Strategy<Value = Terms> {
    let kind = prop_oneof![6 => Just("goods"), 1 => Just("shipping")];
    let stacking = prop_oneof![4 => Just("stackable"), 1 => Just("exclusive")];
    (kind, stacking, rule_strategy(), scope_strategy()).prop_map(|(kind, stacking, rule, scope)| {
        let raw: RawTerms = serde_json::from_value(json!({
            "kind": kind, "currency": "CNY", "discount": rule, "face_value": "1.00",
            "validity": {"type": "relative", "begin_days": 0, "end_days": 7},
            "stacking": stacking, "use_scope": scope,
        }))
        .unwrap();
        Terms::parse(&raw).unwrap()
    })
}

/// A wallet of up to `max` coupons over up to 6 templates (so some share one).
fn wallet_strategy(max: usize) -> impl Strategy<Value = Vec<Coupon<usize>>> {
    (
        prop::collection::vec(terms_strategy(), 1..7),
        prop::collection::vec(0..6usize, 0..=max),
    )
        .prop_map(|(templates, picks)| {
            picks
                .into_iter()
                .enumerate()
                .map(|(id, t)| {
                    let t = t % templates.len();
                    Coupon {
                        id,
                        template_sn: format!("T{t}"),
                        terms: templates[t].clone(),
                        validity: always(),
                    }
                })
                .collect()
        })
}

fn check_pricing(order: &Order, p: &Pricing<usize>) {
    let mut per_coupon: BTreeMap<usize, i64> = BTreeMap::new();
    let mut per_line: BTreeMap<Option<String>, i64> = BTreeMap::new();
    for a in &p.allocations {
        assert!(a.amount > Money::ZERO);
        *per_coupon.entry(a.coupon_id).or_default() += a.amount.cents();
        *per_line.entry(a.line_id.clone()).or_default() += a.amount.cents();
    }
    for c in &p.coupons {
        assert_eq!(
            per_coupon.get(&c.coupon_id).copied(),
            Some(c.discount.cents()),
            "parts sum to the discount"
        );
    }
    for (line, cents) in &per_line {
        let base = match line {
            Some(id) => order.lines()[order.line_index(id).unwrap()].amount(),
            None => order.shipping_fee(),
        };
        assert!(
            *cents <= base.cents(),
            "a line never gives more than it costs"
        );
    }
    let sum: i64 = p.coupons.iter().map(|c| c.discount.cents()).sum();
    assert_eq!(sum, p.discount.cents());
    assert_eq!(p.payable.cents(), order.total().cents() - sum);
}

/// Splits every line's units into chunks and interleaves them by `keys`.
fn refund_plan(order: &Order, cuts: &[u32], keys: &[u32]) -> Vec<Vec<RefundLine>> {
    let mut chunks: Vec<(u32, RefundLine)> = Vec::new();
    let mut k = 0;
    for line in order.lines() {
        let mut left = line.quantity();
        while left > 0 {
            let take = (cuts[k % cuts.len()] % left) + 1;
            chunks.push((
                keys[k % keys.len()],
                RefundLine {
                    line_id: line.line_id().to_owned(),
                    quantity: take,
                },
            ));
            left -= take;
            k += 1;
        }
    }
    chunks.sort_by_key(|c| c.0);
    chunks.into_iter().map(|c| vec![c.1]).collect()
}

/// A wallet of up to `max` stackable goods coupons of distinct templates,
/// all on the whole order: the search's one-scope case (its memo).
fn whole_order_wallet(max: usize) -> impl Strategy<Value = Vec<Coupon<usize>>> {
    prop::collection::vec(rule_strategy(), 1..=max).prop_map(|rules| {
        rules
            .into_iter()
            .enumerate()
            .map(|(id, rule)| {
                let raw: RawTerms = serde_json::from_value(json!({
                    "kind": "goods", "currency": "CNY", "discount": rule, "face_value": "1.00",
                    "validity": {"type": "relative", "begin_days": 0, "end_days": 7},
                    "stacking": "stackable", "use_scope": [],
                }))
                .unwrap();
                Coupon {
                    id,
                    template_sn: format!("T{id}"),
                    terms: Terms::parse(&raw).unwrap(),
                    validity: always(),
                }
            })
            .collect()
    })
}

/// The best sequence by the documented ranking (more discount, then fewer
/// coupons, then the smaller sequence of positions), over every sequence of
/// distinct coupons `price` accepts (extending only accepted prefixes: a
/// refused prefix stays refused whatever follows).
fn best_ranked(
    order: &Order,
    wallet: &[Coupon<usize>],
    sequence: &mut Vec<usize>,
    best: &mut (i64, Vec<usize>),
) {
    for next in 0..wallet.len() {
        if sequence.contains(&next) {
            continue;
        }
        sequence.push(next);
        let coupons: Vec<_> = sequence.iter().map(|&i| wallet[i].clone()).collect();
        if let Ok(p) = price(order, &coupons, now()) {
            let key = |d: i64, s: &[usize]| {
                (d, std::cmp::Reverse(s.len()), std::cmp::Reverse(s.to_vec()))
            };
            if key(p.discount.cents(), sequence) > key(best.0, &best.1) {
                *best = (p.discount.cents(), sequence.clone());
            }
            best_ranked(order, wallet, sequence, best);
        }
        sequence.pop();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn a_single_coupon_never_discounts_more_than_its_base(order in order_strategy(), wallet in wallet_strategy(4)) {
        for c in &wallet {
            if let Ok(d) = discount_of(&order, c, now()) {
                let in_scope: i64 = order.lines().iter().filter(|l| c.terms.scope().covers_line(l)).map(|l| l.amount().cents()).sum();
                let base = match c.terms.kind() {
                    ledger::domain::Kind::Goods => in_scope,
                    ledger::domain::Kind::Shipping => order.shipping_fee().cents(),
                };
                prop_assert!(d.cents() > 0 && d.cents() <= base);
                let p = price(&order, std::slice::from_ref(c), now()).unwrap();
                prop_assert_eq!(p.discount, d);
                check_pricing(&order, &p);
            }
        }
    }

    #[test]
    fn combinations_allocate_exactly_and_payable_stays_non_negative(
        order in order_strategy(), wallet in wallet_strategy(5), seed in any::<u64>()
    ) {
        // A few orders of the wallet, as given and rotated.
        for r in 0..wallet.len().max(1) {
            let mut coupons = wallet.clone();
            coupons.rotate_left(r);
            coupons.truncate(1 + (seed as usize + r) % coupons.len().max(1));
            if let Ok(p) = price(&order, &coupons, now()) {
                check_pricing(&order, &p);
                prop_assert!(p.payable >= Money::ZERO);
            }
        }
    }

    #[test]
    fn refunding_every_unit_in_any_sequence_returns_exactly_what_was_paid(
        order in order_strategy(),
        wallet in wallet_strategy(5),
        cuts in prop::collection::vec(0..6u32, 1..8),
        keys in prop::collection::vec(any::<u32>(), 1..12),
    ) {
        let best = best_combination(&order, &wallet, now());
        let chosen: Vec<_> = best.coupon_ids.iter().map(|&i| wallet[i].clone()).collect();
        let p = price(&order, &chosen, now()).unwrap();
        let s = Settlement::new(&order, &p.allocations).unwrap();
        prop_assert_eq!(s.paid(), p.payable);
        let mut past: Vec<Refund<usize>> = Vec::new();
        let mut returned: Vec<usize> = Vec::new();
        for request in refund_plan(&order, &cuts, &keys) {
            let refund = s.refund(&past, &request).unwrap();
            let lines: i64 = refund.lines.iter().map(|l| l.amount.cents()).sum();
            let shipping = refund.shipping.as_ref().map_or(0, |s| s.amount.cents());
            prop_assert_eq!(refund.amount.cents(), lines + shipping);
            returned.extend(refund.coupons_returned.iter().copied());
            past.push(refund);
        }
        let refunded: i64 = past.iter().map(|r| r.amount.cents()).sum();
        prop_assert_eq!(refunded, p.payable.cents(), "exactly what was paid");
        let mut reversed: BTreeMap<usize, i64> = BTreeMap::new();
        for r in &past {
            for rev in r.lines.iter().flat_map(|l| &l.reversals).chain(r.shipping.iter().flat_map(|s| &s.reversals)) {
                *reversed.entry(rev.coupon_id).or_default() += rev.amount.cents();
            }
        }
        for c in &p.coupons {
            prop_assert_eq!(reversed.get(&c.coupon_id).copied(), Some(c.discount.cents()), "each allocation reversed exactly");
        }
        returned.sort_unstable();
        let mut expected: Vec<usize> = p.coupons.iter().map(|c| c.coupon_id).collect();
        expected.sort_unstable();
        prop_assert_eq!(returned, expected, "every coupon released exactly once");
        prop_assert!(past.last().is_none_or(|r| r.coupons.iter().all(|c| c.released)));
    }

    #[test]
    fn the_best_combination_beats_every_single_coupon_and_every_pair(
        order in order_strategy(), wallet in wallet_strategy(8)
    ) {
        let best = best_combination(&order, &wallet, now());
        let chosen: Vec<_> = best.coupon_ids.iter().map(|&i| wallet[i].clone()).collect();
        let p = price(&order, &chosen, now()).unwrap();
        prop_assert_eq!((p.discount, p.payable), (best.discount, best.payable));
        prop_assert!(best.exact, "at most 8 candidates are searched exactly");
        for a in &wallet {
            if let Ok(d) = discount_of(&order, a, now()) {
                prop_assert!(best.discount >= d);
            }
            for b in &wallet {
                if let Ok(pair) = price(&order, &[a.clone(), b.clone()], now()) {
                    prop_assert!(best.discount >= pair.discount, "pair {} {}", a.id, b.id);
                }
            }
        }
    }

    #[test]
    fn the_best_combination_matches_a_brute_force_search(
        order in order_strategy(), wallet in wallet_strategy(6)
    ) {
        let best = best_combination(&order, &wallet, now());
        let mut brute = (0, Vec::new());
        best_ranked(&order, &wallet, &mut Vec::new(), &mut brute);
        prop_assert_eq!(best.discount.cents(), brute.0);
    }

    #[test]
    fn on_one_scope_the_best_sequence_and_its_ties_match_a_brute_force_search(
        order in order_strategy(), wallet in whole_order_wallet(6)
    ) {
        let best = best_combination(&order, &wallet, now());
        let mut brute = (0, Vec::new());
        best_ranked(&order, &wallet, &mut Vec::new(), &mut brute);
        prop_assert!(best.exact);
        prop_assert_eq!((best.discount.cents(), best.coupon_ids), brute);
    }

    #[test]
    fn rate_discounts_round_half_up_like_decimal(base in 0..100_000_000i64, basis in 1..=10_000i64) {
        let rate = if basis == 10_000 { "1".to_owned() } else { format!("0.{basis:04}") };
        let raw = serde_json::from_value(json!({"type": "rate", "rate_off": rate})).unwrap();
        let rule = DiscountRule::parse(&raw).unwrap();
        let base = Money::parse(&money(base)).unwrap();
        let exact = base.as_decimal() * Decimal::new(basis, 4);
        let expected = Money::round_half_up(exact).unwrap().min(base);
        prop_assert_eq!(rule.discount_for(base).unwrap(), expected);
    }

    #[test]
    fn amounts_parse_without_panicking(s in "\\PC{0,24}", digits in "[0-9]{1,12}(\\.[0-9]{1,3})?") {
        if let Ok(m) = Money::parse(&s) {
            prop_assert_eq!(Money::parse(&m.to_string()), Ok(m));
        }
        let parsed = Money::parse(&digits);
        let decimals = digits.split_once('.').map_or(0, |(_, f)| f.trim_end_matches('0').len());
        prop_assert_eq!(parsed.is_ok(), decimals <= 2, "at most 12 integer digits fit under Money::MAX");
        if let Ok(m) = parsed {
            prop_assert_eq!(m.as_decimal(), digits.parse::<Decimal>().unwrap());
        }
    }
}
