//! Parsing template terms, orders and amounts: valid shapes, and errors that
//! name the offending field.

use crate::support::m;
use ledger::domain::{
    DiscountRule, Kind, Money, Order, ParseErrorKind, RawOrder, RawTerms, ScopeKind, Stacking,
    Terms, ValidityTerms,
};
use serde::Deserialize;
use serde_json::{Value, json};

fn design_example() -> Value {
    json!({
        "kind": "goods", "currency": "CNY",
        "discount": {"type": "fixed_off", "threshold": "199.00", "amount": "20.00"},
        "face_value": "20.00",
        "validity": {"type": "relative", "begin_days": 0, "end_days": 7},
        "stacking": "stackable",
        "use_scope": [{"kind": "category", "values": ["c-9", "c-10"]},
                      {"kind": "region", "values": ["310000"]}]
    })
}

fn with(mut base: Value, key: &str, value: Value) -> Value {
    base[key] = value;
    base
}

fn parse(v: Value) -> Result<Terms, ledger::domain::ParseError> {
    let raw: RawTerms = serde_json::from_value(v).expect("well-formed raw terms");
    Terms::parse(&raw)
}

fn error_field(v: Value) -> (String, ParseErrorKind) {
    let e = parse(v).expect_err("must be refused");
    (e.field().to_owned(), e.kind().clone())
}

#[test]
fn the_design_example_parses() {
    let t = parse(design_example()).unwrap();
    assert_eq!(t.kind(), Kind::Goods);
    assert_eq!(t.stacking(), Stacking::Stackable);
    assert_eq!(t.currency().as_str(), "CNY");
    assert_eq!(t.face_value(), m("20.00"));
    assert!(
        matches!(t.rule(), DiscountRule::FixedOff(r) if r.threshold() == m("199") && r.amount() == m("20"))
    );
    assert!(
        matches!(t.validity(), ValidityTerms::Relative(d) if d.begin_days() == 0 && d.end_days() == 7)
    );
    assert_eq!(t.scope().values(ScopeKind::Category).len(), 2);
    assert_eq!(t.scope().values(ScopeKind::Region).len(), 1);
    assert!(t.scope().values(ScopeKind::Product).is_empty());
}

#[test]
fn every_rule_shape_parses() {
    for discount in [
        json!({"type": "per_threshold_off", "step": "100", "amount": "10", "max_off": "50"}),
        json!({"type": "per_threshold_off", "step": "100", "amount": "10"}),
        json!({"type": "rate", "rate_off": "0.12"}),
        json!({"type": "rate", "rate_off": "0.04", "threshold": "100.00", "max_off": "50.00"}),
        json!({"type": "ladder", "tiers": [{"threshold": "300", "amount": "50"}, {"threshold": "500", "amount": "100"}]}),
    ] {
        let v = with(design_example(), "discount", discount.clone());
        assert!(parse(v).is_ok(), "{discount}");
    }
}

#[test]
fn terms_round_trip_through_their_raw_form() {
    for discount in [
        json!({"type": "rate", "rate_off": "0.125", "max_off": "9.5"}),
        json!({"type": "ladder", "tiers": [{"threshold": "0", "amount": "1"}, {"threshold": "10", "amount": "1"}]}),
    ] {
        let t = parse(with(design_example(), "discount", discount)).unwrap();
        let json = serde_json::to_value(t.to_raw()).unwrap();
        assert_eq!(parse(json).unwrap(), t);
    }
    let absolute = json!({"type": "absolute", "begin": "2026-11-11T00:00:00+08:00", "end": "2026-11-15T23:59:59+08:00"});
    let t = parse(with(design_example(), "validity", absolute)).unwrap();
    assert_eq!(parse(serde_json::to_value(t.to_raw()).unwrap()).unwrap(), t);
}

