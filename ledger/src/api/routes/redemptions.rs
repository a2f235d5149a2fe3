//! `POST /v1/redemptions {code, user_id}` (docs/design.md §13): a user redeems a
//! code for its template's coupon (or its package's), asked by the service
//! (bearer token) or by a channel (signed like a claim).
//!
//! The code is checked before any database read: its check character,
//! then its tag under each configured key (a forged or mistyped code is
//! refused there). Its serial then names its batch. Unknown and forged
//! codes get the same 404. Failed attempts are counted per user and per
//! client address (`guess_limit`): past the limit, 429 until the window
//! ends. A Redis bitmap per batch answers repeats of used-up codes (410)
//! without Postgres; Postgres decides everything else, and everything when
//! Redis is down.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, FromRequest, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::api::AppState;
use crate::api::auth::guess_limit::Guesser;
use crate::api::auth::principal::Principal;
use crate::api::auth::signed_channel::SignedChannel;
use crate::api::http::context::Ctx;
use crate::api::http::error::too_many;
use crate::api::http::error::{ApiError, ErrorBody};
use crate::api::http::extract::{parse_json, read_body};
use crate::api::routes::package_jobs::{self, Queued};
use crate::api::routes::user_facts_body::user_facts_body;
use crate::codes::Code;
use crate::codes::passphrase::key_of;
use crate::commands::claim_batch::BatchClaim;
use crate::commands::code_batches;
use crate::commands::packages::Giver;
use crate::commands::redeem::{self, RedeemRequest};
use crate::commands::redeem_batch::BatchRedemption;
use crate::domain::eligibility::UserFacts;
use crate::domain::ids::ChannelId;
use crate::domain::ids::UserId;
use crate::exactly_once::idempotency::request_hash;
use crate::flash::used_up;
use crate::queries::coupons::CouponView;
use crate::queries::package_jobs::PackageJobView;
use crate::write_model::code_batch_row::Batch;

// The facts are checked against the eligibility of the code's template,
// or of each of its package's templates (docs/design.md §15).
user_facts_body! {
    pub struct Redeem {
        /// The code as the user typed it: case, spaces and dashes do not matter.
        pub code: String,
    }
}

#[derive(Serialize, ToSchema)]
pub struct Redemption {
    pub batch_id: Uuid,
    pub serial: i64,
    /// The code's uses after this one.
    pub uses: i32,
    pub uses_left: i32,
    /// The template's coupon, or the package's coupons.
    pub coupons: Vec<CouponView>,
}

/// Redeem a code for its template's coupon or its package's coupons: as a
/// service (bearer token; the end user's address may come as
/// `X-Forwarded-For`) or as a channel (signed like a claim, docs/design.md §6).
#[utoipa::path(post, path = "/v1/redemptions", operation_id = "redeem",
    tag = "codes", request_body = Redeem,
    security(("service" = []), ()),
    params(("X-Channel-Id" = Option<Uuid>, Header, description = "a channel's signed request instead of the service token"),
           ("X-Timestamp" = Option<i64>, Header), ("X-Nonce" = Option<String>, Header),
           ("X-Signature" = Option<String>, Header)),
    responses((status = 201, body = Redemption),
        (status = 202, body = PackageJobView, description = "a code of a package of more than 100 coupons: the claim is queued as a job, followed at GET /v1/package-jobs/{id}"),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "the token may not do that, the signing \
            channel is disabled (`channel_disabled`), or the eligibility of the code's template \
            refuses the user (`not_eligible`, the message names the rule)"),
        (status = 404, body = ErrorBody, description = "unknown or forged code (the same answer)"),
        (status = 409, body = ErrorBody, description = "already redeemed by this user, or the template's per-user limit"),
        (status = 410, body = ErrorBody, description = "the code is used up, or the template sold out"),
        (status = 422, body = ErrorBody, description = "the batch is stopped or expired, or the template does not issue now"),
        (status = 429, body = ErrorBody, description = "too many failed attempts by this user or address, or too many redemptions waiting for the batch; see Retry-After"),
        (status = 503, body = ErrorBody, description = "the redemption's batch failed, or a large package's job could not be queued (nothing was written; retry), or a store is down")))]
