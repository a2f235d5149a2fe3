//! Claims of large packages (docs/design.md §13). A claim of a package of more than
//! `MAX_SYNC` (100) coupons, online (`POST /v1/packages/{sn}/claims`) or by
//! one of its codes (`POST /v1/redemptions`), takes its counts in the
//! request (the package's, the user's, its templates' quotas), is recorded
//! as a job, put on `coupon.issuance` for the issuance worker, and
//! answered 202 with the job. `GET
//! /v1/package-jobs/{id}` follows it: the service or an operator may read
//! any job, a channel (signed like a claim) the jobs it asked for.

use std::sync::{Arc, Mutex, PoisonError};

use axum::Json;
use axum::body::Body;
use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::StatusCode;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::principal::Principal;
use crate::api::auth::signed_channel::SignedChannel;
use crate::api::http::context::Ctx;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{ApiQuery, page_bounds};
use crate::api::http::path_param::ApiPath;
use crate::commands::package_job::{self, NewJob};
use crate::commands::packages::Giver;
use crate::domain::eligibility::UserFacts;
use crate::domain::events::Metadata;
use crate::domain::ids::ChannelId;
use crate::domain::ids::{PackageSn, UserId};
use crate::domain::package_job::{PackageJob, Refusal};
use crate::exactly_once::idempotency;
use crate::messaging::package_job_message;
use crate::messaging::publish::PublishError;
use crate::messaging::topology;
use crate::queries::package_jobs::{self as jobs, PackageJobView};
use crate::write_model::code_batch_row::Batch;
use crate::write_model::package_row as packages;

/// Whether the package's claims run as jobs; false for an unknown package
/// (the synchronous path answers its 404).
pub(crate) async fn runs_as_job(state: &AppState, sn: &PackageSn) -> Result<bool, ApiError> {
    let client = state.pool.get().await?;
    let package = packages::read(&**client, sn).await?;
    Ok(package.is_some_and(|p| p.runs_as_job()))
}

/// A claim to queue, as its request asked it.
pub(crate) struct Queued<'a> {
    /// The Idempotency-Key's scope (the caller) and the request's hash.
    pub scope: &'a str,
    pub hash: &'a [u8; 32],
    pub package_sn: &'a PackageSn,
    pub user: &'a UserId,
    /// What the caller vouches for about the user.
    pub facts: &'a UserFacts,
    /// A package code's batch and serial.
    pub code: Option<(&'a Batch, i64)>,
    /// The channel's claim, or the code's redemption.
    pub giver: Giver,
    pub metadata: Metadata,
}

/// Records the job and publishes it: 202 with the job. A replayed
/// Idempotency-Key answers the job it recorded. When publishing fails,
/// the job is failed and the key forgotten (the same key may ask again),
/// and the request answers 503.
pub(crate) async fn queue(
    state: &AppState,
    ctx: &Ctx,
    q: Queued<'_>,
) -> Result<Response, ApiError> {
    let now = state.now();
    let opened: Arc<Mutex<Option<PackageJob>>> = Arc::default();
    let slot = opened.clone();
    let (sn, user, facts) = (q.package_sn.to_owned(), q.user.clone(), q.facts.clone());
    let (code, metadata, giver) = (q.code.map(|(b, s)| (b.clone(), s)), q.metadata, q.giver);
    let answer = ctx
        .write(state, q.scope, q.hash, StatusCode::ACCEPTED, |tx| {
            Box::pin(async move {
                let new = NewJob {
                    package_sn: &sn,
                    user_id: &user,
                    facts: &facts,
                    code: code.as_ref().map(|(batch, serial)| (batch, *serial)),
                    giver,
                    metadata: &metadata,
                };
                let job = package_job::open(tx, &new, now).await?;
                let view = jobs::read(&**tx, job.job_id, jobs::FIRST_PAGE).await?;
                *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(job);
                view.ok_or_else(|| {
                    ApiError::Internal(anyhow::anyhow!("the job just written is not there"))
                })
            })
        })
        .await?;
    let fresh = opened.lock().unwrap_or_else(PoisonError::into_inner).take();
    let Some(job) = fresh else {
        return Ok(answer); // an Idempotency-Key's replay: published the first time
    };
    match publish(state, &job).await {
        Ok(()) => Ok(answer),
        Err(e) => unpublished(state, ctx, q.scope, &job, e).await,
    }
}

async fn publish(state: &AppState, job: &PackageJob) -> Result<(), PublishError> {
    let message = package_job_message::encode(job).expect("a package job serializes");
    let published = state
        .chunks
        .publish_all(topology::ISSUANCE, "", &[message])
        .await;
    if let Err(e) = &published {
        let error = crate::logging::redact::scrub(&e.to_string(), [state.amqp_url.as_str()]);
        tracing::warn!(job = %job.job_id, error, "a package job was not published");
    }
    published
}

