//! The OpenAPI document's patterns, lengths and enums say what the API's
//! parsers take: for each newtype, a value its schema allows is one its
//! parser takes, and (where the schema is not deliberately narrower) the
//! other way round, on chosen samples and on a few thousand random
//! strings. The schemas are built from the parsers' own constants
//! (`utoipa::PartialSchema` beside each `parse`), so this is what keeps
//! the two from drifting: a parser that becomes stricter fails here.

use ledger::api::http::schemas::{self, json, json_of};
use ledger::domain::ids::{OrderId, PackageSn, ShopId, TemplateSn, UserId};
use ledger::domain::money::{Currency, Money, PositiveMoney};
use ledger::domain::terms::{Kind, RefundPolicy, Stacking};
use ledger::exactly_once::idempotency::{MAX_KEY_LEN, validate_key};
use serde_json::{Value, json as value};

/// Whether the schema takes the string `s`.
fn allows(schema: &Value, s: &str) -> bool {
    jsonschema::validator_for(schema)
        .expect("a valid JSON Schema")
        .is_valid(&value!(s))
}

/// How a schema stands to its parser.
#[derive(Clone, Copy, PartialEq)]
enum Fit {
    /// They take the same strings.
    Exact,
    /// The schema takes some of what the parser takes, nothing more.
    Narrower,
}

/// Characters the random strings are made of: each class a parser tells
/// apart (the sn alphabet and its excluded letters, digits, lower case,
/// punctuation, space, controls, non-ASCII, NUL).
const CHARS: &[char] = &[
    '2', '9', 'A', 'Z', 'H', 'O', 'I', 'L', '0', '1', 'a', 'z', '.', '-', '_', '(', ')', '~', '!',
    ' ', '\t', '\n', '\u{7f}', 'é', '中', '\0', '5',
];

/// A few thousand strings of 0 to 140 characters from [`CHARS`], with a
/// fixed seed, plus the samples.
fn strings(samples: &[&str]) -> Vec<String> {
    let mut state: u64 = 0x5eed_0a71;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut out: Vec<String> = samples.iter().map(|s| (*s).to_owned()).collect();
    for _ in 0..3000 {
        let len = match next() % 5 {
            0 => next() % 5,
            1 => 3 + next() % 3,
            2 => 14 + next() % 8,
            3 => 60 + next() % 8,
            _ => next() % 140,
        };
        // Mostly one or two classes, so that valid strings come up too.
        let pool: Vec<char> = match next() % 4 {
            0 => CHARS[..4]
                .iter()
                .chain(&['3', 'K', 'W', '5'])
                .copied()
                .collect(),
            1 => CHARS[..19].to_vec(),
            // Amounts: digits and a point.
            2 => vec!['0', '1', '5', '9', '.'],
            _ => CHARS.to_vec(),
        };
        out.push((0..len).map(|_| pool[next() % pool.len()]).collect());
    }
    out
}

/// Holds `schema` to `parses`: never wider, and exactly as wide when
/// `fit` is [`Fit::Exact`]; `both` must be taken by both, `neither` by
/// neither, `parser_only` (a narrower schema's) by the parser alone.
fn agree(
    name: &str,
    schema: Value,
    parses: impl Fn(&str) -> bool,
    fit: Fit,
    both: &[&str],
    neither: &[&str],
    parser_only: &[&str],
) {
    for s in both {
        assert!(
            allows(&schema, s),
            "{name}: the schema refuses {s:?}: {schema}"
        );
        assert!(parses(s), "{name}: the parser refuses {s:?}");
    }
    for s in neither {
        assert!(
            !allows(&schema, s),
            "{name}: the schema allows {s:?}: {schema}"
        );
        assert!(!parses(s), "{name}: the parser takes {s:?}");
    }
    for s in parser_only {
        assert!(!allows(&schema, s), "{name}: the schema allows {s:?}");
        assert!(parses(s), "{name}: the parser refuses {s:?}");
    }
    let mut taken = 0;
    for s in strings(both) {
        let (allowed, parsed) = (allows(&schema, &s), parses(&s));
        assert!(
            !allowed || parsed,
            "{name}: the schema allows {s:?}, which the parser refuses: {schema}"
        );
        if fit == Fit::Exact {
            assert_eq!(allowed, parsed, "{name}: {s:?}: {schema}");
        }
        taken += usize::from(allowed);
    }
    assert!(
        taken > both.len(),
        "{name}: the random strings met no valid one"
    );
}

