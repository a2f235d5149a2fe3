//! Path parameters, parsed by the extractor into their domain types: a
//! handler takes `ApiPath<TemplateSn>` and starts from a template's sn,
//! never from the text of one (docs/design.md §7).
//!
//! Each type says, once, which `{name}` of the path it is and how text
//! that does not parse is answered: an sn or a coupon's id that cannot be
//! one names nothing (404, as an unknown one); a user id is the caller's
//! and is refused as bad input (400); an id that must be a UUID is 400
//! naming the value.

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use uuid::Uuid;

use crate::api::http::error::ApiError;
use crate::api::http::extract::nul_error;
use crate::domain::ids::{ChannelId, CouponId, OrderId, PackageSn, TemplateSn, UserId};

/// Longest path parameter taken: every id the API names is far shorter
/// (a UUID 36, a template's sn 16, a user id 64, an order id 128), and an
/// answer that quotes what came must stay small.
const MAX_PATH_PARAM: usize = 256;

/// A type a path parameter parses into.
pub trait PathParam: Sized {
    /// Its `{name}` in the routes' paths.
    const NAME: &'static str;

    /// The parameter's text (percent-decoded, without NUL, at most
    /// [`MAX_PATH_PARAM`] bytes) as this type, or the route's answer.
    fn parse(raw: &str) -> Result<Self, ApiError>;
}

/// One path parameter, parsed: 400 in the API's shape for a NUL or a
/// parameter over [`MAX_PATH_PARAM`] bytes (any of the path's, so two
/// extractors of one route refuse alike), else what [`PathParam::parse`]
/// answers.
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: PathParam> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let raw = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|r| ApiError::bad_request(r.body_text()))?;
        if let Some((name, _)) = raw.iter().find(|(_, v)| v.contains('\0')) {
            return Err(nul_error(name));
        }
        if let Some((name, _)) = raw.iter().find(|(_, v)| v.len() > MAX_PATH_PARAM) {
            return Err(ApiError::BadRequest {
                code: "invalid_field",
                message: format!("{name}: at most {MAX_PATH_PARAM} bytes"),
            });
        }
        let Some((_, value)) = raw.iter().find(|(name, _)| *name == T::NAME) else {
            let route = parts.uri.path();
            let why = format!("{route} has no path parameter {{{}}}", T::NAME);
            return Err(ApiError::Internal(anyhow::anyhow!(why)));
        };
        T::parse(value).map(Self)
    }
}

/// Text that cannot be an sn names no template.
impl PathParam for TemplateSn {
    const NAME: &'static str = "sn";

    fn parse(raw: &str) -> Result<Self, ApiError> {
        TemplateSn::parse(raw).ok_or_else(|| ApiError::not_found("template", raw))
    }
}

/// Text that cannot be an sn names no package.
impl PathParam for PackageSn {
    const NAME: &'static str = "sn";

    fn parse(raw: &str) -> Result<Self, ApiError> {
        PackageSn::parse(raw).ok_or_else(|| ApiError::not_found("package", raw))
    }
}

/// Text that is not a UUID names no coupon.
impl PathParam for CouponId {
    const NAME: &'static str = "id";

    fn parse(raw: &str) -> Result<Self, ApiError> {
        raw.parse()
            .map(CouponId)
            .map_err(|_| ApiError::not_found("coupon", raw))
    }
}

/// Text too long to be an order's id names no order.
impl PathParam for OrderId {
    const NAME: &'static str = "order_id";

    fn parse(raw: &str) -> Result<Self, ApiError> {
        OrderId::parse(raw).ok_or_else(|| ApiError::not_found("order", raw))
    }
}

/// Any user may be asked for (one without coupons has none), so a user id
/// of the wrong form is bad input, not a missing user.
impl PathParam for UserId {
    const NAME: &'static str = "uid";

    fn parse(raw: &str) -> Result<Self, ApiError> {
        UserId::parse(raw).map_err(|message| ApiError::BadRequest {
            code: "invalid_field",
            message,
        })
    }
}

impl PathParam for ChannelId {
    const NAME: &'static str = "id";

    fn parse(raw: &str) -> Result<Self, ApiError> {
        <Uuid as PathParam>::parse(raw).map(ChannelId)
    }
}

/// A job's, a code batch's or an allow-list file's id. The message is the
/// one these routes gave when axum parsed the UUID, kept word for word.
impl PathParam for Uuid {
    const NAME: &'static str = "id";

    fn parse(raw: &str) -> Result<Self, ApiError> {
        Uuid::parse_str(raw).map_err(|e| {
            ApiError::bad_request(format!(
                "Invalid URL: Cannot parse `{}` with value `{raw}`: UUID parsing failed: {e}",
                Self::NAME
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer<T: PathParam>(raw: &str) -> (u16, String, String) {
        let e = T::parse(raw).err().expect("refused");
        let body = e.body().error;
        (e.status().as_u16(), body.code, body.message)
    }

    #[test]
    fn an_id_that_cannot_name_one_is_404_naming_it() {
        let (status, code, message) = answer::<TemplateSn>("nope");
        assert_eq!((status, code.as_str()), (404, "not_found"));
        assert_eq!(message, "template nope not found");
        assert_eq!(answer::<PackageSn>("x").2, "package x not found");
        assert_eq!(answer::<CouponId>("x").2, "coupon x not found");
        let long = "o".repeat(129);
        assert_eq!(answer::<OrderId>(&long).0, 404);
        assert!(<OrderId as PathParam>::parse(&"o".repeat(128)).is_ok());
    }

    #[test]
    fn a_user_id_of_the_wrong_form_is_400() {
        let (status, code, message) = answer::<UserId>("a b");
        assert_eq!((status, code.as_str()), (400, "invalid_field"));
        assert_eq!(message, "user_id must be 1 to 64 visible ASCII characters");
    }

    /// What axum's own `Path<Uuid>` answered these routes before, and what
    /// [`ApiPath`] answers now, for the same path.
    #[tokio::test]
    async fn a_uuid_is_refused_in_axums_words() {
        use axum::Router;
        use axum::extract::Path;
        use axum::extract::rejection::PathRejection;
        use axum::response::IntoResponse;
        use axum::routing::get;

        async fn by_axum(path: Result<Path<Uuid>, PathRejection>) -> String {
            path.err().map(|r| r.body_text()).unwrap_or_default()
        }
        async fn by_us(path: Result<ApiPath<ChannelId>, ApiError>) -> axum::response::Response {
            path.err()
                .map(IntoResponse::into_response)
                .unwrap_or_default()
        }
        let app = Router::new()
            .route("/axum/{id}", get(by_axum))
            .route("/ours/{id}", get(by_us));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let http = reqwest::Client::new();
        for id in ["xyz", "0000-1111", "%E2%82%AC", &"g".repeat(36), "{x}"] {
            let get = |to: &str| http.get(format!("http://{addr}/{to}/{id}")).send();
            let axum_said = get("axum").await.unwrap().text().await.unwrap();
            let ours = get("ours").await.unwrap();
            assert_eq!(ours.status(), 400, "{id}");
            let body: serde_json::Value = ours.json().await.unwrap();
            assert_eq!(body["error"]["code"], "bad_request", "{id}");
            assert_eq!(body["error"]["message"], axum_said, "{id}");
        }
    }
}
