//! The per-user tables from the coupons as the log leaves them: each
//! coupon's claim (`user_claims`) and status bucket (`balances`) are their
//! definition, apart from the workers' event-by-event fold. A user's
//! coupons are spread over the passes, so each pass but the last spills
//! every coupon's holding into its user's bucket ([`spill`]), and each
//! bucket is added up once every pass is done ([`add_up`]): from the spill,
//! and from the last pass's holdings, kept in memory by symbol
//! ([`by_bucket`], a few bytes a coupon: its coupon map is dropped once
//! compared). With one pass nothing is spilled.

use std::io::{self, Write};

use uuid::Uuid;

use super::fold::Pass;
use super::spill::{Reader, Writers, put};
use super::tables::{Counts, Map, Names, NamesOver, ReplayedCoupon, Sym};
use crate::domain::coupon_state::CouponStatus;

/// One coupon's holding, by the symbols of its pass's names.
#[derive(Clone, Copy, Debug)]
pub struct Holding {
    user: Sym,
    template: Sym,
    status: CouponStatus,
    /// Whether it took a claim (a reissue after a refund takes none).
    claimed: bool,
    face_value: i64,
}

/// The holdings of `coupons`, by their users' buckets (`buckets` of them).
pub fn by_bucket(coupons: &Map<Uuid, ReplayedCoupon>, buckets: u32) -> Vec<Vec<Holding>> {
    let mut out = vec![Vec::new(); usize::try_from(buckets).unwrap_or(1)];
    for c in coupons.values() {
        let holding = Holding {
            user: c.user,
            template: c.template,
            status: c.state.status,
            claimed: c.refund_from.is_none(),
            face_value: c.face_value,
        };
        out[usize::try_from(c.bucket).unwrap_or(0)].push(holding);
    }
    out
}

/// Spills every coupon of `pass`: its user and template, its status and
/// face value, and whether it took a claim.
pub fn spill(pass: &Pass, writers: &mut Writers) -> io::Result<()> {
    for c in pass.coupons.values() {
        let w = writers.bucket(c.bucket);
        put::str(w, pass.names.name(c.user))?;
        put::str(w, pass.names.name(c.template))?;
        put::status(w, c.state.status)?;
        // Reissues after a refund take no quota and no per-user count.
        w.write_all(&[u8::from(c.refund_from.is_none())])?;
        w.write_all(&c.face_value.to_le_bytes())?;
    }
    Ok(())
}

/// Adds up a bucket's holdings: spilled by the passes before the last, and
/// the last's (`last`, by the symbols of `names`).
pub fn add_up<'a>(
    mut spilled: Reader,
    names: &'a Names,
    last: &[Holding],
) -> io::Result<Counts<'a>> {
    let mut counts = Counts {
        names: NamesOver::new(names),
        user_claims: Map::default(),
        balances: Map::default(),
    };
    counts.balances.reserve(last.len());
    counts.user_claims.reserve(last.len());
    for h in last {
        add(&mut counts, *h);
    }
    let (mut user, mut template) = (String::new(), String::new());
    while !spilled.at_end()? {
        spilled.str_into(&mut user)?;
        spilled.str_into(&mut template)?;
        let status = spilled.status()?;
        let claimed = spilled.u8()? == 1;
        let face_value = spilled.i64()?;
        let holding = Holding {
            user: counts.names.intern(&user),
            template: counts.names.intern(&template),
            status,
            claimed,
            face_value,
        };
        add(&mut counts, holding);
    }
    Ok(counts)
}

/// Counts one coupon.
fn add(counts: &mut Counts<'_>, h: Holding) {
    let bucket = counts.balances.entry((h.user, h.status)).or_default();
    bucket.count += 1;
    bucket.face_value.0 += h.face_value;
    if h.claimed {
        let claims = counts.user_claims.entry((h.template, h.user));
        claims.or_default().claimed += 1;
    }
}
