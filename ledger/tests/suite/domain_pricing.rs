//! One coupon's discount (each rule at, below and above its threshold, caps,
//! shipping, scopes), combinations (stacking), allocation and payable.

use crate::support::{coupon, fixed_off, goods, m, now, order, order_in, terms_with};
use ledger::domain::{
    Allocation, Money, NotApplicable, RefusalReason, ScopeKind, StackingViolation, Terms,
    discount_of, price,
};
use serde_json::{Value, json};

/// The discount of `terms` on a one-line order of `amount`.
fn on(terms: &Terms, amount: &str) -> Result<Money, NotApplicable> {
    let o = order(&[("s1", "c1", 1, amount)], "0");
    discount_of(&o, &coupon("k1", "t1", terms.clone()), now())
}

fn below(threshold: &str, base: &str) -> Result<Money, NotApplicable> {
    Err(NotApplicable::BelowThreshold {
        threshold: m(threshold),
        base: m(base),
    })
}

fn table(rule: Value, cases: &[(&str, Result<Money, NotApplicable>)]) {
    let terms = goods(rule.clone());
    for (amount, expected) in cases {
        assert_eq!(&on(&terms, amount), expected, "{rule} on {amount}");
    }
}

#[test]
fn fixed_off_at_below_and_above_threshold() {
    table(
        fixed_off("100", "10"),
        &[
            ("99.99", below("100", "99.99")),
            ("100.00", Ok(m("10"))),
            ("150.00", Ok(m("10"))),
        ],
    );
    // A discount never exceeds its base.
    table(
        fixed_off("0", "10"),
        &[("5.00", Ok(m("5"))), ("0.01", Ok(m("0.01")))],
    );
}

#[test]
fn per_threshold_off_counts_whole_steps_and_caps() {
    let rule = json!({"type": "per_threshold_off", "step": "100", "amount": "10", "max_off": "25"});
    table(
        rule,
        &[
            ("99.99", below("100", "99.99")),
            ("100.00", Ok(m("10"))),
            ("199.99", Ok(m("10"))),
            ("200.00", Ok(m("20"))),
            ("300.00", Ok(m("25"))),
            ("10000.00", Ok(m("25"))),
        ],
    );
    let uncapped = json!({"type": "per_threshold_off", "step": "100", "amount": "10"});
    table(
        uncapped,
        &[("1000.00", Ok(m("100"))), ("1099.00", Ok(m("100")))],
    );
}

#[test]
fn rate_rounds_half_up_respects_threshold_and_cap() {
    // 88折 = rate_off 0.12.
    table(
        json!({"type": "rate", "rate_off": "0.12"}),
        &[("100.00", Ok(m("12"))), ("10.05", Ok(m("1.21")))],
    );
    // 1.25 × 0.1 = 0.125 → 0.13 (half-up); 1.24 × 0.1 = 0.124 → 0.12.
    table(
        json!({"type": "rate", "rate_off": "0.1"}),
        &[("1.25", Ok(m("0.13"))), ("1.24", Ok(m("0.12")))],
    );
    table(
        json!({"type": "rate", "rate_off": "0.1"}),
        &[("0.04", Err(NotApplicable::NothingToDiscount))],
    );
    let rule = json!({"type": "rate", "rate_off": "0.12", "threshold": "50", "max_off": "10"});
    table(
        rule,
        &[
            ("49.99", below("50", "49.99")),
            ("50.00", Ok(m("6"))),
            ("83.33", Ok(m("10"))),
            ("1000", Ok(m("10"))),
        ],
    );
    table(
        json!({"type": "rate", "rate_off": "1"}),
        &[("12.34", Ok(m("12.34")))],
    );
}

#[test]
fn ladder_gives_the_highest_tier_met() {
    let rule = json!({"type": "ladder", "tiers": [{"threshold": "300", "amount": "50"}, {"threshold": "500", "amount": "100"}]});
    table(
        rule,
        &[
            ("299.99", below("300", "299.99")),
            ("300.00", Ok(m("50"))),
            ("499.99", Ok(m("50"))),
            ("500.00", Ok(m("100"))),
            ("9999.00", Ok(m("100"))),
        ],
    );
}

