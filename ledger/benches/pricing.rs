//! Pricing benchmarks: the best combination of 12 candidate coupons on a
//! 50-line order (target ≤ 2 ms), and one coupon's discount on the same order.
//!
//! `cargo bench --bench pricing`

use std::hint::black_box;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeZone, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use ledger::domain::{
    Coupon, Order, RawOrder, RawTerms, Terms, Validity, best_combination, discount_of, price,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 11, 4, 0, 0).unwrap()
}

/// 50 lines over 5 categories, 10 SKUs each, prices 3.90 … 99.50.
fn order() -> Order {
    let lines: Vec<Value> = (0..50)
        .map(|i| {
            let cents = 390 + (i * 7_919) % 9_560;
            json!({
                "line_id": format!("l{i}"), "sku": format!("sku-{i}"), "category": format!("c-{}", i % 5),
                "quantity": 1 + i % 3, "unit_price": format!("{}.{:02}", cents / 100, cents % 100),
            })
        })
        .collect();
    let raw: RawOrder = serde_json::from_value(json!({
        "order_id": "o-1", "user_id": "u-1", "currency": "CNY", "region": "310000", "user_tags": ["vip"],
        "lines": lines, "shipping_fee": "12.00",
    }))
    .unwrap();
    Order::parse(&raw).unwrap()
}

fn coupon(
    id: usize,
    template: &str,
    kind: &str,
    stacking: &str,
    discount: Value,
    scope: Value,
) -> Coupon<usize> {
    let raw: RawTerms = serde_json::from_value(json!({
        "kind": kind, "currency": "CNY", "discount": discount, "face_value": "10.00",
        "validity": {"type": "relative", "begin_days": 0, "end_days": 30},
        "stacking": stacking, "use_scope": scope,
    }))
    .unwrap();
    let validity = Validity {
        effective_at: Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap(),
        expires_at: Utc.with_ymd_and_hms(2027, 1, 1, 0, 0, 0).unwrap(),
    };
    Coupon {
        id,
        template_sn: template.to_owned(),
        terms: Terms::parse(&raw).unwrap(),
        validity,
    }
}

fn fixed(threshold: &str, amount: &str) -> Value {
    json!({"type": "fixed_off", "threshold": threshold, "amount": amount})
}

fn rate(rate_off: &str, max_off: Option<&str>) -> Value {
    match max_off {
        Some(m) => json!({"type": "rate", "rate_off": rate_off, "max_off": m}),
        None => json!({"type": "rate", "rate_off": rate_off}),
    }
}

fn categories(values: &[&str]) -> Value {
    json!([{"kind": "category", "values": values}])
}

/// A realistic wallet: exclusives, duplicates of a template, category
/// coupons of every rule type, whole-order coupons and shipping coupons.
fn wallet() -> Vec<Coupon<usize>> {
    let all = json!([]);
    let ladder = json!({"type": "ladder", "tiers": [
        {"threshold": "100", "amount": "10"}, {"threshold": "300", "amount": "30"}, {"threshold": "500", "amount": "60"}]});
    vec![
        coupon(
            0,
            "EXCL-300-60",
            "goods",
            "exclusive",
            fixed("300", "60"),
            all.clone(),
        ),
        coupon(
            1,
            "EXCL-85",
            "goods",
            "exclusive",
            rate("0.15", Some("80")),
            all.clone(),
        ),
        coupon(
            2,
            "ALL-199-20",
            "goods",
            "stackable",
            fixed("199", "20"),
            all.clone(),
        ),
        coupon(
            3,
            "ALL-199-20",
            "goods",
            "stackable",
            fixed("199", "20"),
            all.clone(),
        ),
        coupon(
            4,
            "C12-EVERY-100",
            "goods",
            "stackable",
            json!({"type": "per_threshold_off", "step": "100", "amount": "10", "max_off": "50"}),
            categories(&["c-1", "c-2"]),
        ),
        coupon(
            5,
            "C3-95",
            "goods",
            "stackable",
            rate("0.05", None),
            categories(&["c-3"]),
        ),
        coupon(6, "ALL-LADDER", "goods", "stackable", ladder, all.clone()),
        coupon(
            7,
            "C0-50-8",
            "goods",
            "stackable",
            fixed("50", "8"),
            categories(&["c-0"]),
        ),
        coupon(
            8,
            "C4-88",
            "goods",
            "stackable",
            rate("0.12", Some("30")),
            json!([{"kind": "category", "values": ["c-4"]}, {"kind": "region", "values": ["310000"]}]),
        ),
        coupon(
            9,
            "SHIP-10",
            "shipping",
            "stackable",
            fixed("0", "10"),
            all.clone(),
        ),
        coupon(
            10,
            "SHIP-ALL",
            "shipping",
            "stackable",
            fixed("0", "99"),
            all.clone(),
        ),
        coupon(
            11,
            "ALL-1000-100",
            "goods",
            "stackable",
            fixed("1000", "100"),
            all,
        ),
    ]
}

/// A worst case: 12 distinct stackable whole-order coupons (rates and
/// thresholds interact, so every order of them is different).
fn adversarial() -> Vec<Coupon<usize>> {
    (0..12)
        .map(|i| {
            let discount = if i % 2 == 0 {
                rate(&format!("0.0{}", 1 + i / 2), None)
            } else {
                fixed(&format!("{}", 200 * i), &format!("{}", 5 + i))
            };
            coupon(
                i,
                &format!("T{i}"),
                "goods",
                "stackable",
                discount,
                json!([]),
            )
        })
        .collect()
}

