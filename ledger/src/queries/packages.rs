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
    bounds: Bounds,
) -> Result<Page<Package>, RowError> {
    let status = status.map(PackageStatus::as_str);
    let list = List {
        columns: COLUMNS,
        from: "packages p",
        filter: "$1::text IS NULL OR status = $1",
        order: "created_at DESC, sn DESC",
    };
    page::fetch(client, &list, &[&status], bounds, package_from).await
}