#[test]
fn shipping_coupons_discount_the_shipping_fee() {
    let free_shipping = terms_with(fixed_off("0", "10"), "shipping", "stackable", json!([]));
    let k = coupon("k1", "t1", free_shipping.clone());
    let o = order(&[("s1", "c1", 1, "100")], "8.00");
    assert_eq!(discount_of(&o, &k, now()), Ok(m("8")), "capped by the fee");
    let o = order(&[("s1", "c1", 1, "100")], "0");
    assert_eq!(
        discount_of(&o, &k, now()),
        Err(NotApplicable::NothingToDiscount)
    );
    // The threshold is checked against the shipping fee (the base).
    let k = coupon(
        "k1",
        "t1",
        terms_with(fixed_off("10", "5"), "shipping", "stackable", json!([])),
    );
    let o = order(&[("s1", "c1", 1, "100")], "8.00");
    assert_eq!(
        discount_of(&o, &k, now()),
        Err(NotApplicable::BelowThreshold {
            threshold: m("10"),
            base: m("8")
        })
    );
    // Region scope still applies.
    let scope = json!([{"kind": "region", "values": ["110000"]}]);
    let k = coupon(
        "k1",
        "t1",
        terms_with(fixed_off("0", "10"), "shipping", "stackable", scope),
    );
    assert_eq!(
        discount_of(&o, &k, now()),
        Err(NotApplicable::OutOfScope(ScopeKind::Region))
    );
    let pricing = price(&o, &[coupon("k1", "t1", free_shipping)], now()).unwrap();
    let shipping_part = Allocation {
        coupon_id: "k1".to_owned(),
        line_id: None,
        amount: m("8"),
    };
    assert_eq!(pricing.allocations, vec![shipping_part]);
    assert_eq!(pricing.payable, m("100"));
}

#[test]
fn scopes_are_or_within_a_kind_and_across_kinds() {
    let lines = [
        ("s1", "c-9", 1, "10"),
        ("s2", "c-10", 1, "20"),
        ("s3", "c-1", 1, "40"),
    ];
    let base = |scope: Value, region: &str, tags: &[&str]| {
        let o = order_in(region, tags, &lines, "0");
        let terms = terms_with(fixed_off("0", "1000"), "goods", "stackable", scope);
        discount_of(&o, &coupon("k", "t", terms), now())
    };
    assert_eq!(
        base(json!([]), "310000", &[]),
        Ok(m("70")),
        "no scope: every line"
    );
    assert_eq!(
        base(
            json!([{"kind": "product", "values": ["s1", "s3"]}]),
            "310000",
            &[]
        ),
        Ok(m("50"))
    );
    let categories =
        json!([{"kind": "category", "values": ["c-9"]}, {"kind": "category", "values": ["c-10"]}]);
    assert_eq!(
        base(categories, "310000", &[]),
        Ok(m("30")),
        "same kind twice is still OR"
    );
    let product_and_category = json!([{"kind": "product", "values": ["s1", "s3"]}, {"kind": "category", "values": ["c-9", "c-10"]}]);
    assert_eq!(
        base(product_and_category, "310000", &[]),
        Ok(m("10")),
        "AND across kinds"
    );
    let with_region = json!([{"kind": "category", "values": ["c-9", "c-10"]}, {"kind": "region", "values": ["310000"]}]);
    assert_eq!(base(with_region.clone(), "310000", &[]), Ok(m("30")));
    assert_eq!(
        base(with_region, "110000", &[]),
        Err(NotApplicable::OutOfScope(ScopeKind::Region))
    );
    let tags = json!([{"kind": "user_tag", "values": ["vip", "new"]}]);
    assert_eq!(base(tags.clone(), "310000", &["new", "x"]), Ok(m("70")));
    assert_eq!(
        base(tags, "310000", &["x"]),
        Err(NotApplicable::OutOfScope(ScopeKind::UserTag))
    );
    assert_eq!(
        base(
            json!([{"kind": "product", "values": ["zz"]}]),
            "310000",
            &[]
        ),
        Err(NotApplicable::NoLineInScope)
    );
}