pub async fn redeem(
    State(state): State<AppState>,
    ctx: Ctx,
    request: Request,
) -> Result<Response, ApiError> {
    let (parts, body) = request.into_parts();
    let caller = match caller(&state, &parts, body).await {
        Ok(caller) => caller,
        Err(Refusal::Answered(answer)) => return Ok(answer),
        Err(Refusal::Error(e)) => return Err(e),
    };
    let input: Redeem = parse_json(&caller.body)?;
    let facts = input.facts()?;
    let user = input.user_id.clone();
    let limit = &state.guess_limit;
    let caller_key = caller.key();
    let who = Guesser {
        user: user.as_str(),
        address: caller.address,
        caller: &caller_key,
    };
    if let Err(limited) = limit.check(who, Instant::now()).await {
        return Ok(limited.into_response());
    }
    let Some((batch, serial)) = find(&state, &input.code).await? else {
        limit.failed(who, Instant::now()).await;
        return Err(unknown(&input.code));
    };
    if used_up::is_set(&state.redis, &batch, serial).await {
        return Err(ApiError::SoldOut("the code is used up".into()));
    }
    let uses = Arc::new(AtomicI32::new(0));
    let hash = request_hash(&[parts.uri.path().as_bytes(), &caller.body]);
    let target = (&batch, serial, user, facts);
    let answer = write(&state, &ctx, &caller, &hash, target, uses.clone()).await?;
    if answer.status() == StatusCode::CREATED && uses.load(Ordering::Relaxed) >= batch.uses_per_code
    {
        used_up::mark(&state.redis, &batch, serial).await;
    }
    Ok(answer)
}

/// The code's batch and serial, and the user who redeems it with what the
/// caller vouches for.
type Target<'a> = (&'a Batch, i64, UserId, UserFacts);

/// Who asks: the service or a channel whose signature held, with the body
/// read and the address failed guesses count against.
struct Caller {
    channel: Option<ChannelId>,
    /// A bearer caller's own guess budget (each app key has its own).
    key: Option<String>,
    address: Option<IpAddr>,
    body: Bytes,
}

impl Caller {
    /// The credential's key for the guess limit's caller budget.
    fn key(&self) -> String {
        match (&self.key, self.channel) {
            (Some(key), _) => key.clone(),
            (None, Some(c)) => format!("channel:{}", c.0),
            (None, None) => "service".to_owned(),
        }
    }
}

enum Refusal {
    /// Answered already: too many bad signatures, or the signature refused.
    Answered(Response),
    Error(ApiError),
}

impl From<ApiError> for Refusal {
    fn from(e: ApiError) -> Self {
        Refusal::Error(e)
    }
}

async fn caller(state: &AppState, parts: &Parts, body: Body) -> Result<Caller, Refusal> {
    let request = || Request::from_parts(parts.clone(), body);
    crate::api::auth::signature::one_credential(&parts.headers)?;
    if parts.headers.contains_key(AUTHORIZATION) {
        // `authorize` checked the token and its `redemptions` permission.
        let principal = parts.extensions.get::<Principal>().cloned();
        let principal =
            principal.ok_or_else(|| ApiError::Unauthorized("missing bearer token".into()))?;
        let body = read_body(request(), state).await?;
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|p| p.0.ip());
        let address = client_address(&parts.headers, peer);
        return Ok(Caller {
            channel: None,
            key: Some(principal.guess_key()),
            address,
            body,
        });
    }
    let signed = SignedChannel::<true>::from_request(request(), state)
        .await
        .map_err(Refusal::Answered)?;
    // A channel's own client address is its server's: only the service may
    // speak for an end user's address.
    Ok(Caller {
        channel: Some(signed.channel_id),
        key: None,
        address: signed.peer,
        body: signed.body,
    })
}

/// The same answer for any text that is not a redeemable code (mistyped,
/// forged, of no batch), so an answer tells a guesser nothing more.
fn unknown(code: &str) -> ApiError {
    ApiError::not_found("code", code)
}

/// The end user's address: the first `X-Forwarded-For` entry the service
/// passed, else the connection's peer.
fn client_address(headers: &HeaderMap, peer: Option<IpAddr>) -> Option<IpAddr> {
    let forwarded = headers
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .and_then(|v| v.trim().parse().ok());
    forwarded.or(peer)
}

/// The batch and serial of `text`, if it is a code of a batch: the check
/// character and the tag first (no I/O), then the batch by the serial.
/// Text of no generated code's form may be a passphrase (docs/design.md
/// §20): read by its key, after its own checks.
async fn find(state: &AppState, text: &str) -> Result<Option<(Batch, i64)>, ApiError> {
    let Ok(code) = Code::parse(text) else {
        return passphrase(state, text).await;
    };
    // A passphrase batch's serial has a generated code too, never handed
    // out: only the passphrase redeems it.
    let found = generated(state, &code).await?;
    Ok(found.filter(|(batch, _)| batch.passphrase.is_none()))
}

