//! Resets the Redis gate from Postgres: every active template on start and
//! every `LEDGER_FLASH_RECONCILE_SECS` (the stock; the claimers too on start
//! and every [`CLAIMERS_EVERY`] passes), and one
//! template on demand (cold keys after a flush or restart of Redis, a
//! sold-out answer to check). See [`super::gate`] for why a reset is safe
//! while claims run.

use std::sync::Arc;
use std::time::Duration;

use tokio_postgres::GenericClient;

use super::{Flash, GateInfo};
use crate::domain::ids::{ChannelId, TemplateSn};
use crate::domain::rate_limit::RateLimit;
use crate::domain::template_status::TemplateStatus;

/// Active templates reset per pass, at most (the newest first).
const MAX_PER_PASS: i64 = 10_000;
/// Every this many passes the claimers are reloaded too: a reservation
/// lost with a killed `serve` counts its user until then.
const CLAIMERS_EVERY: u64 = 12;

/// A template's limits, or None when there is no such template.
pub async fn read_info(
    client: &impl GenericClient,
    sn: &TemplateSn,
) -> Result<Option<GateInfo>, tokio_postgres::Error> {
    let sql = "SELECT status = $2, per_user_limit, rate_limit,
                      ARRAY(SELECT channel_id FROM template_channels WHERE template_sn = $1),
                      eligibility
                 FROM templates WHERE sn = $1";
    let active = TemplateStatus::Active.as_str();
    let row = client.query_opt(sql, &[&sn, &active]).await?;
    Ok(row.map(|r| GateInfo {
        active: r.get(0),
        per_user_limit: r.get(1),
        rate_limit: r
            .get::<_, Option<serde_json::Value>>(2)
            .and_then(|v| serde_json::from_value::<RateLimit>(v).ok())
            .unwrap_or_default(),
        channels: r.get::<_, Vec<ChannelId>>(3).into(),
        // Written from a checked `Eligibility`: one that does not read back
        // would be a hand edit; Postgres still decides then.
        eligibility: r
            .get::<_, Option<serde_json::Value>>(4)
            .and_then(|v| serde_json::from_value(v).ok()),
    }))
}

/// Resets one template's gate (with its claimers when `claimers`).
pub async fn reset(flash: &Flash, sn: &TemplateSn, claimers: bool) -> anyhow::Result<()> {
    let Some(mut conn) = flash.redis.connection().await else {
        return Ok(());
    };
    let client = flash.pool.get().await?;
    let reset = super::gate::warm(&**client, &flash.redis, &mut conn, sn, claimers).await?;
    flash.metrics.resets.inc();
    if let Some(r) = reset
        && let Some(before) = r.before
        && before != r.after
    {
        flash.metrics.corrections.inc_by(before.abs_diff(r.after));
        tracing::info!(
            template = %sn,
            before,
            after = r.after,
            "gate stock corrected"
        );
    }
    Ok(())
}

async fn active_templates(flash: &Flash) -> anyhow::Result<Vec<TemplateSn>> {
    let client = flash.pool.get().await?;
    let rows = client
        .query(
            "SELECT sn FROM templates WHERE status = $2 ORDER BY created_at DESC LIMIT $1",
            &[&MAX_PER_PASS, &TemplateStatus::Active.as_str()],
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// One pass over the active templates. A template that cannot be reset
/// (a Redis timeout while loading its claimers) does not stop the pass:
/// the others are still reset, and the failures are reported once, with
/// the first error.
async fn pass(flash: &Flash, claimers: bool) -> anyhow::Result<usize> {
    let templates = active_templates(flash).await?;
    let mut failed = 0;
    let mut first = None;
    for sn in &templates {
        if let Err(e) = reset(flash, sn, claimers).await {
            failed += 1;
            first.get_or_insert((sn.clone(), e));
        }
    }
    if let Some((sn, e)) = first {
        tracing::warn!(
            failed,
            of = templates.len(),
            first = %sn,
            error = crate::logging::chain(e.as_ref()),
            "flash gate: templates not reset in this pass"
        );
    }
    Ok(templates.len())
}

/// Warms every active template on start (claimers included), then resets
/// their stock every `period`, and their claimers every [`CLAIMERS_EVERY`]
/// periods. Redis down: the pass is skipped; when it
/// comes back empty, the gate finds its templates cold and warms them.
pub async fn run_forever(flash: Arc<Flash>, period: Duration) {
    for n in 0_u64.. {
        let claimers = n % CLAIMERS_EVERY == 0;
        match pass(&flash, claimers).await {
            Ok(templates) if n == 0 => tracing::info!(templates, "flash gate warmed"),
            Ok(_) => {}
            Err(e) => tracing::warn!(
                error = crate::logging::chain(e.as_ref()),
                "flash gate reconciliation failed"
            ),
        }
        tokio::time::sleep(period).await;
    }
}
