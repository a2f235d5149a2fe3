//! Identifiers, parsed once at the edge.

use std::fmt;

use rand::Rng;
use serde::{Deserialize, Deserializer, Serialize, de};
use uuid::Uuid;

use crate::domain::parse_error::ParseErrorKind;
use crate::domain::report_labels::{PLATFORM, TOTAL};
use crate::domain::stream::StreamKind;

/// Unambiguous alphabet for template serial numbers: no 0/O, 1/I/L.
const SN_ALPHABET: &str = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
pub const SN_LEN: usize = 20;
/// The lengths an sn may have: what `generate` makes, and room to grow.
const SN_LENGTHS: std::ops::RangeInclusive<usize> = 16..=64;

/// The pattern of an sn in the OpenAPI document, from the alphabet and the
/// lengths [`TemplateSn::parse`] checks.
pub fn sn_pattern() -> String {
    format!(
        "^[{SN_ALPHABET}]{{{},{}}}$",
        SN_LENGTHS.start(),
        SN_LENGTHS.end()
    )
}

/// A string schema: `pattern`, `minLength` and `maxLength` (in characters;
/// every pattern here is ASCII, so also in bytes), for the OpenAPI document.
pub(crate) fn text_schema(
    pattern: &str,
    lengths: std::ops::RangeInclusive<usize>,
    example: &str,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .pattern(Some(pattern))
        .min_length(Some(*lengths.start()))
        .max_length(Some(*lengths.end()))
        .examples([example])
        .into()
}

/// Visible ASCII (`!` to `~`), the characters of user, shop and order ids.
pub const VISIBLE_ASCII: &str = "[!-~]";

/// `^[!-~]{1,max}$`: 1 to `max` visible ASCII characters.
pub fn visible_pattern(max: usize) -> String {
    format!("^{VISIBLE_ASCII}{{1,{max}}}$")
}

/// Declares a public serial number: random, never sequential, made of
/// [`SN_ALPHABET`], and read back from stored events and rows as it was
/// written (checked once, when its template or package was created).
/// In JSON and JSON Schema a plain string.
macro_rules! serial_number {
    ($(#[$doc:meta])* $name:ident, $kind:expr) => {
        $(#[$doc])*
        #[derive(
            Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            schemars::JsonSchema,
        )]
        #[serde(transparent)]
        #[schemars(inline, transparent, transform = crate::domain::names::plain_schema)]
        pub struct $name(String);

        impl $name {
            /// A fresh random sn (~99 bits).
            pub fn generate() -> Self {
                Self(random_sn())
            }

            /// Accepts what `generate` makes (16 to 64 characters of the alphabet).
            pub fn parse(s: &str) -> Option<Self> {
                let ok = SN_LENGTHS.contains(&s.len())
                    && s.bytes().all(|b| SN_ALPHABET.as_bytes().contains(&b));
                ok.then(|| Self(s.to_owned()))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// An sn as stored (a row or an event): written only after `parse`.
            pub fn stored(s: String) -> Self {
                Self(s)
            }

            pub fn stream_id(&self) -> String {
                $kind.id(&self.0)
            }
        }

        /// Unit tests name ids by literals.
        #[cfg(test)]
        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        /// In the OpenAPI document: the alphabet and the lengths `parse` takes.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                text_schema(&sn_pattern(), SN_LENGTHS, "8RE9KQ2MV7XWD4TA")
            }
        }

        impl utoipa::ToSchema for $name {}
    };
}

serial_number!(
    /// A template's public serial number (docs/design.md §6).
    TemplateSn,
    StreamKind::Template
);

serial_number!(
    /// A package's public serial number, made as a template's is.
    PackageSn,
    StreamKind::Package
);

fn random_sn() -> String {
    let mut rng = rand::rng();
    (0..SN_LEN)
        .map(|_| SN_ALPHABET.as_bytes()[rng.random_range(0..SN_ALPHABET.len())] as char)
        .collect()
}

/// A user id as the caller's systems know it: in JSON a string, or an
/// integer from 0 to 2^63−1 (many systems key users by a 64-bit integer),
/// kept as its decimal text, so `42` and `"42"` are the same user.
///
/// In stored events and rows a plain string, read back as it was written
/// ([`UserId::read_stored`]): it was checked once, at the edge.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
#[schemars(inline, transparent, transform = crate::domain::names::plain_schema)]
pub struct UserId(String);

