//! Lists of coupon packages (the console's and the API's).

use tokio_postgres::GenericClient;

use super::page::{self, Bounds, List, Page};
use crate::domain::package::PackageStatus;
use crate::write_model::RowError;
use crate::write_model::package_row::{COLUMNS, Package, package_from};

/// A page of packages, newest first, optionally of one status, and how
/// many match in all.
pub async fn list(
    client: &impl GenericClient,
    status: Option<PackageStatus>,
    shops: Option<Vec<String>>,
    bounds: Bounds,
) -> Result<Page<Package>, RowError> {
    let status = status.map(PackageStatus::as_str);
    let list = List {
        columns: COLUMNS,
        from: "packages p",
        // Of some shops: every template of the package is of one of them.
        filter: "($1::text IS NULL OR status = $1) AND ($2::text[] IS NULL OR NOT EXISTS (
                    SELECT 1 FROM jsonb_array_elements(p.items) i
                      LEFT JOIN templates t ON t.sn = i->>'template_sn'
                     WHERE t.shop_id IS NULL OR NOT t.shop_id = ANY($2)))",
        order: "created_at DESC, sn DESC",
    };
    page::fetch(client, &list, &[&status, &shops], bounds, package_from).await
}
