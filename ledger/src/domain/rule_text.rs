//! A discount rule in words, as an app shows it beside the coupon
//! (docs/design.md §15, "What apps can read"): one English sentence per
//! rule, amounts with two places and no currency (the terms carry it).
//!
//! The base a threshold is met by follows pricing (docs/pricing.md): a
//! goods coupon counts the order's lines in its scope ("orders of"), a
//! shipping coupon the shipping fee ("a shipping fee of"). Thresholds are
//! inclusive, hence "or more".

use rust_decimal::Decimal;

use crate::domain::money::Money;
use crate::domain::rule::DiscountRule;
use crate::domain::terms::Kind;

/// The rule in words, e.g. "20.00 off orders of 199.00 or more".
pub fn rule_text(rule: &DiscountRule, kind: Kind) -> String {
    match rule {
        DiscountRule::FixedOff(r) => off(r.amount(), kind, Some(r.threshold())),
        DiscountRule::PerThresholdOff(r) => {
            let every = match kind {
                Kind::Goods => format!("{} off every {} spent", r.amount(), r.step()),
                Kind::Shipping => {
                    format!("{} off every {} of shipping", r.amount(), r.step())
                }
            };
            capped(every, r.max_off())
        }
        DiscountRule::Rate(r) => {
            let percent = (r.rate_off().as_decimal() * Decimal::ONE_HUNDRED).normalize();
            let what = format!("{percent}%");
            capped(off_of(&what, kind, r.threshold()), r.max_off())
        }
        DiscountRule::Ladder(r) => r
            .tiers()
            .iter()
            .map(|t| off(t.amount(), kind, Some(t.threshold())))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// "`amount` off", on what the kind discounts, from `threshold` on.
fn off(amount: Money, kind: Kind, threshold: Option<Money>) -> String {
    off_of(&amount.to_string(), kind, threshold)
}

/// "`what` off" with its base: a zero threshold (or none) is no condition.
fn off_of(what: &str, kind: Kind, threshold: Option<Money>) -> String {
    match (kind, threshold.filter(|t| !t.is_zero())) {
        (Kind::Goods, None) => format!("{what} off"),
        (Kind::Goods, Some(t)) => format!("{what} off orders of {t} or more"),
        (Kind::Shipping, None) => format!("{what} off shipping"),
        (Kind::Shipping, Some(t)) => format!("{what} off a shipping fee of {t} or more"),
    }
}

/// The sentence with its cap, when the rule has one.
fn capped(text: String, max_off: Option<Money>) -> String {
    match max_off {
        Some(m) => format!("{text}, at most {m} off"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::rule::RawDiscount;

    fn text(discount: serde_json::Value, kind: Kind) -> String {
        let raw: RawDiscount = serde_json::from_value(discount).unwrap();
        rule_text(&DiscountRule::parse(&raw).unwrap(), kind)
    }

    #[test]
    fn fixed_off_names_its_threshold_unless_it_is_zero() {
        let rule = json!({"type": "fixed_off", "threshold": "199", "amount": "20"});
        assert_eq!(
            text(rule.clone(), Kind::Goods),
            "20.00 off orders of 199.00 or more"
        );
        assert_eq!(
            text(rule, Kind::Shipping),
            "20.00 off a shipping fee of 199.00 or more"
        );
        let free = json!({"type": "fixed_off", "threshold": "0.00", "amount": "5.00"});
        assert_eq!(text(free.clone(), Kind::Goods), "5.00 off");
        assert_eq!(text(free, Kind::Shipping), "5.00 off shipping");
    }

    #[test]
    fn per_threshold_off_counts_every_step_and_its_cap() {
        let rule = json!({"type": "per_threshold_off", "step": "100.00", "amount": "10.00"});
        assert_eq!(text(rule, Kind::Goods), "10.00 off every 100.00 spent");
        let capped = json!({"type": "per_threshold_off", "step": "100.00", "amount": "10.00",
            "max_off": "50.00"});
        assert_eq!(
            text(capped.clone(), Kind::Goods),
            "10.00 off every 100.00 spent, at most 50.00 off"
        );
        assert_eq!(
            text(capped, Kind::Shipping),
            "10.00 off every 100.00 of shipping, at most 50.00 off"
        );
    }

    #[test]
    fn rate_is_a_percentage_with_its_threshold_and_cap() {
        assert_eq!(
            text(json!({"type": "rate", "rate_off": "0.12"}), Kind::Goods),
            "12% off"
        );
        assert_eq!(
            text(json!({"type": "rate", "rate_off": "0.125"}), Kind::Goods),
            "12.5% off"
        );
        assert_eq!(
            text(json!({"type": "rate", "rate_off": "1"}), Kind::Shipping),
            "100% off shipping"
        );
        let full = json!({"type": "rate", "rate_off": "0.2", "threshold": "50.00",
            "max_off": "30.00"});
        assert_eq!(
            text(full, Kind::Goods),
            "20% off orders of 50.00 or more, at most 30.00 off"
        );
    }

    #[test]
    fn a_ladder_lists_every_tier_lowest_first() {
        let rule = json!({"type": "ladder", "tiers": [
            {"threshold": "50.00", "amount": "5.00"},
            {"threshold": "100.00", "amount": "15.00"}]});
        assert_eq!(
            text(rule, Kind::Goods),
            "5.00 off orders of 50.00 or more; 15.00 off orders of 100.00 or more"
        );
    }
}