/// Beyond the exact limit: 40 distinct interacting templates (heuristic).
fn crowded() -> Vec<Coupon<usize>> {
    (0..40)
        .map(|i| {
            let discount = match i % 4 {
                0 => rate(&format!("0.0{}", 1 + i % 9), Some("40")),
                1 => fixed(&format!("{}", 100 * (i % 13)), &format!("{}", 3 + i % 7)),
                2 => json!({"type": "per_threshold_off", "step": "150", "amount": "4", "max_off": "30"}),
                _ => fixed("0", &format!("{}", 1 + i % 5)),
            };
            let scope = if i % 3 == 0 { categories(&["c-1", "c-2", "c-3"]) } else { json!([]) };
            coupon(i, &format!("T{i}"), "goods", "stackable", discount, scope)
        })
        .collect()
}

/// A random wallet of 12 distinct stackable goods templates of every rule
/// type, thresholds and rates drawn wide; whole-order scopes, or (`mixed`)
/// crossing pairs of categories with some whole-order coupons.
fn random_wallet(rng: &mut StdRng, mixed: bool) -> Vec<Coupon<usize>> {
    (0..12)
        .map(|i| {
            let discount = match rng.random_range(0..4) {
                0 => rate(&format!("0.{:02}", rng.random_range(1..30)), None),
                1 => fixed(
                    &rng.random_range(0..3000).to_string(),
                    &rng.random_range(1..80).to_string(),
                ),
                2 => json!({"type": "per_threshold_off",
                    "step": rng.random_range(50..400).to_string(),
                    "amount": rng.random_range(1..20).to_string()}),
                _ => json!({"type": "ladder", "tiers": [
                    {"threshold": "500", "amount": rng.random_range(1..20).to_string()},
                    {"threshold": "2000", "amount": rng.random_range(20..60).to_string()}]}),
            };
            let scope = if mixed && rng.random_bool(0.7) {
                let (a, b) = (rng.random_range(0..5), rng.random_range(0..5));
                categories(&[&format!("c-{a}"), &format!("c-{b}")])
            } else {
                json!([])
            };
            coupon(i, &format!("T{i}"), "goods", "stackable", discount, scope)
        })
        .collect()
}

/// Prints how often random adversarial wallets are searched exactly within
/// the node budget, and the time their quotes take.
fn stress(order: &Order, mixed: bool) {
    let mut rng = StdRng::seed_from_u64(7);
    let mut times: Vec<Duration> = Vec::new();
    let mut exact = 0;
    for _ in 0..300 {
        let wallet = random_wallet(&mut rng, mixed);
        let started = Instant::now();
        exact += usize::from(best_combination(order, &wallet, now()).exact);
        times.push(started.elapsed());
    }
    times.sort_unstable();
    let at = |q: usize| times[(times.len() - 1) * q / 100];
    eprintln!(
        "random adversarial wallets ({}): {exact}/{} exact; p50 {:?}, p99 {:?}, max {:?}",
        if mixed {
            "crossing scopes"
        } else {
            "whole order"
        },
        times.len(),
        at(50),
        at(99),
        at(100)
    );
}

fn benches(c: &mut Criterion) {
    let order = order();
    let wallet = wallet();
    let best = best_combination(&order, &wallet, now());
    eprintln!(
        "wallet: goods {} + shipping {}, best {:?} saves {} (exact: {})",
        order.goods_total(),
        order.shipping_fee(),
        best.coupon_ids,
        best.discount,
        best.exact
    );
    stress(&order, false);
    stress(&order, true);
    let worst = adversarial();
    let best_worst = best_combination(&order, &worst, now());
    eprintln!(
        "adversarial: best {:?} saves {} (exact: {})",
        best_worst.coupon_ids, best_worst.discount, best_worst.exact
    );

    c.bench_function("best_combination/12 coupons/50 lines", |b| {
        b.iter(|| best_combination(black_box(&order), black_box(&wallet), now()))
    });
    c.bench_function("best_combination/12 adversarial/50 lines", |b| {
        b.iter(|| best_combination(black_box(&order), black_box(&worst), now()))
    });
    let crowd = crowded();
    let best_crowd = best_combination(&order, &crowd, now());
    eprintln!(
        "crowded: {} coupons save {} (exact: {})",
        best_crowd.coupon_ids.len(),
        best_crowd.discount,
        best_crowd.exact
    );
    c.bench_function("best_combination/40 heuristic/50 lines", |b| {
        b.iter(|| best_combination(black_box(&order), black_box(&crowd), now()))
    });
    c.bench_function("discount_of/1 coupon/50 lines", |b| {
        b.iter(|| discount_of(black_box(&order), black_box(&wallet[6]), now()))
    });
    let chosen: Vec<Coupon<usize>> = best.coupon_ids.iter().map(|&i| wallet[i].clone()).collect();
    c.bench_function("price/best combination/50 lines", |b| {
        b.iter(|| price(black_box(&order), black_box(&chosen), now()))
    });
}

criterion_group!(pricing, benches);
criterion_main!(pricing);