#[test]
fn an_order_without_region_is_outside_a_region_scope() {
    let raw = serde_json::from_value(json!({
        "order_id": "o", "user_id": "u", "currency": "CNY",
        "lines": [{"line_id": "a", "sku": "s", "category": "c", "quantity": 1, "unit_price": "10"}],
        "shipping_fee": "0"
    }))
    .unwrap();
    let o = ledger::domain::Order::parse(&raw).unwrap();
    let terms = terms_with(
        fixed_off("0", "1"),
        "goods",
        "stackable",
        json!([{"kind": "region", "values": ["1"]}]),
    );
    assert_eq!(
        discount_of(&o, &coupon("k", "t", terms), now()),
        Err(NotApplicable::OutOfScope(ScopeKind::Region))
    );
}

#[test]
fn currency_and_validity_are_checked() {
    let usd = ledger::domain::Terms::parse(&crate::support::raw_terms(json!({
        "kind": "goods", "currency": "USD", "discount": fixed_off("0", "1"),
        "validity": {"type": "relative", "begin_days": 0, "end_days": 7}, "stacking": "stackable"
    })))
    .unwrap();
    let o = order(&[("s1", "c1", 1, "10")], "0");
    let e = discount_of(&o, &coupon("k", "t", usd), now()).unwrap_err();
    assert_eq!(e.code(), "currency_mismatch");
    let mut k = coupon("k", "t", goods(fixed_off("0", "1")));
    k.validity.effective_at = now() + chrono::TimeDelta::seconds(1);
    assert_eq!(
        discount_of(&o, &k, now()).unwrap_err().code(),
        "not_yet_effective"
    );
    k.validity.effective_at = now() - chrono::TimeDelta::days(1);
    k.validity.expires_at = now() - chrono::TimeDelta::seconds(1);
    assert_eq!(discount_of(&o, &k, now()).unwrap_err().code(), "expired");
    k.validity.expires_at = now();
    assert_eq!(
        discount_of(&o, &k, now()),
        Ok(m("1")),
        "the expiry instant itself is still valid"
    );
}

#[test]
fn the_seed_example_pays_9_00() {
    // 5 notebooks at 2.00 with 满5减1.
    let o = order(&[("notebook", "stationery", 5, "2.00")], "0");
    let p = price(&o, &[coupon("k", "t", goods(fixed_off("5", "1")))], now()).unwrap();
    assert_eq!(p.discount, m("1.00"));
    assert_eq!(p.payable, m("9.00"));
    assert_eq!(
        p.allocations,
        vec![Allocation {
            coupon_id: "k".into(),
            line_id: Some("l1".into()),
            amount: m("1")
        }]
    );
}

#[test]
fn allocation_is_proportional_with_largest_remainder() {
    let o = order(
        &[
            ("a", "c", 1, "10"),
            ("b", "c", 1, "20"),
            ("c", "c", 1, "30"),
        ],
        "0",
    );
    let p = price(&o, &[coupon("k", "t", goods(fixed_off("0", "10")))], now()).unwrap();
    let parts: Vec<Money> = p.allocations.iter().map(|a| a.amount).collect();
    // 1.666…, 3.333…, 5.000: the cent left goes to the largest remainder.
    assert_eq!(parts, vec![m("1.67"), m("3.33"), m("5.00")]);
    // Equal remainders: the earlier line gets the cent.
    let o = order(
        &[("a", "c", 1, "1"), ("b", "c", 1, "1"), ("c", "c", 1, "1")],
        "0",
    );
    let p = price(&o, &[coupon("k", "t", goods(fixed_off("0", "1")))], now()).unwrap();
    let parts: Vec<Money> = p.allocations.iter().map(|a| a.amount).collect();
    assert_eq!(parts, vec![m("0.34"), m("0.33"), m("0.33")]);
    // Only in-scope lines carry a part.
    let o = order(&[("a", "c", 1, "10"), ("b", "x", 1, "20")], "0");
    let scoped = terms_with(
        fixed_off("0", "5"),
        "goods",
        "stackable",
        json!([{"kind": "category", "values": ["c"]}]),
    );
    let p = price(&o, &[coupon("k", "t", scoped)], now()).unwrap();
    assert_eq!(p.allocations.len(), 1);
    assert_eq!(p.allocations[0].line_id.as_deref(), Some("l1"));
}

