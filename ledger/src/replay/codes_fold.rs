//! Redemption codes and packages in `ledger replay --verify` (docs/design.md §13):
//! their events folded into the write-model rows, in memory and without
//! I/O. Code batches, each code's uses (its stream's version), the
//! redemptions, each user's count of a batch, packages, their claims per
//! user and the channels that may give them out; `codes_live` compares
//! them with the live tables.

use uuid::Uuid;

use super::event::Event;
use super::tables::{CodeRedemptionRow, Map, Present, Tables};
use crate::codes::passphrase::key_of;
use crate::domain::code_batch::CodeBatchStatus;
use crate::domain::events::PackageItem;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::package::{self, PackageStatus};
use crate::domain::stream::Stream;

/// Folds one event of a code batch, a code or a package (other streams are
/// not this module's).
pub fn apply(t: &mut Tables, stream: Stream<'_>, e: &Event<'_>, event: &LedgerEvent) {
    match stream {
        Stream::CodeBatch(id) => batch(t, id, e, event),
        Stream::Code(batch, serial) => used(t, (batch, serial), e, event),
        Stream::Package(sn) => package(t, sn, e, event),
        _ => debug_assert!(false, "not a code or package stream: {stream}"),
    }
}

/// A batch's event.
fn batch(t: &mut Tables, id: Uuid, e: &Event<'_>, event: &LedgerEvent) {
    let row = t.code_batches.entry(id).or_default();
    row.version = e.version;
    match event {
        LedgerEvent::CodeBatchCreated(c) => {
            row.template_sn = c.template_sn.as_ref().map(|sn| sn.as_str().to_owned());
            row.package_sn = c.package_sn.as_ref().map(|sn| sn.as_str().to_owned());
            row.key_id.clone_from(&c.key_id);
            (row.first_serial, row.count) = (c.first_serial, c.count);
            (row.uses_per_code, row.per_user) = (c.uses_per_code, c.per_user);
            row.expires_at = c.expires_at;
            row.passphrase.clone_from(&c.passphrase);
            // The key is a pure function of the text, as the command made it.
            row.passphrase_key = c.passphrase.as_deref().and_then(|p| key_of(p).ok());
            row.status = CodeBatchStatus::Active.as_str().into();
            row.created_at = e.occurred_at;
        }
        LedgerEvent::CodeBatchStopped(_) => row.status = CodeBatchStatus::Stopped.as_str().into(),
        _ => {}
    }
}

/// A package's event (a claim counts for its user too).
fn package(t: &mut Tables, sn: &str, e: &Event<'_>, event: &LedgerEvent) {
    let row = t.packages.entry(sn.to_owned()).or_default();
    row.version = e.version;
    match event {
        LedgerEvent::PackageCreated(c) => {
            row.name.clone_from(&c.name);
            row.items = serde_json::to_value(&c.items).unwrap_or_default();
            (row.total, row.per_user_limit) = (c.total, c.per_user_limit);
            (row.issue_begin, row.issue_end) = (c.issue_window.begin, c.issue_window.end);
            row.status = PackageStatus::Draft.as_str().into();
            row.created_at = e.occurred_at;
        }
        LedgerEvent::PackageActivated(c) | LedgerEvent::PackageStopped(c) => {
            row.status = c.to.as_str().to_owned();
        }
        LedgerEvent::PackageClaimed(c) => {
            let key = (sn.to_owned(), c.user_id.as_str().to_owned());
            // A reserved claim was counted by its `PackageClaimReserved`
            // (docs/design.md §13, "Large packages keep their promise"); its
            // coupons' `CouponIssued` now count the templates' share.
            let items = row.items.clone();
            if take_pending(&mut t.package_pending, &key) {
                ahead(t, &items, (e.bucket, c.user_id.as_str()), -1);
                return;
            }
            row.claimed += 1;
            t.package_claims.entry(key).or_default().claimed += 1;
        }
        LedgerEvent::PackageClaimReserved(c) => {
            row.claimed += 1;
            let items = row.items.clone();
            let key = (sn.to_owned(), c.user_id.as_str().to_owned());
            *t.package_pending.entry(key.clone()).or_default() += 1;
            t.package_claims.entry(key).or_default().claimed += 1;
            ahead(t, &items, (e.bucket, c.user_id.as_str()), 1);
        }
        LedgerEvent::PackageClaimReleased(c) => {
            row.claimed -= 1;
            let items = row.items.clone();
            let key = (sn.to_owned(), c.user_id.as_str().to_owned());
            take_pending(&mut t.package_pending, &key);
            let claims = t.package_claims.entry(key.clone()).or_default();
            claims.claimed -= 1;
            // A user's row holds at least one claim: the last one goes with it.
            if claims.claimed == 0 {
                t.package_claims.remove(&key);
            }
            ahead(t, &items, (e.bucket, c.user_id.as_str()), -1);
        }
        LedgerEvent::PackageChannelAllowed(c) => {
            let key = (sn.to_owned(), c.channel_id.0);
            t.package_channels.insert(key, Present {});
        }
        _ => {}
    }
}

/// Ends one of the user's reserved claims of the package still waiting
/// for its job; false when none waits (the claim was written at once).
fn take_pending(pending: &mut Map<(String, String), i32>, key: &(String, String)) -> bool {
    match pending.get_mut(key) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

/// A reserved claim's templates' counts (each template's quota and the
/// user's count of it), `sign` 1 when its request took them, -1 when its
/// job wrote the coupons (their `CouponIssued` count them from then on) or
/// gave them back: they are no event of their own (docs/design.md §13).
/// `bucket` is the user's (`partition`), where `users` adds the user's.
fn ahead(t: &mut Tables, items: &serde_json::Value, (bucket, user): (u32, &str), sign: i32) {
    let Ok(items) = serde_json::from_value::<Vec<PackageItem>>(items.clone()) else {
        debug_assert!(
            false,
            "a package's items are as its creation event wrote them"
        );
        return;
    };
    for (sn, n) in package::shares(&items) {
        let n = i32::try_from(n).unwrap_or(i32::MAX) * sign;
        let template = t.templates.entry(sn.as_str().to_owned()).or_default();
        template.issued += i64::from(n);
        let key = (bucket, sn.as_str().to_owned(), user.to_owned());
        let claims = t.claims_ahead.entry(key.clone()).or_default();
        *claims += n;
        if *claims == 0 {
            t.claims_ahead.remove(&key);
        }
    }
}

/// A code's use: its stream's version is its use count.
fn used(t: &mut Tables, (batch, serial): (Uuid, i64), e: &Event<'_>, event: &LedgerEvent) {
    let LedgerEvent::CodeRedeemed(r) = event else {
        return;
    };
    t.code_uses.entry((batch, serial)).or_default().uses = e.version;
    let row = CodeRedemptionRow {
        coupon_ids: r.coupon_ids.clone(),
        redeemed_at: e.occurred_at,
    };
    t.code_redemptions
        .insert((batch, serial, r.user_id.as_str().to_owned()), row);
    t.code_batch_users
        .entry((batch, r.user_id.as_str().to_owned()))
        .or_default()
        .redeemed += 1;
}
