//! App keys in `ledger replay --verify` (docs/design.md §19), compared: the
//! live `api_keys` table read and matched against what
//! [`super::keys_fold`] rebuilt, with [`super::live`]'s streaming.

use tokio_postgres::types::Type;
use uuid::Uuid;

use super::live::{Line, Live, Query, debug, plain};
use super::tables::{ApiKeyRow, Map};

/// Compares the live `api_keys` with `keys` (which it empties).
pub(super) async fn compare(
    c: &mut Live<'_, '_, '_>,
    keys: &mut Map<Uuid, ApiKeyRow>,
) -> Result<(), tokio_postgres::Error> {
    c.table("api_keys", API_KEYS, plain(api_key), keys, debug)
        .await
}

/// Scopes sorted as the fold sorts them (by name, as text).
const API_KEYS: Query = (
    "SELECT id, name, array_to_string(ARRAY(SELECT s FROM unnest(scopes) s ORDER BY s COLLATE \"C\"), ','),
            created_at, encode(digest, 'hex'), encode(previous_digest, 'hex'),
            previous_valid_until, revoked_at, rate_per_second, rate_burst, version FROM api_keys",
    &[
        Type::UUID,
        Type::TEXT,
        Type::TEXT,
        Type::TIMESTAMPTZ,
        Type::TEXT,
        Type::TEXT,
        Type::TIMESTAMPTZ,
        Type::TIMESTAMPTZ,
        Type::INT4,
        Type::INT4,
        Type::INT4,
    ],
);

fn api_key(r: &Line) -> Result<(Uuid, ApiKeyRow), tokio_postgres::Error> {
    let row = ApiKeyRow {
        name: r.try_get(1)?,
        scopes: r.try_get(2)?,
        created_at: r.try_get(3)?,
        digest: r.try_get(4)?,
        previous_digest: r.try_get(5)?,
        previous_valid_until: r.try_get(6)?,
        revoked_at: r.try_get(7)?,
        rate_per_second: r.try_get(8)?,
        rate_burst: r.try_get(9)?,
        version: r.try_get(10)?,
    };
    Ok((r.try_get(0)?, row))
}