#[test]
fn a_template_or_package_sn_is_its_alphabet_and_lengths() {
    let generated = TemplateSn::generate();
    let both = [generated.as_str(), "8RE9KQ2MV7XWD4TA", &"Z".repeat(64)];
    let neither = [
        "",
        "8RE9KQ2MV7XWD4T",
        "0OIL1234567890ABCDEF",
        "abcdefghjkmnpqrstuvw",
        &"Z".repeat(65),
    ];
    agree(
        "TemplateSn",
        json::<TemplateSn>(),
        |s| TemplateSn::parse(s).is_some(),
        Fit::Exact,
        &both,
        &neither,
        &[],
    );
    agree(
        "PackageSn",
        json::<PackageSn>(),
        |s| PackageSn::parse(s).is_some(),
        Fit::Exact,
        &both,
        &neither,
        &[],
    );
}

#[test]
fn a_user_id_is_visible_ascii() {
    agree(
        "UserId",
        json::<UserId>(),
        |s| UserId::parse(s).is_ok(),
        Fit::Exact,
        &[
            "u-1",
            "42",
            "user@example.com",
            &"u".repeat(64),
            "(platform)",
        ],
        &["", " ", "a b", "é", &"u".repeat(65), "a\0"],
        &[],
    );
}

#[test]
fn a_user_id_may_be_a_non_negative_64_bit_integer_as_the_body_reads_it() {
    let validator = jsonschema::validator_for(&json::<UserId>()).expect("a valid JSON Schema");
    let read = |v: &Value| serde_json::from_value::<UserId>(v.clone()).is_ok();
    for v in [value!(0), value!(42), value!(i64::MAX)] {
        assert!(validator.is_valid(&v) && read(&v), "{v}");
    }
    for v in [
        value!(-1),
        value!(u64::MAX),
        value!(1.5),
        value!(null),
        value!(true),
    ] {
        assert!(!validator.is_valid(&v) && !read(&v), "{v}");
    }
}

#[test]
fn a_shop_id_is_visible_ascii_but_not_a_reports_label() {
    agree(
        "ShopId",
        json::<ShopId>(),
        |s| ShopId::parse(s).is_ok(),
        Fit::Exact,
        &["shop-7", "Total", "totals", &"s".repeat(64)],
        &["", "(platform)", "total", "a b", &"s".repeat(65)],
        &[],
    );
}

#[test]
fn an_order_id_is_visible_ascii() {
    agree(
        "OrderId",
        json::<OrderId>(),
        |s| OrderId::parse(s).is_some(),
        Fit::Exact,
        &["order-1001", &"o".repeat(128)],
        &["", &"o".repeat(129), "a b", "订单-1"],
        &[],
    );
}

#[test]
fn an_amount_has_two_places_and_at_most_the_largest_amount() {
    agree(
        "Money",
        json::<Money>(),
        |s| Money::parse(s).is_ok(),
        Fit::Narrower,
        &["0.00", "12.30", "999999999999.99", "000000000001.00"],
        &[
            "",
            "-1.00",
            "1.234",
            "1e3",
            " 1.00",
            "1,000.00",
            "9999999999999.00",
        ],
        &["12", "12.3", "0000000000000.00"],
    );
}

#[test]
fn a_positive_amount_is_an_amount_but_zero() {
    agree(
        "PositiveMoney",
        json::<PositiveMoney>(),
        |s| Money::parse(s).is_ok_and(|m| !m.is_zero()),
        Fit::Narrower,
        &["0.01", "0.10", "12.30", "999999999999.99"],
        &["", "0.00", "-1.00", "1.234", "9999999999999.00"],
        &["12", "01.00", "000000000001.00"],
    );
}

#[test]
fn a_currency_is_three_upper_case_letters() {
    agree(
        "Currency",
        json::<Currency>(),
        |s| Currency::parse(s).is_ok(),
        Fit::Exact,
        &["CNY", "USD"],
        &["", "cny", "CN", "CNYY", "C1Y"],
        &[],
    );
}

#[test]
fn an_idempotency_key_is_visible_ascii() {
    agree(
        "Idempotency-Key",
        json_of(schemas::visible::<1, MAX_KEY_LEN>()),
        |s| validate_key(s).is_ok(),
        Fit::Exact,
        &["k-1", &"k".repeat(255)],
        &["", "a b", "é", &"k".repeat(256)],
        &[],
    );
}

#[test]
fn the_name_lists_enumerate_what_their_parsers_take() {
    let names = |schema: Value| -> Vec<String> {
        let values = schema["enum"].as_array().cloned().unwrap_or_default();
        values
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect()
    };
    let kinds = names(json::<Kind>());
    assert_eq!(kinds, ["goods", "shipping"]);
    assert!(kinds.iter().all(|k| Kind::parse(k).is_ok()));
    let stackings = names(json::<Stacking>());
    assert_eq!(stackings, ["exclusive", "stackable"]);
    assert!(stackings.iter().all(|s| Stacking::parse(s).is_ok()));
    let policies = names(json::<RefundPolicy>());
    assert_eq!(policies, ["restore", "reissue"]);
    assert!(policies.iter().all(|p| p.parse::<RefundPolicy>().is_ok()));
    for refused in ["Goods", "", "both"] {
        assert!(Kind::parse(refused).is_err() && Stacking::parse(refused).is_err());
    }
}