#[test]
fn face_value_defaults_to_the_largest_possible_discount() {
    let cases = [
        (
            json!({"type": "fixed_off", "threshold": "199", "amount": "20"}),
            Some("20.00"),
        ),
        (
            json!({"type": "ladder", "tiers": [{"threshold": "300", "amount": "50"}, {"threshold": "500", "amount": "100"}]}),
            Some("100.00"),
        ),
        (
            json!({"type": "per_threshold_off", "step": "100", "amount": "10", "max_off": "30"}),
            Some("30.00"),
        ),
        (
            json!({"type": "rate", "rate_off": "0.1", "max_off": "15"}),
            Some("15.00"),
        ),
        (
            json!({"type": "per_threshold_off", "step": "100", "amount": "10"}),
            None,
        ),
        (json!({"type": "rate", "rate_off": "0.1"}), None),
    ];
    for (discount, expected) in cases {
        let mut v = with(design_example(), "discount", discount.clone());
        v.as_object_mut().unwrap().remove("face_value");
        match expected {
            Some(face) => assert_eq!(parse(v).unwrap().face_value(), m(face), "{discount}"),
            None => assert_eq!(
                error_field(v),
                ("face_value".into(), ParseErrorKind::FaceValueRequired)
            ),
        }
    }
}

#[test]
fn bad_terms_name_their_field() {
    let d = |discount: Value| with(design_example(), "discount", discount);
    let cases: Vec<(Value, &str)> = vec![
        (
            d(json!({"type": "fixed_off", "threshold": "199", "amount": "-1"})),
            "discount.amount",
        ),
        (
            d(json!({"type": "fixed_off", "threshold": "199", "amount": "1.005"})),
            "discount.amount",
        ),
        (
            d(json!({"type": "fixed_off", "threshold": "abc", "amount": "1"})),
            "discount.threshold",
        ),
        (
            d(json!({"type": "fixed_off", "threshold": "1", "amount": "0"})),
            "discount.amount",
        ),
        (
            d(json!({"type": "per_threshold_off", "step": "0", "amount": "1"})),
            "discount.step",
        ),
        (
            d(json!({"type": "per_threshold_off", "step": "-5", "amount": "1"})),
            "discount.step",
        ),
        (
            d(json!({"type": "per_threshold_off", "step": "5", "amount": "1", "max_off": "0.001"})),
            "discount.max_off",
        ),
        (
            d(json!({"type": "rate", "rate_off": "0"})),
            "discount.rate_off",
        ),
        (
            d(json!({"type": "rate", "rate_off": "1.01"})),
            "discount.rate_off",
        ),
        (
            d(json!({"type": "rate", "rate_off": "-0.1"})),
            "discount.rate_off",
        ),
        (
            d(json!({"type": "rate", "rate_off": "0.12345"})),
            "discount.rate_off",
        ),
        (d(json!({"type": "ladder", "tiers": []})), "discount.tiers"),
        (
            d(
                json!({"type": "ladder", "tiers": [{"threshold": "5", "amount": "1"}, {"threshold": "5", "amount": "2"}]}),
            ),
            "discount.tiers[1].threshold",
        ),
        (
            d(
                json!({"type": "ladder", "tiers": [{"threshold": "9", "amount": "1"}, {"threshold": "5", "amount": "2"}]}),
            ),
            "discount.tiers[1].threshold",
        ),
        (
            d(
                json!({"type": "ladder", "tiers": [{"threshold": "5", "amount": "3"}, {"threshold": "9", "amount": "2"}]}),
            ),
            "discount.tiers[1].amount",
        ),
        (
            d(json!({"type": "ladder", "tiers": [{"threshold": "5", "amount": "x"}]})),
            "discount.tiers[0].amount",
        ),
        (
            with(
                design_example(),
                "validity",
                json!({"type": "absolute", "begin": "2026-11-15T00:00:00Z", "end": "2026-11-15T00:00:00Z"}),
            ),
            "validity.end",
        ),
        (
            with(
                design_example(),
                "validity",
                json!({"type": "absolute", "begin": "yesterday", "end": "2026-11-15T00:00:00Z"}),
            ),
            "validity.begin",
        ),
        (
            with(
                design_example(),
                "validity",
                json!({"type": "relative", "begin_days": -1, "end_days": 7}),
            ),
            "validity.begin_days",
        ),
        (
            with(
                design_example(),
                "validity",
                json!({"type": "relative", "begin_days": 0, "end_days": -7}),
            ),
            "validity.end_days",
        ),
        (
            with(
                design_example(),
                "use_scope",
                json!([{"kind": "brand", "values": ["x"]}]),
            ),
            "use_scope[0].kind",
        ),
        (
            with(
                design_example(),
                "use_scope",
                json!([{"kind": "region", "values": ["1"]}, {"kind": "product", "values": []}]),
            ),
            "use_scope[1].values",
        ),
        (
            with(
                design_example(),
                "use_scope",
                json!([{"kind": "product", "values": ["a", ""]}]),
            ),
            "use_scope[0].values[1]",
        ),
        (with(design_example(), "currency", json!("cny")), "currency"),
        (
            with(design_example(), "currency", json!("CNYX")),
            "currency",
        ),
        (with(design_example(), "kind", json!("service")), "kind"),
        (
            with(design_example(), "stacking", json!("sometimes")),
            "stacking",
        ),
        (
            with(design_example(), "face_value", json!("0.00")),
            "face_value",
        ),
    ];
    for (v, field) in cases {
        let e = parse(v.clone()).expect_err(&v.to_string());
        assert_eq!(e.field(), field, "{v}");
        assert!(e.to_string().starts_with(field), "{e}");
        assert!(!e.message().is_empty());
    }
}

