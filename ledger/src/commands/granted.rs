//! The `CouponsGranted` messages of due rows (docs/design.md §10), for the
//! notification sender ([`super::reminders`]): each lists the coupons its
//! job gave its user that are still unused when it is sent, read from the
//! write model (the notify projection may not have seen the job's last
//! chunks yet; the job has ended, so the write model has every coupon).

use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use rust_decimal::Decimal;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use crate::domain::coupon_state::CouponStatus;
use crate::domain::granted::{CouponsGranted, MAX_LISTED_COUPONS};
use crate::domain::money::Money;
use crate::domain::template_status::TemplateStatus;

/// A claimed `CouponsGranted` row: one message.
#[derive(Clone, Debug)]
pub struct DueGrant {
    pub id: i64,
    pub user_id: String,
    pub job_id: Uuid,
    pub template_sn: String,
}

/// The message of each row whose user still holds an unused, unexpired
/// coupon of its job (the same coupons a reminder would list), by row id.
/// A row without one gets none and stays pending: a locked coupon may come
/// back, and the projection cancels the row once none is left.
pub async fn messages(
    tx: &Transaction<'_>,
    now: DateTime<Utc>,
    due: &[DueGrant],
) -> Result<Vec<(i64, CouponsGranted)>, tokio_postgres::Error> {
    if due.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i64> = due.iter().map(|g| g.id).collect();
    let users: Vec<&str> = due.iter().map(|g| g.user_id.as_str()).collect();
    let jobs: Vec<Uuid> = due.iter().map(|g| g.job_id).collect();
    // `coupons_user` finds a user's coupons; the job's are a few of them.
    let sql = "SELECT x.r, t.name, t.currency, count(*), sum(t.face_value),
                      (array_agg(c.id ORDER BY c.job_line, c.id))[1:$7]
                 FROM unnest($1::bigint[], $2::text[], $3::uuid[]) AS x (r, u, j)
                 JOIN coupons c ON c.user_id = x.u AND c.job_id = x.j
                 JOIN templates t ON t.sn = c.template_sn
                WHERE c.status = $4 AND c.expires_at > $5 AND t.status <> $6
                GROUP BY x.r, t.name, t.currency";
    let (unused, void) = (CouponStatus::Unused.as_str(), TemplateStatus::Void.as_str());
    let listed = i32::try_from(MAX_LISTED_COUPONS).expect("a small bound");
    let params: [&(dyn ToSql + Sync); 7] = [&ids, &users, &jobs, &unused, &now, &void, &listed];
    let rows = tx.query(&tx.prepare_cached(sql).await?, &params).await?;
    let by_id: std::collections::HashMap<i64, &DueGrant> = due.iter().map(|g| (g.id, g)).collect();
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let id: i64 = r.get(0);
        let Some(g) = by_id.get(&id) else { continue };
        let count: i64 = r.get(3);
        let total: Decimal = r.get(4);
        out.push((
            id,
            CouponsGranted {
                user_id: g.user_id.clone(),
                job_id: g.job_id,
                template_sn: g.template_sn.clone(),
                name: r.get(1),
                count: u64::try_from(count).unwrap_or(0),
                coupon_ids: r.get(5),
                // A sum past the largest amount (billions of coupons) shows it.
                face_value_total: Money::try_from_decimal(total).unwrap_or(Money::MAX),
                currency: r.get(2),
            },
        ));
    }
    out.sort_by_key(|(id, _)| *id);
    Ok(out)
}
