//! The differences between the live tables and the replayed ones.

use std::collections::{BTreeSet, HashMap};
use std::fmt::{self, Debug};
use std::hash::Hash;

use super::tables::{Fields, Tables};

/// One field of one row that differs (a missing row counts as empty fields).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Difference {
    pub table: &'static str,
    /// The row's key: coupon id, template sn, (user, status), ...
    pub key: String,
    pub field: &'static str,
    pub live: String,
    pub replayed: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {}: live {} vs replayed {}",
            self.table, self.key, self.field, self.live, self.replayed
        )
    }
}

/// Every difference, sorted by table and key.
pub fn compare(live: &Tables, replayed: &Tables) -> Vec<Difference> {
    let mut out = Vec::new();
    diff("coupons", &live.coupons, &replayed.coupons, &mut out);
    diff("templates", &live.templates, &replayed.templates, &mut out);
    diff(
        "user_claims",
        &live.user_claims,
        &replayed.user_claims,
        &mut out,
    );
    diff("orders", &live.orders, &replayed.orders, &mut out);
    diff("balances", &live.balances, &replayed.balances, &mut out);
    diff(
        "template_stats",
        &live.template_stats,
        &replayed.template_stats,
        &mut out,
    );
    diff(
        "template_totals",
        &live.template_totals,
        &replayed.template_totals,
        &mut out,
    );
    out.sort();
    out
}

fn diff<K, V>(
    table: &'static str,
    live: &HashMap<K, V>,
    replayed: &HashMap<K, V>,
    out: &mut Vec<Difference>,
) where
    K: Eq + Hash + Debug + Ord,
    V: PartialEq + Fields + Default,
{
    let keys: BTreeSet<&K> = live.keys().chain(replayed.keys()).collect();
    let missing = V::default();
    for key in keys {
        let (l, r) = (live.get(key), replayed.get(key));
        if l == r {
            continue;
        }
        let show = |v: Option<&V>| v.map_or_else(|| missing.fields(), Fields::fields);
        let absent = |v: Option<&V>, s: String| if v.is_some() { s } else { "(none)".into() };
        for ((field, lv), (_, rv)) in show(l).into_iter().zip(show(r)) {
            if lv != rv || l.is_none() || r.is_none() {
                out.push(Difference {
                    table,
                    key: format!("{key:?}"),
                    field,
                    live: absent(l, lv),
                    replayed: absent(r, rv),
                });
            }
        }
    }
}