#[test]
fn messages_say_what_is_wrong() {
    let v = with(
        design_example(),
        "discount",
        json!({"type": "rate", "rate_off": "12"}),
    );
    let e = parse(v).unwrap_err();
    assert_eq!(e.kind(), &ParseErrorKind::RateOutOfRange);
    assert!(
        e.to_string()
            .contains("discount.rate_off: must be greater than 0 and at most 1"),
        "{e}"
    );
    let v = with(
        design_example(),
        "use_scope",
        json!([{"kind": "brand", "values": ["x"]}]),
    );
    assert!(parse(v).unwrap_err().message().contains("\"brand\""));
}

#[test]
fn raw_terms_refuse_unknown_fields_and_types_and_amounts_must_be_strings() {
    let mut extra = design_example();
    extra["colour"] = json!("red");
    assert!(serde_json::from_value::<RawTerms>(extra).is_err());
    let unknown_rule = with(design_example(), "discount", json!({"type": "bogo"}));
    assert!(serde_json::from_value::<RawTerms>(unknown_rule).is_err());
    let extra_in_rule = with(
        design_example(),
        "discount",
        json!({"type": "fixed_off", "threshold": "1", "amount": "1", "step": "1"}),
    );
    assert!(serde_json::from_value::<RawTerms>(extra_in_rule).is_err());
    let number_amount = with(
        design_example(),
        "discount",
        json!({"type": "fixed_off", "threshold": 1, "amount": "1"}),
    );
    // A number where an amount's string belongs is read, then refused by
    // the parse with the field named, as a malformed string amount is.
    let number = parse(number_amount).expect_err("a numeric amount is refused");
    let malformed = with(
        design_example(),
        "discount",
        json!({"type": "fixed_off", "threshold": "1.x", "amount": "1"}),
    );
    let malformed = parse(malformed).expect_err("a malformed amount is refused");
    assert_eq!(number.field(), "discount.threshold");
    assert_eq!(number.field(), malformed.field());
}

/// The HTTP layer embeds the terms in the full template request.
#[derive(Deserialize)]
struct TemplateRequest {
    #[allow(dead_code)]
    name: String,
    #[allow(dead_code)]
    total: u64,
    #[serde(flatten)]
    terms: RawTerms,
}

#[test]
fn raw_terms_embed_in_a_larger_request() {
    let mut v = design_example();
    v["name"] = json!("Double 11: 20 off 199");
    v["total"] = json!(100000);
    let req: TemplateRequest = serde_json::from_value(v.clone()).unwrap();
    assert!(Terms::parse(&req.terms).is_ok());
}

#[test]
fn amounts_parse_strictly() {
    assert_eq!(m("12.3").to_string(), "12.30");
    assert_eq!(m("12").to_string(), "12.00");
    assert_eq!(m("12.300").to_string(), "12.30");
    assert_eq!(m("-0").to_string(), "0.00");
    assert_eq!(serde_json::to_string(&m("12.3")).unwrap(), "\"12.30\"");
    assert_eq!(serde_json::from_str::<Money>("\"0.5\"").unwrap(), m("0.50"));
    assert!(
        serde_json::from_str::<Money>("0.5").is_err(),
        "numbers are refused: no floats"
    );
    for bad in ["", "abc", "-1", "1.001", "1e3", "1000000000000.00", " 1"] {
        assert!(Money::parse(bad).is_err(), "{bad:?}");
    }
    assert_eq!(Money::MAX.to_string(), "999999999999.99");
    assert_eq!(Money::parse("999999999999.99").unwrap(), Money::MAX);
}