/// The batch and serial of a code of the generated form.
async fn generated(state: &AppState, code: &Code) -> Result<Option<(Batch, i64)>, ApiError> {
    let keys = state.secrets.keys();
    let candidates: Vec<(String, i64)> = keys
        .code_keys()
        .filter_map(|k| Some((k.id().to_owned(), i64::try_from(k.decode(code)?).ok()?)))
        .collect();
    if candidates.is_empty() {
        return Ok(None);
    }
    let (cache, now) = (&state.code_batches, Instant::now());
    let hit = candidates
        .iter()
        .find_map(|(key_id, serial)| Some((cache.cached(key_id, *serial, now)?, *serial)));
    if hit.is_some() {
        return Ok(hit);
    }
    let client = state.pool.get().await?;
    for (key_id, serial) in candidates {
        if let Some(batch) = cache.read(&client, &key_id, serial, now).await? {
            return Ok(Some((batch, serial)));
        }
    }
    Ok(None)
}

/// The batch of the passphrase `text`, and its one serial; None for text
/// that can be no passphrase (no read) or that no batch holds.
async fn passphrase(state: &AppState, text: &str) -> Result<Option<(Batch, i64)>, ApiError> {
    let Ok(key) = key_of(text) else {
        return Ok(None);
    };
    let client = state.pool.get().await?;
    let batch = code_batches::by_passphrase(&client, &key).await?;
    Ok(batch.map(|b| {
        let serial = b.first_serial;
        (b, serial)
    }))
}

/// Group-committed with the batch's other redemptions, or alone: with an
/// Idempotency-Key (its stored answer is written in the same transaction),
/// for a package's code, or when the process runs too many batches' tasks.
/// A code of a package of more than 100 coupons is queued as a job (202).
async fn write(
    state: &AppState,
    ctx: &Ctx,
    caller: &Caller,
    hash: &[u8; 32],
    target: Target<'_>,
    uses: Arc<AtomicI32>,
) -> Result<Response, ApiError> {
    let scope = caller
        .channel
        .map_or_else(|| "service".to_owned(), |c| format!("channel:{c}"));
    let mut metadata = ctx.metadata(scope.clone());
    metadata.channel_id = caller.channel;
    if let Some(sn) = &target.0.package_sn
        && package_jobs::runs_as_job(state, sn).await?
    {
        let (batch, serial, user, facts) = (target.0, target.1, &target.2, &target.3);
        let queued = Queued {
            scope: &scope,
            hash,
            package_sn: sn,
            user,
            facts,
            code: Some((batch, serial)),
            giver: Giver::Code(caller.channel),
            metadata,
        };
        return package_jobs::queue(state, ctx, queued).await;
    }
    let redemptions = &state.flash.redemptions;
    if ctx.idempotency_key.is_none() && redemptions.takes(target.0) {
        return batched(state, target, metadata, uses).await;
    }
    alone(
        state,
        ctx,
        (&scope, hash),
        target,
        caller.channel,
        metadata,
        uses,
    )
    .await
}

async fn batched(
    state: &AppState,
    (batch, serial, user, facts): Target<'_>,
    metadata: crate::domain::events::Metadata,
    uses: Arc<AtomicI32>,
) -> Result<Response, ApiError> {
    let item = BatchRedemption {
        serial,
        claim: BatchClaim {
            user_id: user.clone(),
            facts,
            channel_id: None,
            nonce: None,
            metadata,
            appended: crate::store::appended::current(),
        },
    };
    let redemptions = &state.flash.redemptions;
    let Some(answer) = redemptions.submit(batch.clone(), item).await else {
        let why = "too many redemptions are waiting for this batch";
        return Ok(too_many(Duration::from_secs(1), why));
    };
    let (coupon, used) = answer?;
    uses.store(used, Ordering::Relaxed);
    let body = Redemption {
        batch_id: batch.id,
        serial,
        uses: used,
        uses_left: batch.uses_per_code - used,
        coupons: vec![CouponView::issued(&coupon)],
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

async fn alone(
    state: &AppState,
    ctx: &Ctx,
    (scope, hash): (&str, &[u8; 32]),
    (batch, serial, user, facts): Target<'_>,
    channel_id: Option<ChannelId>,
    metadata: crate::domain::events::Metadata,
    uses: Arc<AtomicI32>,
) -> Result<Response, ApiError> {
    let (now, tz) = (state.now(), state.tz);
    let batch = batch.clone();
    ctx.write(state, scope, hash, StatusCode::CREATED, |tx| {
        Box::pin(async move {
            let req = RedeemRequest {
                batch: &batch,
                serial,
                user_id: &user,
                facts: &facts,
                channel_id,
                now,
                tz,
                reserved: false,
            };
            let done = redeem::redeem(tx, &req, &metadata).await?;
            uses.store(done.uses, Ordering::Relaxed);
            Ok(Redemption {
                batch_id: batch.id,
                serial,
                uses: done.uses,
                uses_left: batch.uses_per_code - done.uses,
                coupons: done.coupons.iter().map(CouponView::issued).collect(),
            })
        })
    })
    .await
}