#[test]
fn stackable_coupons_apply_in_order_on_what_is_left() {
    let o = order(&[("a", "c", 1, "60"), ("b", "c", 1, "40")], "0");
    let a = coupon("A", "tA", goods(fixed_off("100", "10")));
    let b = coupon("B", "tB", goods(json!({"type": "rate", "rate_off": "0.1"})));
    let p = price(&o, &[a.clone(), b.clone()], now()).unwrap();
    assert_eq!(
        p.coupons.iter().map(|c| c.discount).collect::<Vec<_>>(),
        vec![m("10"), m("9")]
    );
    assert_eq!(p.payable, m("81"));
    // The other way round the rate leaves 90.00, below A's threshold of 100.
    let refusal = price(&o, &[b, a], now()).unwrap_err();
    assert_eq!(refusal.coupon_id, "A");
    assert_eq!(
        refusal.reason,
        RefusalReason::NotApplicable(NotApplicable::BelowThreshold {
            threshold: m("100"),
            base: m("90"),
        })
    );
    // Each coupon's parts follow what is left of its lines.
    let per_line = |line: &str| {
        p.allocations
            .iter()
            .filter(|x| x.line_id.as_deref() == Some(line))
            .count()
    };
    assert_eq!((per_line("l1"), per_line("l2")), (2, 2));
}

#[test]
fn stacking_rules_refuse_with_a_reason() {
    let o = order(&[("a", "c", 1, "100")], "10");
    let stackable = |id: &str, t: &str| coupon(id, t, goods(fixed_off("0", "1")));
    let exclusive = coupon(
        "X",
        "tX",
        terms_with(fixed_off("0", "1"), "goods", "exclusive", json!([])),
    );
    let shipping = |id: &str, t: &str| {
        coupon(
            id,
            t,
            terms_with(fixed_off("0", "1"), "shipping", "stackable", json!([])),
        )
    };
    let refused = |coupons: Vec<_>| price(&o, &coupons, now()).unwrap_err();
    let r = refused(vec![stackable("A", "tA"), exclusive.clone()]);
    assert_eq!(
        (r.coupon_id.as_str(), r.reason.code()),
        ("X", "exclusive_not_alone"),
        "names the exclusive coupon"
    );
    let r = refused(vec![stackable("A", "tA"), stackable("B", "tA")]);
    assert_eq!(
        r.reason,
        RefusalReason::Stacking(StackingViolation::SameTemplate {
            template_sn: "tA".into()
        })
    );
    assert_eq!(
        refused(vec![shipping("S1", "tS1"), shipping("S2", "tS2")])
            .reason
            .code(),
        "more_than_one_shipping"
    );
    assert_eq!(
        refused(vec![stackable("A", "tA"), stackable("A", "tA")])
            .reason
            .code(),
        "duplicate_coupon"
    );
    assert!(
        price(&o, &[exclusive], now()).is_ok(),
        "an exclusive coupon alone is fine"
    );
    let p = price(
        &o,
        &[
            stackable("A", "tA"),
            shipping("S", "tS"),
            stackable("B", "tB"),
        ],
        now(),
    )
    .unwrap();
    assert_eq!((p.discount, p.payable), (m("3"), m("107")));
    assert!(price::<String>(&o, &[], now()).is_ok_and(|p| p.payable == m("110")));
}

