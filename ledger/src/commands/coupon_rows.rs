//! The rows of new coupons: every write that issues puts them in `coupons`
//! here, one by an INSERT (a claim, a refund's reissue) or many by one binary
//! COPY (batched claims, a package's coupons, an issuance chunk). A new coupon
//! is `unused`, at version 1.

use futures_util::pin_mut;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::Type;

use crate::domain::coupon_state::CouponStatus;
use crate::domain::events::CouponIssued;

const COPY_COUPONS: &str = "COPY coupons (id, template_sn, user_id, status, issued_at, \
     effective_at, expires_at, version, job_id, job_line, channel_id) FROM STDIN (FORMAT binary)";
const COUPON_TYPES: [Type; 11] = [
    Type::UUID,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::TIMESTAMPTZ,
    Type::TIMESTAMPTZ,
    Type::TIMESTAMPTZ,
    Type::INT4,
    Type::UUID,
    Type::INT8,
    Type::UUID,
];

/// One new coupon's row (a claim, a reissue).
pub async fn insert(
    tx: &deadpool_postgres::Transaction<'_>,
    c: &CouponIssued,
) -> Result<(), tokio_postgres::Error> {
    tx.execute(
        &tx.prepare_cached(
            "INSERT INTO coupons (id, template_sn, user_id, status, issued_at, effective_at,
             expires_at, channel_id, refund_from, version)
         VALUES ($1, $2, $3, $9, $4, $5, $6, $7, $8, 1)",
        )
        .await?,
        &[
            &c.coupon_id,
            &c.template_sn,
            &c.user_id,
            &c.issued_at,
            &c.effective_at,
            &c.expires_at,
            &c.channel_id,
            &c.refund_from,
            &CouponStatus::Unused.as_str(),
        ],
    )
    .await?;
    Ok(())
}

/// New coupons' rows by one binary COPY (bulk issuance, batched claims and
/// the bench's baseline).
pub async fn copy(
    tx: &tokio_postgres::Transaction<'_>,
    coupons: &[CouponIssued],
) -> Result<u64, tokio_postgres::Error> {
    let sink = tx.copy_in(COPY_COUPONS).await?;
    let writer = BinaryCopyInWriter::new(sink, &COUPON_TYPES);
    pin_mut!(writer);
    let unused = CouponStatus::Unused.as_str();
    for c in coupons {
        let line = c.job_line.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
        writer
            .as_mut()
            .write(&[
                &c.coupon_id,
                &c.template_sn,
                &c.user_id,
                &unused,
                &c.issued_at,
                &c.effective_at,
                &c.expires_at,
                &1_i32,
                &c.job_id,
                &line,
                &c.channel_id,
            ])
            .await?;
    }
    writer.finish().await
}