#[test]
fn money_arithmetic_stays_in_range() {
    assert_eq!(m("1.10").checked_add(m("2.25")), Some(m("3.35")));
    assert_eq!(Money::MAX.checked_add(m("0.01")), None);
    assert_eq!(m("1.00").saturating_sub(m("2.00")), Money::ZERO);
    assert_eq!(m("2.50").checked_mul(3), Some(m("7.50")));
    assert_eq!(Money::MAX.checked_mul(2), None);
    assert_eq!(m("12.34").cents(), 1234);
    let half = rust_decimal::Decimal::new(1005, 3);
    assert_eq!(Money::round_half_up(half).unwrap(), m("1.01"), "half-up");
    assert_eq!(
        Money::round_half_up(rust_decimal::Decimal::new(1004, 3)).unwrap(),
        m("1.00")
    );
}

fn raw_order(v: Value) -> RawOrder {
    serde_json::from_value(v).expect("raw order")
}

fn order_json() -> Value {
    json!({
        "order_id": "o-1", "user_id": "u-1", "currency": "CNY", "region": "310000", "user_tags": ["vip"],
        "lines": [
            {"line_id": "a", "sku": "s1", "category": "c-9", "quantity": 2, "unit_price": "10.00"},
            {"line_id": "b", "sku": "s2", "category": "c-1", "quantity": 1, "unit_price": "5.50"}
        ],
        "shipping_fee": "8.00"
    })
}

#[test]
fn orders_parse_and_total() {
    let o = Order::parse(&raw_order(order_json())).unwrap();
    assert_eq!(o.goods_total(), m("25.50"));
    assert_eq!(o.total(), m("33.50"));
    assert_eq!(o.lines()[0].amount(), m("20.00"));
    assert_eq!(Order::parse(&o.to_raw()).unwrap(), o);
    let mut no_shipping = order_json();
    no_shipping.as_object_mut().unwrap().remove("shipping_fee");
    assert_eq!(
        Order::parse(&raw_order(no_shipping))
            .unwrap()
            .shipping_fee(),
        Money::ZERO
    );
}

#[test]
fn bad_orders_name_their_field() {
    let line = |i: usize, key: &str, value: Value| {
        let mut v = order_json();
        v["lines"][i][key] = value;
        v
    };
    let top = |key: &str, value: Value| with(order_json(), key, value);
    let cases = [
        (line(1, "quantity", json!(0)), "lines[1].quantity"),
        (line(0, "quantity", json!(-3)), "lines[0].quantity"),
        (
            line(0, "quantity", json!(5_000_000_000_i64)),
            "lines[0].quantity",
        ),
        (line(1, "unit_price", json!("1.999")), "lines[1].unit_price"),
        (line(1, "line_id", json!("a")), "lines[1].line_id"),
        (line(0, "line_id", json!("")), "lines[0].line_id"),
        (
            line(0, "unit_price", json!("999999999999.99")),
            "lines[0].quantity",
        ),
        (top("lines", json!([])), "lines"),
        (top("currency", json!("RMB1")), "currency"),
        (top("shipping_fee", json!("-8")), "shipping_fee"),
        (top("order_id", json!("")), "order_id"),
    ];
    for (v, field) in cases {
        let e = Order::parse(&raw_order(v.clone())).expect_err(&v.to_string());
        assert_eq!(e.field(), field, "{v}");
        assert_eq!(e.clone().within("order").field(), format!("order.{field}"));
    }
    let mut huge = order_json();
    huge["lines"][0]["unit_price"] = json!("600000000000.00");
    huge["lines"][0]["quantity"] = json!(1);
    huge["lines"][1]["unit_price"] = json!("600000000000.00");
    assert_eq!(
        Order::parse(&raw_order(huge)).unwrap_err().kind(),
        &ParseErrorKind::TotalTooLarge
    );
}
