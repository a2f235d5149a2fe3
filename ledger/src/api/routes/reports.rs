//! `GET /v1/reports/liability`: the liability report of `ledger report
//! liability` over HTTP, for the console's finance page: as of an instant
//! (RFC 3339), the end of a business day or now, by template, channel,
//! issue day or shop; JSON, or CSV as a download.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::ApiQuery;
use crate::domain::liability::By;
use crate::domain::liability_report::{AsOf, Row, by_name, csv, parse_by, rows};
use crate::queries::liability::{LiabilityError, report, shops_for};
use crate::queries::names::{channel_names, template_names};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LiabilityQuery {
    /// RFC 3339 (`2026-11-20T16:00:00Z`), a business day (`2026-11-20`:
    /// its end in `LEDGER_TZ`) or `now`.
    #[param(value_type = crate::api::http::schemas::AsOf, inline)]
    pub as_of: String,
    /// `template` (default), `channel`, `day` or `shop` (the shop of the
    /// coupons' template; `(platform)` for templates of no shop).
    #[param(value_type = Option<crate::api::http::schemas::ByName>, inline)]
    pub by: Option<String>,
    /// `json` (default) or `csv` (a download).
    #[param(value_type = Option<crate::api::http::schemas::JsonOrCsv>, inline)]
    pub format: Option<String>,
}

/// The report: one row per group, then the total.
#[derive(Serialize, ToSchema)]
pub struct LiabilityReport {
    pub as_of: DateTime<Utc>,
    /// `template`, `channel`, `day` or `shop`.
    pub by: String,
    /// The liability snapshot (its checkpoint) the report started from;
    /// null: from the first event.
    pub from_snapshot: Option<i64>,
    /// Events folded after it.
    pub events_folded: u64,
    pub rows: Vec<NamedRow>,
}

/// A row of the report, with the name of its template or channel beside
/// the id it is grouped by (the CSV keeps the ids alone).
#[derive(Serialize, ToSchema)]
pub struct NamedRow {
    #[serde(flatten)]
    pub row: Row,
    /// The template's or the channel's name; absent for a day, a shop,
    /// coupons of no channel (`none`) and the total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Each row with its group's name, looked up in one query.
async fn named(
    client: &impl tokio_postgres::GenericClient,
    by: By,
    rows: Vec<Row>,
) -> Result<Vec<NamedRow>, ApiError> {
    let names = match by {
        By::Template => {
            let sns: Vec<&str> = rows.iter().map(|r| r.group.as_str()).collect();
            template_names(client, &sns).await?
        }
        By::Channel => {
            let ids: Vec<uuid::Uuid> = rows.iter().filter_map(|r| r.group.parse().ok()).collect();
            channel_names(client, &ids).await?
        }
        By::Day | By::Shop => Default::default(),
    };
    Ok(rows
        .into_iter()
        .map(|row| NamedRow {
            name: names.get(&row.group).cloned(),
            row,
        })
        .collect())
}

/// What the ledger owed and what its coupons cost as of an instant, from
/// the events alone (the same numbers as `ledger report liability`).
#[utoipa::path(get, path = "/v1/reports/liability", operation_id = "liability_report",
    tag = "finance", params(LiabilityQuery),
    security(("admin" = [])),
    responses((status = 200, description = "JSON; with `format=csv`, text/csv \
            `group,issued,...,cost` as an attachment",
            content((LiabilityReport = "application/json"), (String = "text/csv"))),
        (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
pub async fn liability(
    State(state): State<AppState>,
    principal: Principal,
    ApiQuery(q): ApiQuery<LiabilityQuery>,
) -> Result<Response, ApiError> {
    let invalid = |m: String| ApiError::BadRequest {
        code: "invalid_field",
        message: m,
    };
    let as_of = AsOf::parse(q.as_of.trim())
        .and_then(|a| a.resolve(state.tz, state.now()))
        .map_err(|e| invalid(format!("as_of: {e}")))?;
    let by = q.by.as_deref().map_or(Ok(By::Template), parse_by);
    let by = by.map_err(|e| invalid(format!("by: {e}")))?;
    let as_csv = match q.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(other) => return Err(invalid(format!("format: {other:?}: expected json or csv"))),
    };
    let failed = |e| match e {
        LiabilityError::Db(e) => ApiError::from(e),
        other => ApiError::Internal(other.into()),
    };
    // Lag-tolerant: a replica that keeps up (docs/design.md §17); the
    // report reads one snapshot and writes nothing.
    let mut client = state.reads.pick().get().await?;
    let mut found = report(&mut client, as_of, state.tz, true)
        .await
        .map_err(failed)?;
    // The templates' shops, read once: for rows by shop, and for a
    // merchant's report, its shops' templates only (docs/design.md §19).
    let merchant = principal.merchant_shops();
    let shops_by = if merchant.is_some() { By::Shop } else { by };
    let shops = shops_for(&**client, &found.liability, shops_by)
        .await
        .map_err(failed)?;
    if let Some(mine) = merchant {
        let of_mine = |sn: &_| shops.of(sn).is_some_and(|shop| mine.contains(shop));
        found.liability.retain_templates(of_mine);
    }
    let rows = rows(&found.liability, by, &shops);
    if as_csv {
        let name = format!(
            "liability-{}-by-{}.csv",
            as_of.format("%Y%m%dT%H%M%SZ"),
            by_name(by)
        );
        let disposition = format!("attachment; filename=\"{name}\"");
        let headers = [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ];
        return Ok((headers, csv(&rows)).into_response());
    }
    Ok(Json(LiabilityReport {
        as_of,
        by: by_name(by).to_owned(),
        from_snapshot: found.snapshot,
        events_folded: found.events,
        rows: named(&**client, by, rows).await?,
    })
    .into_response())
}