/// Timestamps and days with each part drawn from a range wider than the
/// calendar's (month 0 to 13, day 0 to 32, hour 0 to 25, offsets to ±15
/// hours, years 0 to 9999), so that the schema and the parser meet both
/// kinds.
fn timestamps() -> Vec<String> {
    let mut state: u64 = 0x7173_0a71;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    (0..3000)
        .map(|_| {
            let day = format!(
                "{:04}-{:02}-{:02}",
                [next(10_000), 1000 + next(8000)][next(2) as usize],
                next(14),
                next(33)
            );
            let offset = match next(3) {
                0 => "Z".to_owned(),
                _ => format!(
                    "{}{:02}:{:02}",
                    ["+", "-"][next(2) as usize],
                    next(16),
                    next(60)
                ),
            };
            let (h, m, s) = (next(26), next(61), next(62));
            match next(4) {
                0 => day,
                1 => format!("{day}T{h:02}:{m:02}:{s:02}.{}{offset}", next(1_000_000)),
                _ => format!("{day}T{h:02}:{m:02}:{s:02}{offset}"),
            }
        })
        .collect()
}

/// An instant as the routes read one from text (`history::instant`,
/// `coupons` `usable_at`) and as a template's absolute validity does.
fn instant_parses(s: &str) -> bool {
    use ledger::domain::validity::{RawValidity, ValidityTerms, storable_instant};
    let read = chrono::DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .and_then(|t| storable_instant(t.to_utc()))
        .is_some();
    let validity = RawValidity::Absolute {
        begin: s.to_owned(),
        end: "9999-12-31T23:59:59Z".to_owned(),
    };
    read && ValidityTerms::parse(&validity).is_ok()
}

#[test]
fn an_instant_and_an_as_of_are_narrower_than_their_parsers() {
    use ledger::domain::liability_report::AsOf;
    let instant = json::<ledger::domain::validity::InstantText>();
    let as_of = json_of(schemas::as_of());
    let mut taken = 0;
    for s in timestamps() {
        if allows(&instant, &s) {
            assert!(instant_parses(&s), "instant: the schema allows {s:?}");
            taken += 1;
        }
        if allows(&as_of, &s) {
            assert!(AsOf::parse(&s).is_ok(), "as_of: the schema allows {s:?}");
        }
    }
    assert!(taken > 100, "the timestamps met {taken} valid instants");
    for s in [
        "now",
        "2026-11-20",
        "2026-11-20T16:00:00Z",
        "2026-11-20T16:00:00.5+08:00",
    ] {
        assert!(allows(&as_of, s) && AsOf::parse(s).is_ok(), "{s}");
    }
    for s in [
        "",
        "today",
        "2026-13-01",
        "2026-11-20T24:00:00Z",
        "2026-11-20 16:00:00Z",
    ] {
        assert!(!allows(&as_of, s), "as_of: the schema allows {s:?}");
        assert!(!allows(&instant, s), "instant: the schema allows {s:?}");
    }
}

#[test]
fn a_name_is_exactly_something_besides_white_space_within_its_length() {
    let trimmed = |s: &str| {
        let t = s.trim();
        !t.is_empty() && t.chars().count() <= 200 && !s.contains('\0')
    };
    agree(
        "name",
        json_of(schemas::name::<200>()),
        trimmed,
        Fit::Exact,
        &[
            "Summer sale",
            " padded ",
            "\u{85}a\u{3000}",
            "\u{1c}",
            &format!(" \u{2029}{}\t ", "n".repeat(200)),
        ],
        &["", " ", "\u{85}", "\u{3000}\t", "a\0b", &"n".repeat(201)],
        &[],
    );
}

#[test]
fn a_tag_rule_is_narrower_than_its_check() {
    use ledger::domain::eligibility::{Eligibility, TagRule};
    let validator = jsonschema::validator_for(&json::<TagRule>()).expect("a valid JSON Schema");
    let parses = |rule: &Value| {
        serde_json::from_value::<Eligibility>(value!({ "user_tags": rule }))
            .ok()
            .and_then(|e| Eligibility::parse(e).ok())
            .is_some()
    };
    for rule in [value!({"any": ["vip"]}), value!({"all": ["a", "b", "a"]})] {
        assert!(validator.is_valid(&rule) && parses(&rule), "{rule}");
    }
    let long = "x".repeat(65);
    for rule in [
        value!({"any": [""]}),
        value!({"any": []}),
        value!({"all": ["x"], "any": ["y"]}),
        value!({ "any": [long] }),
    ] {
        assert!(!validator.is_valid(&rule) && !parses(&rule), "{rule}");
    }
}
