//! Redemption codes and packages in `ledger replay --verify` (docs/design.md §13):
//! their events folded into the write-model rows, in memory and without
//! I/O. Code batches, each code's uses (its stream's version), the
//! redemptions, each user's count of a batch, packages, their claims per
//! user and the channels that may give them out; `codes_live` compares
//! them with the live tables.

use uuid::Uuid;

use super::event::Event;
use super::tables::{CodeRedemptionRow, Present, Tables};
use crate::codes::passphrase::key_of;
use crate::domain::code_batch::CodeBatchStatus;
use crate::domain::ledger_event::LedgerEvent;
use crate::domain::package::PackageStatus;
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
            row.claimed += 1;
            let key = (sn.to_owned(), c.user_id.as_str().to_owned());
            t.package_claims.entry(key).or_default().claimed += 1;
        }
        LedgerEvent::PackageChannelAllowed(c) => {
            let key = (sn.to_owned(), c.channel_id.0);
            t.package_channels.insert(key, Present {});
        }
        _ => {}
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