pub const MAX_USER_ID_LEN: usize = 64;

impl UserId {
    /// 1 to 64 visible ASCII characters.
    pub fn parse(s: &str) -> Result<Self, String> {
        if s.is_empty() || s.len() > MAX_USER_ID_LEN || !s.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(format!(
                "user_id must be 1 to {MAX_USER_ID_LEN} visible ASCII characters"
            ));
        }
        Ok(Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A user id as stored (a row or an event): written only after [`Self::parse`].
    pub fn stored(s: String) -> Self {
        Self(s)
    }

    /// Serde's reader for stored payloads: the text as written, not checked
    /// again, so an id accepted once stays readable whatever the rule becomes.
    pub fn read_stored<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        user_id_text(deserializer).map(Self)
    }

    /// [`Self::read_stored`] for a list of ids.
    pub fn read_stored_list<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Self>, D::Error> {
        Vec::<String>::deserialize(deserializer).map(|ids| ids.into_iter().map(Self).collect())
    }
}

/// Unit tests name users by literals.
#[cfg(test)]
impl From<&str> for UserId {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// In the OpenAPI document, both forms [`UserIdText`] reads: 1 to 64
/// visible ASCII characters, or an integer from 0 to `i64::MAX` (the same
/// user as its decimal text).
impl utoipa::PartialSchema for UserId {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        let integer = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Int64,
            )))
            .minimum(Some(0))
            .maximum(Some(i64::MAX));
        OneOfBuilder::new()
            .item(text_schema(
                &visible_pattern(MAX_USER_ID_LEN),
                1..=MAX_USER_ID_LEN,
                "user-42",
            ))
            .item(integer)
            .into()
    }
}

impl utoipa::ToSchema for UserId {}

impl<'de> Deserialize<'de> for UserId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = deserializer.deserialize_any(UserIdText)?;
        UserId::parse(&text).map_err(de::Error::custom)
    }
}

/// A user id's text, a string or a non-negative 64-bit integer, not checked
/// further: for shapes also read back from stored events (an order), where
/// an id accepted before must stay readable.
pub fn user_id_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    deserializer.deserialize_any(UserIdText)
}

struct UserIdText;

impl de::Visitor<'_> for UserIdText {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a user id: a string, or an integer from 0 to 9223372036854775807")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        if i64::try_from(v).is_err() {
            return Err(E::invalid_value(de::Unexpected::Unsigned(v), &self));
        }
        Ok(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        u64::try_from(v)
            .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            .and_then(|v| self.visit_u64(v))
    }
}

/// A shop of a marketplace (店铺, docs/design.md §15): the seller an order
/// line belongs to, and the shop a template may belong to. 1 to 64 visible
/// ASCII characters; read back from stored events and rows as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
#[schemars(inline, transparent, transform = crate::domain::names::plain_schema)]
pub struct ShopId(String);

pub const MAX_SHOP_ID_LEN: usize = 64;

impl ShopId {
    /// 1 to 64 visible ASCII characters, neither of the labels a report
    /// grouped by shop gives other rows (`(platform)`, `total`): a shop so
    /// called would be taken for them.
    pub fn parse(s: &str) -> Result<Self, ParseErrorKind> {
        let visible = s.bytes().all(|b| b.is_ascii_graphic());
        let reserved = [PLATFORM, TOTAL].contains(&s);
        if s.is_empty() || s.len() > MAX_SHOP_ID_LEN || !visible || reserved {
            return Err(ParseErrorKind::ShopId {
                max: MAX_SHOP_ID_LEN,
            });
        }
        Ok(Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A shop id as stored: written only after [`Self::parse`].
    pub fn stored(s: String) -> Self {
        Self(s)
    }
}

impl fmt::Display for ShopId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// In the OpenAPI document: 1 to 64 visible ASCII characters, not one of
/// the report's labels.
impl utoipa::PartialSchema for ShopId {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::extensions::Extensions;
        use utoipa::openapi::schema::Schema;
        let mut schema = text_schema(
            &visible_pattern(MAX_SHOP_ID_LEN),
            1..=MAX_SHOP_ID_LEN,
            "shop-7",
        );
        // utoipa's builder has no `not`: it goes in as the keyword it is.
        if let RefOr::T(Schema::Object(object)) = &mut schema {
            let not = serde_json::json!({"enum": [PLATFORM, TOTAL]});
            let extensions = object.extensions.get_or_insert_with(Extensions::default);
            extensions.merge(Extensions::from_iter([("not", not)]));
        }
        schema
    }
}

impl utoipa::ToSchema for ShopId {}

/// Checked in requests; read back from stored events as written (a
/// template's shop was checked when it was created).
impl<'de> Deserialize<'de> for ShopId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ShopId::parse(&text).map_err(de::Error::custom)
    }
}

