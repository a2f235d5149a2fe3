//! A coupon package as stored, with the channels that may claim it: read
//! by the claims (locked) and the package jobs, and by the lists.

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;

use super::RowError;
use crate::db::Named;
use crate::domain::events::PackageItem;
use crate::domain::ids::{ChannelId, PackageSn};
use crate::domain::package::{self, PackageStatus};

/// A package as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    pub sn: PackageSn,
    pub name: String,
    pub items: Vec<PackageItem>,
    pub total: i64,
    pub claimed: i64,
    pub per_user_limit: i32,
    pub issue_window: (DateTime<Utc>, DateTime<Utc>),
    pub status: PackageStatus,
    pub created_at: DateTime<Utc>,
    /// The channels that may claim it, in id order.
    pub channels: Vec<ChannelId>,
}

impl Package {
    /// Whether its claims run as jobs (more than [`package::MAX_SYNC`] coupons).
    pub fn runs_as_job(&self) -> bool {
        package::runs_as_job(&self.items)
    }
}

pub(crate) const COLUMNS: &str =
    "sn, name, items, total, claimed, per_user_limit, issue_begin, issue_end,
                       status, created_at,
                       ARRAY(SELECT channel_id FROM package_channels c
                              WHERE c.package_sn = p.sn ORDER BY channel_id)";

pub async fn read(
    client: &impl GenericClient,
    sn: &PackageSn,
) -> Result<Option<Package>, RowError> {
    let sql = format!("SELECT {COLUMNS} FROM packages p WHERE sn = $1");
    let row = client.query_opt(&sql, &[&sn]).await?;
    row.as_ref().map(package_from).transpose()
}

pub(crate) fn package_from(r: &tokio_postgres::Row) -> Result<Package, RowError> {
    let items = serde_json::from_value(r.get(2))
        .map_err(|e| RowError::Unreadable(format!("package items: {e}")))?;
    Ok(Package {
        sn: r.get(0),
        name: r.get(1),
        items,
        total: r.get(3),
        claimed: r.get(4),
        per_user_limit: r.get(5),
        issue_window: (r.get(6), r.get(7)),
        status: r.try_get::<_, Named<PackageStatus>>(8)?.0,
        created_at: r.get(9),
        channels: r.get(10),
    })
}
