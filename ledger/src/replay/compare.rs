//! The differences between the live tables and the replayed ones.

use std::collections::BTreeMap;
use std::fmt;

use super::tables::Fields;

/// The most differences a report lists; beyond, they are only counted.
pub const MAX_REPORTED: usize = 10_000;

/// One field of one row that differs (a missing row counts as empty fields;
/// `(row)` when no field tells the rows apart).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Difference {
    pub table: &'static str,
    /// The row's key: coupon id, template sn, (user, status), ...
    pub key: String,
    pub field: &'static str,
    pub live: String,
    pub replayed: String,
    /// The live table has the row and the replay has none.
    pub live_only: bool,
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

/// The differences found so far, at most [`MAX_REPORTED`] of them listed.
#[derive(Debug, Default)]
pub struct Differences {
    pub listed: Vec<Difference>,
    /// Differences found beyond the listed ones.
    pub unlisted: u64,
    /// Every difference found, per table, listed or not.
    pub per_table: BTreeMap<&'static str, u64>,
    /// Of those, the rows only the live table has, per table.
    pub live_only_per_table: BTreeMap<&'static str, u64>,
}

impl Differences {
    pub fn is_empty(&self) -> bool {
        self.listed.is_empty() && self.unlisted == 0
    }

    /// Every difference found, listed or not.
    pub fn len(&self) -> u64 {
        self.listed.len() as u64 + self.unlisted
    }

    /// The differences found in `tables`, listed or not.
    pub fn in_tables(&self, tables: &[&str]) -> u64 {
        tables.iter().filter_map(|t| self.per_table.get(t)).sum()
    }

    /// The differences in `table` that are rows only the live table has.
    pub fn live_only_in(&self, table: &str) -> u64 {
        self.live_only_per_table.get(table).copied().unwrap_or(0)
    }

    /// Compares one row of `table`, live and replayed (`None`: no such row).
    pub fn row<V: Fields + PartialEq + Default>(
        &mut self,
        table: &'static str,
        key: &str,
        live: Option<&V>,
        replayed: Option<&V>,
    ) {
        if live == replayed {
            return;
        }
        let missing = V::default().fields();
        let fields = |v: Option<&V>| v.map_or_else(|| missing.clone(), Fields::fields);
        let shown = |v: Option<&V>, s: String| if v.is_some() { s } else { "(none)".into() };
        let mut named = false;
        for ((field, l), (_, r)) in fields(live).into_iter().zip(fields(replayed)) {
            if l != r || live.is_none() || replayed.is_none() {
                named = true;
                self.push(Difference {
                    table,
                    key: key.to_owned(),
                    field,
                    live: shown(live, l),
                    replayed: shown(replayed, r),
                    live_only: replayed.is_none(),
                });
            }
        }
        // No field told them apart (a row without fields, as a template's
        // allowed channel, or values that print alike): the row still differs.
        if !named {
            let presence = |v: Option<&V>| if v.is_some() { "present" } else { "(none)" };
            self.push(Difference {
                table,
                key: key.to_owned(),
                field: "(row)",
                live: presence(live).into(),
                replayed: presence(replayed).into(),
                live_only: replayed.is_none(),
            });
        }
    }

    /// Adds the differences `other` found.
    pub fn merge(&mut self, other: Differences) {
        self.unlisted += other.unlisted;
        for (table, n) in other.per_table {
            *self.per_table.entry(table).or_default() += n;
        }
        for (table, n) in other.live_only_per_table {
            *self.live_only_per_table.entry(table).or_default() += n;
        }
        for d in other.listed {
            self.list(d);
        }
    }

    fn push(&mut self, difference: Difference) {
        *self.per_table.entry(difference.table).or_default() += 1;
        if difference.live_only {
            *self
                .live_only_per_table
                .entry(difference.table)
                .or_default() += 1;
        }
        self.list(difference);
    }

    /// Lists `difference` (already counted in `per_table`), or counts it unlisted.
    fn list(&mut self, difference: Difference) {
        if self.listed.len() < MAX_REPORTED {
            self.listed.push(difference);
        } else {
            self.unlisted += 1;
        }
    }
}