/// The job could not be published: failed (with its key forgotten), 503;
/// or, when the worker got it after all, 202 with where it stands.
async fn unpublished(
    state: &AppState,
    ctx: &Ctx,
    scope: &str,
    job: &PackageJob,
    e: PublishError,
) -> Result<Response, ApiError> {
    // Kept on the job for its caller to read: no broker password in it.
    let error = crate::logging::redact::scrub(&e.to_string(), [state.amqp_url.as_str()]);
    let down = ApiError::Unavailable(format!("RabbitMQ ({error})"));
    let body = down.body().error;
    let why = Refusal {
        status: down.status().as_u16(),
        code: body.code,
        message: body.message,
    };
    let mut client = state.pool.get().await?;
    let tx = client.transaction().await?;
    let failed = package_job::fail(&tx, job.job_id, &why, state.now()).await?;
    if let (true, Some(key)) = (failed, &ctx.idempotency_key) {
        idempotency::release(&tx, scope, key).await?;
    }
    tx.commit().await?;
    if failed {
        return Err(down);
    }
    let view = jobs::read(&**client, job.job_id, jobs::FIRST_PAGE).await?;
    let view =
        view.ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the job written is not there")))?;
    Ok((StatusCode::ACCEPTED, Json(view)).into_response())
}

/// The job's id, in the path: how the OpenAPI document names what
/// `ApiPath<Uuid>` parses.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct JobId {
    /// The job's id, from the claim's 202.
    pub id: Uuid,
}

/// The page of a done job's coupon ids.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CouponPage {
    /// Coupon ids to skip (default 0).
    #[param(value_type = Option<crate::api::http::schemas::Offset>, inline)]
    pub offset: Option<i64>,
    /// Coupon ids to answer, 1 to 1,000 (default 1,000).
    #[param(value_type = Option<crate::api::http::schemas::JobCouponPageLimit>, inline)]
    pub limit: Option<i64>,
}

/// A large package's claim: queued, done (with its coupons), refused (with
/// the answer the claim would have had at once: 409, 410, 422...) or
/// failed. As the service or an operator (bearer token: any job), or as
/// the channel that asked (signed like a claim, over an empty body: its
/// own jobs; another's is 404).
#[utoipa::path(get, path = "/v1/package-jobs/{id}", operation_id = "read_package_job",
    tag = "packages", params(JobId, CouponPage,
        ("X-Channel-Id" = Option<Uuid>, Header, description = "a channel's signed request instead of a bearer token"),
        ("X-Timestamp" = Option<i64>, Header), ("X-Nonce" = Option<String>, Header),
        ("X-Signature" = Option<String>, Header)),
    security(("service" = []), ("admin" = []), ()),
    responses((status = 200, body = PackageJobView), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "the token may not do that, or the signing \
            channel is disabled (`channel_disabled`)"),
        (status = 404, body = ErrorBody, description = "no such job, or another channel's"),
        (status = 429, body = ErrorBody, description = "too many bad signatures; see Retry-After")))]
pub async fn read(State(state): State<AppState>, request: Request) -> Result<Response, ApiError> {
    let (mut parts, _) = request.into_parts();
    let channel = match caller(&state, &mut parts).await {
        Ok(channel) => channel,
        Err(refused) => return Ok(refused),
    };
    // The path is read once the caller is known, as the token routes do.
    let ApiPath(id) = ApiPath::<Uuid>::from_request_parts(&mut parts, &state).await?;
    let ApiQuery(q) = ApiQuery::<CouponPage>::from_request_parts(&mut parts, &state).await?;
    let limit = Some(q.limit.unwrap_or(jobs::MAX_COUPON_PAGE));
    let page = page_bounds(q.offset, limit, jobs::MAX_COUPON_PAGE)?;
    let client = state.pool.get().await?;
    let job = jobs::read(&**client, id, page).await?;
    let job = job.filter(|j| channel.is_none_or(|c| j.channel_id == Some(c)));
    let job = job.ok_or_else(|| ApiError::not_found("package job", id))?;
    Ok(Json(job).into_response())
}

/// None for the service or an operator, else the channel whose signature
/// held (its nonce spent, as a claim's).
async fn caller(state: &AppState, parts: &mut Parts) -> Result<Option<ChannelId>, Response> {
    crate::api::auth::signature::one_credential(&parts.headers)
        .map_err(IntoResponse::into_response)?;
    if parts.headers.contains_key(AUTHORIZATION) {
        let reader = Principal::from_request_parts(parts, state).await;
        return reader.map(|_| None).map_err(IntoResponse::into_response);
    }
    let request = Request::from_parts(parts.clone(), Body::empty());
    let signed = SignedChannel::<true>::from_request(request, state).await?;
    Ok(Some(signed.channel_id))
}