/// An order's id, as the caller's systems know it: 1 to 128 bytes (an
/// order is the caller's, so its id is not checked further).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OrderId(String);

pub const MAX_ORDER_ID_LEN: usize = 128;

impl OrderId {
    /// 1 to [`MAX_ORDER_ID_LEN`] visible ASCII characters, as a user id:
    /// an order id is a path segment (`/v1/orders/{order_id}`).
    pub fn parse(s: &str) -> Option<Self> {
        let visible = s.bytes().all(|b| b.is_ascii_graphic());
        ((1..=MAX_ORDER_ID_LEN).contains(&s.len()) && visible).then(|| Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// In the OpenAPI document as [`OrderId::parse`] takes it.
impl utoipa::PartialSchema for OrderId {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        text_schema(
            &visible_pattern(MAX_ORDER_ID_LEN),
            1..=MAX_ORDER_ID_LEN,
            "order-1001",
        )
    }
}

impl utoipa::ToSchema for OrderId {}

impl fmt::Display for OrderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A coupon's id: a UUIDv7, so ids sort by issue time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CouponId(pub Uuid);

impl CouponId {
    pub fn generate() -> Self {
        Self(Uuid::now_v7())
    }

    pub fn stream_id(&self) -> String {
        StreamKind::Coupon.id(self.0)
    }
}

impl fmt::Display for CouponId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A distribution channel (发放渠道). In JSON and JSON Schema the bare
/// UUID; in SQL a `uuid` (its `ToSql`/`FromSql` live in `db.rs`).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(transparent)]
#[schemars(inline, transparent, transform = crate::domain::names::plain_schema)]
pub struct ChannelId(pub Uuid);

impl ChannelId {
    pub fn stream_id(&self) -> String {
        StreamKind::Channel.id(self.0)
    }
}

impl fmt::Display for ChannelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_sns_parse_and_differ() {
        let a = TemplateSn::generate();
        assert_eq!(a.as_str().len(), SN_LEN);
        assert_eq!(TemplateSn::parse(a.as_str()), Some(a.clone()));
        assert_ne!(a, TemplateSn::generate());
    }

    #[test]
    fn ambiguous_or_short_sns_are_refused() {
        for s in ["", "ABC", "0OIL1234567890ABCDEF", "abcdefghjkmnpqrstuvw"] {
            assert_eq!(TemplateSn::parse(s), None, "{s}");
        }
    }

    #[test]
    fn user_ids_are_bounded_and_visible() {
        assert!(UserId::parse("u-1").is_ok());
        for s in ["", " ", "a b", &"u".repeat(65)] {
            assert!(UserId::parse(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn user_ids_may_be_non_negative_64_bit_integers() {
        let id = |json: &str| serde_json::from_str::<UserId>(json).map(|u| u.0);
        assert_eq!(id("42").unwrap(), "42");
        assert_eq!(id(r#""42""#).unwrap(), "42");
        assert_eq!(id("0").unwrap(), "0");
        assert_eq!(id("9223372036854775807").unwrap(), "9223372036854775807");
        for bad in [
            "9223372036854775808",
            "-1",
            "4.2",
            "1e3",
            "true",
            "null",
            "{}",
            "[]",
            r#""""#,
            r#""a b""#,
        ] {
            assert!(id(bad).is_err(), "{bad}");
        }
    }
}
