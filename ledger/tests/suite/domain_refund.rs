//! Partial refunds: proportional amounts, coupon cost reversal, release.

use crate::support::{coupon, fixed_off, goods, m, now, order, terms_with};
use ledger::domain::{
    Allocation, Refund, RefundError, RefundLine, Settlement, SettlementError, price,
};
use serde_json::json;

fn line(line_id: &str, quantity: u32) -> RefundLine {
    RefundLine {
        line_id: line_id.to_owned(),
        quantity,
    }
}

/// Runs refunds one after the other, each given the earlier ones.
fn run(s: &Settlement<String>, requests: &[Vec<RefundLine>]) -> Vec<Refund<String>> {
    let mut past: Vec<Refund<String>> = Vec::new();
    for r in requests {
        let refund = s.refund(&past, r).expect("refund");
        past.push(refund);
    }
    past
}

fn seed() -> Settlement<String> {
    let o = order(&[("notebook", "stationery", 5, "2.00")], "0");
    let p = price(&o, &[coupon("k", "t", goods(fixed_off("5", "1")))], now()).unwrap();
    assert_eq!(p.payable, m("9.00"));
    Settlement::new(&o, &p.allocations).unwrap()
}

#[test]
fn seed_example_refunds_one_unit_for_1_80() {
    let s = seed();
    assert_eq!(s.paid(), m("9.00"));
    let r = s.refund(&[], &[line("l1", 1)]).unwrap();
    assert_eq!(r.amount, m("1.80"));
    assert_eq!(r.coupon_cost_reversed, m("0.20"));
    assert_eq!(r.lines[0].amount, m("1.80"));
    assert_eq!(r.lines[0].reversals[0].amount, m("0.20"));
    assert!(!r.coupons[0].released, "the coupon stays used");
    assert!(r.coupons_returned.is_empty());
    assert!(r.shipping.is_none());
}

#[test]
fn seed_example_unit_by_unit_sums_to_9_00_and_releases_the_coupon_last() {
    let s = seed();
    let refunds = run(&s, &vec![vec![line("l1", 1)]; 5]);
    let amounts: Vec<_> = refunds.iter().map(|r| r.amount).collect();
    assert_eq!(amounts, vec![m("1.80"); 5]);
    let returned: Vec<_> = refunds.iter().map(|r| r.coupons_returned.clone()).collect();
    assert_eq!(
        returned,
        vec![vec![], vec![], vec![], vec![], vec!["k".to_owned()]]
    );
    let total: i64 = refunds.iter().map(|r| r.amount.cents()).sum();
    let reversed: i64 = refunds.iter().map(|r| r.coupon_cost_reversed.cents()).sum();
    assert_eq!(
        (total, reversed),
        (900, 100),
        "exactly 9.00 back and 1.00 of coupon cost reversed"
    );
    assert_eq!(
        s.refund(&refunds, &[line("l1", 1)]),
        Err(RefundError::TooMany {
            line_id: "l1".into(),
            requested: 1,
            remaining: 0
        })
    );
}

#[test]
fn seed_example_in_uneven_steps() {
    let s = seed();
    let refunds = run(&s, &[vec![line("l1", 2)], vec![line("l1", 3)]]);
    assert_eq!(
        (refunds[0].amount, refunds[0].coupon_cost_reversed),
        (m("3.60"), m("0.40"))
    );
    assert_eq!(
        (refunds[1].amount, refunds[1].coupon_cost_reversed),
        (m("5.40"), m("0.60"))
    );
    assert_eq!(refunds[1].coupons_returned, vec!["k".to_owned()]);
}

#[test]
fn the_last_units_take_the_remainder() {
    // 3 × 5.00 with 5.00 off: 10.00 paid, thirds do not divide into cents.
    let o = order(&[("a", "c", 3, "5.00")], "0");
    let p = price(&o, &[coupon("k", "t", goods(fixed_off("0", "5")))], now()).unwrap();
    let s = Settlement::new(&o, &p.allocations).unwrap();
    let refunds = run(&s, &vec![vec![line("l1", 1)]; 3]);
    let got: Vec<_> = refunds
        .iter()
        .map(|r| (r.amount, r.coupon_cost_reversed))
        .collect();
    assert_eq!(
        got,
        vec![
            (m("3.33"), m("1.67")),
            (m("3.33"), m("1.67")),
            (m("3.34"), m("1.66"))
        ]
    );
}

#[test]
fn an_early_refund_never_overdraws_a_line() {
    // 0.03 paid for 5 units: rounding 0.006 up would overdraw by the fourth.
    let o = order(&[("a", "c", 5, "0.01")], "0");
    let p = price(
        &o,
        &[coupon("k", "t", goods(fixed_off("0", "0.02")))],
        now(),
    )
    .unwrap();
    let s = Settlement::new(&o, &p.allocations).unwrap();
    assert_eq!(s.paid(), m("0.03"));
    let refunds = run(&s, &vec![vec![line("l1", 1)]; 5]);
    let amounts: Vec<_> = refunds.iter().map(|r| r.amount).collect();
    assert_eq!(
        amounts,
        vec![m("0.01"), m("0.01"), m("0.01"), m("0"), m("0")]
    );
    let reversed: i64 = refunds.iter().map(|r| r.coupon_cost_reversed.cents()).sum();
    assert_eq!(reversed, 2);
}

