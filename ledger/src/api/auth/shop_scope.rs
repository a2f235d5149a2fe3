//! A merchant may touch only its shops' templates, and the packages, code
//! batches and jobs made of them (docs/design.md §19): the shops of the
//! resource a path names, read in one statement, must all be the
//! merchant's; else 403 `shop_scope`. A resource that does not exist passes
//! here and is the handler's 404. Lists and creations check in their
//! handlers with [`check_templates`].

use axum::extract::RawPathParams;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::principal::Principal;
use super::route_rules::ShopOf;
use crate::api::AppState;
use crate::api::http::error::ApiError;
use crate::domain::ids::ShopId;

/// The shops of a package's templates.
const PACKAGE: &str = "SELECT t.shop_id FROM packages p
      CROSS JOIN jsonb_array_elements(p.items) i
      JOIN templates t ON t.sn = i->>'template_sn' WHERE p.sn = $1";

pub async fn check(
    state: &AppState,
    principal: &Principal,
    shop: ShopOf,
    params: &RawPathParams,
) -> Result<(), ApiError> {
    let param = |name: &str| params.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
    if shop == ShopOf::Nothing {
        return Ok(());
    }
    let client = state.pool.get().await?;
    let shops = match shop {
        ShopOf::Nothing => Vec::new(),
        ShopOf::Template => {
            let sql = "SELECT shop_id FROM templates WHERE sn = $1";
            shops(&**client, sql, &param("sn").unwrap_or_default()).await?
        }
        ShopOf::Package => shops(&**client, PACKAGE, &param("sn").unwrap_or_default()).await?,
        ShopOf::CodeBatch => {
            let Some(id) = param("id").and_then(|id| Uuid::parse_str(id).ok()) else {
                return Ok(());
            };
            let sql = "SELECT t.shop_id FROM code_batches b JOIN templates t
                   ON t.sn = b.template_sn
                   OR t.sn IN (SELECT i->>'template_sn' FROM packages p
                               CROSS JOIN jsonb_array_elements(p.items) i WHERE p.sn = b.package_sn)
                WHERE b.id = $1";
            shops(&**client, sql, &id).await?
        }
        ShopOf::Job => {
            let Some(id) = param("id").and_then(|id| Uuid::parse_str(id).ok()) else {
                return Ok(());
            };
            let sql =
                "SELECT t.shop_id FROM issuance_jobs j JOIN templates t ON t.sn = j.template_sn
                WHERE j.id = $1";
            shops(&**client, sql, &id).await?
        }
    };
    all_mine(principal, &shops)
}

/// The shop of each row `sql` returns for `key` (None: the platform's).
async fn shops(
    client: &impl GenericClient,
    sql: &str,
    key: &(dyn tokio_postgres::types::ToSql + Sync),
) -> Result<Vec<Option<ShopId>>, ApiError> {
    let rows = client.query(sql, &[key]).await?;
    let shop = |r: &tokio_postgres::Row| r.get::<_, Option<String>>(0).map(ShopId::stored);
    Ok(rows.iter().map(shop).collect())
}

/// Refuses a merchant any of `templates` outside its shops (a creation's
/// or an upload's templates). Unknown templates pass: the command says so.
pub async fn check_templates(
    client: &impl GenericClient,
    principal: &Principal,
    templates: &[&str],
) -> Result<(), ApiError> {
    if principal.merchant_shops().is_none() || templates.is_empty() {
        return Ok(());
    }
    let sql = "SELECT shop_id FROM templates WHERE sn = ANY($1)";
    all_mine(principal, &shops(client, sql, &templates).await?)
}

/// Refuses a merchant a package outside its shops.
pub async fn check_package(
    client: &impl GenericClient,
    principal: &Principal,
    sn: &str,
) -> Result<(), ApiError> {
    if principal.merchant_shops().is_none() {
        return Ok(());
    }
    all_mine(principal, &shops(client, PACKAGE, &sn).await?)
}

/// Refuses unless every shop of `shops` is the merchant's.
fn all_mine(principal: &Principal, shops: &[Option<ShopId>]) -> Result<(), ApiError> {
    shops
        .iter()
        .try_for_each(|s| principal.check_shop(s.as_ref()))
}
