//! App keys in `ledger replay --verify` (docs/design.md §19), pure: each
//! key's row folded from its `apikey-<id>` stream, digests in hex, scopes
//! sorted and joined by commas; [`super::keys_live`] compares them.

use uuid::Uuid;

use super::event::Event;
use super::tables::Tables;
use crate::domain::ledger_event::LedgerEvent;

/// Folds one of an app key's events into its row.
pub(super) fn apply(tables: &mut Tables, id: Uuid, e: &Event<'_>, event: &LedgerEvent) {
    let row = tables.api_keys.entry(id).or_default();
    match event {
        LedgerEvent::ApiKeyCreated(created) => {
            let mut scopes: Vec<&str> = created.scopes.iter().map(|s| s.into_str()).collect();
            scopes.sort_unstable();
            row.name.clone_from(&created.name);
            row.scopes = scopes.join(",");
            row.created_at = e.occurred_at;
            row.digest.clone_from(&created.digest);
            (row.rate_per_second, row.rate_burst) =
                crate::domain::rate_limit::columns(created.rate_limit);
        }
        LedgerEvent::ApiKeyRotated(rotated) => {
            row.previous_digest = Some(std::mem::replace(&mut row.digest, rotated.digest.clone()));
            row.previous_valid_until = Some(rotated.previous_valid_until);
        }
        LedgerEvent::ApiKeyRevoked(_) => row.revoked_at = Some(e.occurred_at),
        _ => return,
    }
    row.version = e.version;
}