#[test]
fn shipping_is_refunded_with_the_refund_that_completes_the_order() {
    let o = order(&[("a", "c", 2, "10"), ("b", "c", 1, "30")], "8.00");
    let shipping = coupon(
        "S",
        "tS",
        terms_with(fixed_off("0", "3"), "shipping", "stackable", json!([])),
    );
    let goods_on_a = terms_with(
        fixed_off("0", "4"),
        "goods",
        "stackable",
        json!([{"kind": "product", "values": ["a"]}]),
    );
    let p = price(&o, &[coupon("G", "tG", goods_on_a), shipping], now()).unwrap();
    assert_eq!(p.payable, m("51.00"));
    let s = Settlement::new(&o, &p.allocations).unwrap();
    let refunds = run(&s, &[vec![line("l1", 2)], vec![line("l2", 1)]]);
    // The goods coupon only touched line a: released once a is refunded.
    assert_eq!(refunds[0].coupons_returned, vec!["G".to_owned()]);
    assert_eq!(refunds[0].amount, m("16.00"));
    assert!(
        refunds[0].shipping.is_none(),
        "a partial refund keeps shipping"
    );
    let last = &refunds[1];
    let shipping = last.shipping.as_ref().unwrap();
    assert_eq!(
        (shipping.amount, shipping.reversals[0].amount),
        (m("5.00"), m("3.00"))
    );
    assert_eq!(last.amount, m("35.00"));
    assert_eq!(last.coupons_returned, vec!["S".to_owned()]);
    assert!(last.coupons.iter().all(|c| c.released));
    let total: i64 = refunds.iter().map(|r| r.amount.cents()).sum();
    assert_eq!(total, s.paid().cents());
}

#[test]
fn one_refund_may_cover_several_lines() {
    let o = order(&[("a", "c", 2, "10"), ("b", "c", 2, "30")], "0");
    let p = price(&o, &[coupon("k", "t", goods(fixed_off("0", "8")))], now()).unwrap();
    let s = Settlement::new(&o, &p.allocations).unwrap();
    let r = s.refund(&[], &[line("l2", 1), line("l1", 2)]).unwrap();
    assert_eq!(
        r.lines
            .iter()
            .map(|l| l.line_id.as_str())
            .collect::<Vec<_>>(),
        vec!["l2", "l1"]
    );
    assert_eq!(
        r.amount,
        m("45.00"),
        "27.00 for half of line 2, all 18.00 of line 1"
    );
    assert_eq!(r.coupon_cost_reversed, m("5.00"));
}

#[test]
fn bad_refund_requests_are_refused() {
    let s = seed();
    assert_eq!(s.refund(&[], &[]), Err(RefundError::Empty));
    assert_eq!(
        s.refund(&[], &[line("zz", 1)]),
        Err(RefundError::UnknownLine("zz".into()))
    );
    assert_eq!(
        s.refund(&[], &[line("l1", 0)]),
        Err(RefundError::ZeroQuantity("l1".into()))
    );
    assert_eq!(
        s.refund(&[], &[line("l1", 1), line("l1", 1)]),
        Err(RefundError::DuplicateLine("l1".into()))
    );
    assert_eq!(
        s.refund(&[], &[line("l1", 6)]).unwrap_err().code(),
        "refund_exceeds_quantity"
    );
    let mut forged = s.refund(&[], &[line("l1", 5)]).unwrap();
    forged.lines[0].quantity = 9;
    assert_eq!(
        s.refund(&[forged], &[line("l1", 1)]),
        Err(RefundError::InconsistentHistory)
    );
}

#[test]
fn settlements_refuse_allocations_that_do_not_fit() {
    let o = order(&[("a", "c", 1, "10")], "5");
    let part = |line: Option<&str>, amount: &str| Allocation {
        coupon_id: "k".to_owned(),
        line_id: line.map(str::to_owned),
        amount: m(amount),
    };
    assert_eq!(
        Settlement::new(&o, &[part(Some("x"), "1")]),
        Err(SettlementError::UnknownLine("x".into()))
    );
    assert_eq!(
        Settlement::new(&o, &[part(Some("l1"), "6"), part(Some("l1"), "5")]),
        Err(SettlementError::OverAllocatedLine("l1".into()))
    );
    assert_eq!(
        Settlement::new(&o, &[part(None, "5.01")]),
        Err(SettlementError::OverAllocatedShipping)
    );
    assert_eq!(
        Settlement::new(&o, &[part(None, "5")]).unwrap().paid(),
        m("10")
    );
}

#[test]
fn refunds_survive_a_json_round_trip() {
    let s = seed();
    let first = s.refund(&[], &[line("l1", 2)]).unwrap();
    let stored: Refund<String> =
        serde_json::from_str(&serde_json::to_string(&first).unwrap()).unwrap();
    assert_eq!(stored, first);
    let second = s.refund(&[stored], &[line("l1", 3)]).unwrap();
    assert_eq!(second.amount, m("5.40"));
}