#[test]
fn payable_never_goes_below_zero() {
    let o = order(&[("a", "c", 2, "5")], "5");
    let all_goods = coupon("G", "tG", goods(fixed_off("0", "100")));
    let all_shipping = coupon(
        "S",
        "tS",
        terms_with(fixed_off("0", "100"), "shipping", "stackable", json!([])),
    );
    let p = price(&o, &[all_goods, all_shipping], now()).unwrap();
    assert_eq!((p.discount, p.payable), (m("15"), Money::ZERO));
    let later = coupon("L", "tL", goods(fixed_off("0", "1")));
    let mut coupons = vec![coupon("G", "tG", goods(fixed_off("0", "100")))];
    coupons.push(later);
    let r = price(&o, &coupons, now()).unwrap_err();
    assert_eq!(
        r.reason.code(),
        "nothing_to_discount",
        "nothing left for the second coupon"
    );
}

/// A marketplace order: `(shop, quantity, unit price)` lines `l1, l2, …`.
fn marketplace(lines: &[(Option<&str>, i64, &str)]) -> ledger::domain::Order {
    let lines: Vec<Value> = lines
        .iter()
        .enumerate()
        .map(|(i, (shop, q, p))| {
            json!({"line_id": format!("l{}", i + 1), "sku": format!("s{i}"), "category": "c",
                "quantity": q, "unit_price": p, "shop_id": shop})
        })
        .collect();
    let raw = json!({"order_id": "o", "user_id": "u", "currency": "CNY", "lines": lines});
    ledger::domain::Order::parse(&serde_json::from_value(raw).unwrap()).unwrap()
}

/// Terms of a template that belongs to `shop`, as `POST /v1/templates` makes them.
fn of_shop(shop: &str, discount: Value) -> Terms {
    let mut terms = goods(discount);
    let shop = ledger::domain::ids::ShopId::parse(shop).unwrap();
    terms.confine_to_shop(&shop).unwrap();
    terms
}

#[test]
fn a_shop_coupon_prices_and_allocates_on_its_shop_lines_only() {
    // Shop A sells 60.00 + 2 × 20.00, shop B 100.00, the platform 50.00.
    let o = marketplace(&[
        (Some("A"), 1, "60.00"),
        (Some("A"), 2, "20.00"),
        (Some("B"), 1, "100.00"),
        (None, 1, "50.00"),
    ]);
    let a = coupon("kA", "tA", of_shop("A", fixed_off("100", "15")));
    // B's threshold is met by the order (250.00), not by B's lines (100.00).
    let b = coupon("kB", "tB", of_shop("B", fixed_off("150", "20")));
    assert_eq!(discount_of(&o, &b, now()), below("150", "100"));
    let platform = coupon(
        "kP",
        "tP",
        goods(json!({"type": "rate", "rate_off": "0.1"})),
    );
    let p = price(&o, &[a, platform], now()).unwrap();
    let parts: Vec<(&str, &str, Money)> = p
        .allocations
        .iter()
        .map(|x| {
            (
                x.coupon_id.as_str(),
                x.line_id.as_deref().unwrap(),
                x.amount,
            )
        })
        .collect();
    assert_eq!(
        parts,
        vec![
            // 15.00 over A's 60.00 and 40.00.
            ("kA", "l1", m("9.00")),
            ("kA", "l2", m("6.00")),
            // 10% of the 235.00 left, over every line.
            ("kP", "l1", m("5.10")),
            ("kP", "l2", m("3.40")),
            ("kP", "l3", m("10.00")),
            ("kP", "l4", m("5.00")),
        ]
    );
    assert_eq!((p.discount, p.payable), (m("38.50"), m("211.50")));
    // An order of no shop A line: A's coupon has no line to discount.
    let elsewhere = marketplace(&[(Some("B"), 1, "500.00"), (None, 1, "500.00")]);
    let a = coupon("kA", "tA", of_shop("A", fixed_off("100", "15")));
    assert_eq!(
        discount_of(&elsewhere, &a, now()),
        Err(NotApplicable::NoLineInScope)
    );
}
