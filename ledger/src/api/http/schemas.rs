//! Schemas for the OpenAPI document that say what the API checks, built
//! from the constants the checks use (a list's page limit, a text's
//! lengths, an enum's names), for `#[schema(schema_with = ...)]` and
//! `#[param(schema_with = ...)]`. The domain's newtypes give their own
//! (`TemplateSn`, `UserId`, `Money`…: `utoipa::PartialSchema` beside their
//! `parse`).
//!
//! A schema may be narrower than its check (every value it allows is
//! accepted), never wider: `tests/tests/suite/openapi_patterns.rs` checks
//! the patterns against the parsers.

use strum::VariantArray;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaFormat, Type};
use utoipa::openapi::{Array, KnownFormat, Object, RefOr, Schema};

use crate::domain::names;
use crate::domain::validity::{DAY_PATTERN, INSTANT_PATTERN};

/// Types that stand for a query parameter's schema, for
/// `#[param(value_type = Option<schemas::Offset>, inline)]`: utoipa 5 drops
/// a parameter's doc comment and its `required` when the schema comes
/// from `schema_with`, and keeps both for a `value_type`.
macro_rules! param_schemas {
    ($($(#[$doc:meta])* $name:ident => $schema:expr;)*) => {$(
        $(#[$doc])*
        pub struct $name;
        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                $schema.into()
            }
        }
        impl utoipa::ToSchema for $name {}
    )*};
}

param_schemas! {
    /// [`offset`].
    Offset => offset();
    /// The templates', packages' and code batches' lists' `limit`.
    TemplatePageLimit => limit::<{ crate::queries::templates::MAX_PAGE }>();
    /// The audit of actions' `limit`.
    ActionPageLimit => limit::<{ crate::queries::actions::MAX_PAGE }>();
    /// The claimable list's `limit`.
    ClaimablePageLimit => limit::<{ crate::queries::claimable::MAX_PAGE }>();
    /// A wallet's `limit`.
    WalletPageLimit => limit::<{ crate::queries::wallet::MAX_PAGE }>();
    /// A package job's page of coupon ids: `limit`.
    JobCouponPageLimit => limit::<{ crate::queries::package_jobs::MAX_COUPON_PAGE }>();
    /// An instant read as text (`validity::InstantText`).
    Instant => <crate::domain::validity::InstantText as utoipa::PartialSchema>::schema();
    /// [`as_of`].
    AsOf => as_of();
    /// An upload's job key: as long as an Idempotency-Key.
    JobKey => visible::<1, { crate::exactly_once::idempotency::MAX_KEY_LEN }>();
    /// A name the audit of actions filters by.
    FilterName => text::<0, { crate::queries::actions::MAX_FILTER_LEN }>();
    /// A user's tags in a query: comma-separated, each as [`tags`] says.
    TagList => tag_list();
    /// A region, as eligibility names one.
    Region => visible::<1, { crate::domain::eligibility::MAX_NAME_LEN }>();
    /// A wallet's `sort`.
    WalletSortName => one_of::<crate::domain::wallet_order::WalletSort>();
    /// A wallet's `order`.
    SortOrderName => one_of::<crate::domain::wallet_order::SortOrder>();
    /// A history's `bucket`.
    BucketName => one_of::<crate::domain::history::Bucket>();
    /// A liability report's `by`.
    ByName => one_of::<crate::domain::liability::By>();
    /// `expiring_within_days` (`wallet_order::within_days`).
    WithinDays => crate::domain::wallet_order::within_days_schema();
    /// A download's `format`: `json` or `csv`.
    JsonOrCsv => names(&["json", "csv"]);
    /// A batch's codes' `format`: `text` or `csv`.
    TextOrCsv => names(&["text", "csv"]);
}

/// One of `names`.
fn names(names: &[&str]) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(names.iter().copied()))
        .build()
}

/// No NUL anywhere: the one rule every text the API takes shares
/// (`extract.rs`: Postgres cannot store a NUL).
pub const NO_NUL: &str = "^[^\\u0000]*$";

/// The liability report's `as_of`: an instant, a business day or `now`
/// (`reports::as_of`).
pub fn as_of() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!("^({INSTANT_PATTERN}|{DAY_PATTERN}|now)$")))
        .build()
}

/// An app key's scopes: 1 to `MAX_SCOPES` of the known names.
pub fn scopes() -> Array {
    use crate::domain::key_scope::{KeyScope, MAX_SCOPES};
    ArrayBuilder::new()
        .items(one_of::<KeyScope>())
        .min_items(Some(1))
        .max_items(Some(MAX_SCOPES))
        .build()
}

/// A list's `offset`: 0 or more (`extract::page_bounds`).
pub fn offset() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
        .minimum(Some(0))
        .build()
}

/// A list's `limit`: 1 to the list's own `MAX` (`extract::page_bounds`).
pub fn limit<const MAX: i64>() -> Object {
    integer(1, MAX)
}

/// An integer from `MIN` to `MAX`, for `schema_with` (a field's range
/// from the constants its check uses).
pub fn range<const MIN: i64, const MAX: i64>() -> Object {
    integer(MIN, MAX)
}

/// [`range`] or null: an optional field that serde reads as absent when
/// it is null (a plain `Option`), as the document must then say.
pub fn range_or_null<const MIN: i64, const MAX: i64>() -> Schema {
    or_null(integer(MIN, MAX))
}

/// [`passphrase`] or null (see [`range_or_null`]).
pub fn passphrase_or_null() -> Schema {
    or_null(passphrase())
}

/// [`event_types`] or null (see [`range_or_null`]).
pub fn event_types_or_null() -> Schema {
    or_null(event_types())
}

/// `schema` that also takes null: null joins an object's or an array's
/// types, or becomes one more alternative of anything else.
fn or_null(schema: impl Into<Schema>) -> Schema {
    use utoipa::openapi::schema::{OneOfBuilder, SchemaType};
    let with_null = |t: SchemaType| match t {
        SchemaType::Type(t) => SchemaType::from_iter([t, Type::Null]),
        SchemaType::Array(mut types) => {
            types.push(Type::Null);
            SchemaType::Array(types)
        }
        any => any,
    };
    match schema.into() {
        Schema::Object(mut o) => {
            o.schema_type = with_null(o.schema_type);
            Schema::Object(o)
        }
        Schema::Array(mut a) => {
            a.schema_type = with_null(a.schema_type);
            Schema::Array(a)
        }
        Schema::OneOf(mut one) => {
            one.items.push(Object::with_type(Type::Null).into());
            Schema::OneOf(one)
        }
        other => OneOfBuilder::new()
            .item(other)
            .item(Object::with_type(Type::Null))
            .into(),
    }
}

/// An integer from `min` to `max`.
pub fn integer(min: i64, max: i64) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
        .minimum(Some(min))
        .maximum(Some(max))
        .build()
}

/// One of the names of a name list (`names::name_list!`), as its
/// `FromStr` takes them.
pub fn one_of<T>() -> Object
where
    T: VariantArray + Copy + Into<&'static str>,
{
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(names::names::<T>()))
        .build()
}

/// Text of `MIN` to `MAX` characters, without NUL.
pub fn text<const MIN: usize, const MAX: usize>() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(MIN))
        .max_length(Some(MAX))
        .pattern(Some(NO_NUL))
        .build()
}

/// `MIN` to `MAX` visible ASCII characters (`!` to `~`): a text checked in
/// bytes is bounded in characters only when they are one byte each.
pub fn visible<const MIN: usize, const MAX: usize>() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(MIN))
        .max_length(Some(MAX))
        .pattern(Some(format!(
            "^{}{{{MIN},{MAX}}}$",
            crate::domain::ids::VISIBLE_ASCII
        )))
        .build()
}

/// A name as the routes check one (`name.trim()` of 1 to `MAX`
/// characters, no NUL), exactly: any white space around something that
/// starts and ends with another character. The length is counted in the
/// pattern, not by `maxLength`, because the check counts after trimming.
pub fn name<const MAX: usize>() -> Object {
    assert!(
        MAX >= 2,
        "a name's pattern counts its inner characters as MAX - 2"
    );
    let (ws, text) = (
        format!("[{WHITE_SPACE}]"),
        format!("[^{WHITE_SPACE}\\u0000]"),
    );
    let inner = MAX - 2;
    // No minLength: the pattern needs a character already, and schemathesis
    // 4.32 can draw no value for this pattern beside a minLength.
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!(
            "^{ws}*{text}([^\\u0000]{{0,{inner}}}{text})?{ws}*$"
        )))
        .build()
}

/// What Rust's `str::trim` takes away (Unicode's White_Space), spelled out:
/// `\s` differs between the regex dialects that read the document
/// (ECMA-262 has no U+0085, Python's has U+001C to U+001F).
const WHITE_SPACE: &str =
    "\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

/// A user's tags as a claim or quote carries them: at most
/// `eligibility::MAX_TAGS`, each 1 to `MAX_NAME_LEN` bytes
/// (`UserFacts::parse`; visible ASCII, so that characters are bytes).
pub fn tags() -> Array {
    use crate::domain::eligibility::{MAX_NAME_LEN, MAX_TAGS};
    ArrayBuilder::new()
        .items(visible::<1, MAX_NAME_LEN>())
        .max_items(Some(MAX_TAGS))
        .build()
}

/// A webhook's `event_types` (`EventTypes::parse`): `["*"]` alone, or 1
/// to all of the event types' names (none twice: narrower than the parser,
/// which drops a repeat).
pub fn event_types() -> Schema {
    use crate::domain::ledger_event::EventType;
    use crate::domain::webhook::ALL_TYPES;
    let every = ArrayBuilder::new()
        .items(names(&[ALL_TYPES]))
        .min_items(Some(1))
        .max_items(Some(1));
    let named: Vec<&str> = names::names::<EventType>().collect();
    let some = ArrayBuilder::new()
        .items(names(&named))
        .min_items(Some(1))
        .max_items(Some(named.len()))
        .unique_items(true);
    Schema::OneOf(
        utoipa::openapi::schema::OneOfBuilder::new()
            .item(every)
            .item(some)
            .build(),
    )
}

/// [`tags`] as one text, comma-separated (the claimable list's query):
/// visible ASCII but the comma.
fn tag_list() -> Object {
    use crate::domain::eligibility::{MAX_NAME_LEN, MAX_TAGS};
    let tag = format!("[!-+\\--~]{{1,{MAX_NAME_LEN}}}");
    let more = MAX_TAGS - 1;
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!("^({tag}(,{tag}){{0,{more}}})?$")))
        .build()
}

/// A passphrase as the schema says it: `MIN_CHARS` to `MAX_CHARS` ASCII
/// letters or digits (narrower than `codes::passphrase`, which takes the
/// letters and digits of any script: a JSON Schema pattern has no `\p{L}`
/// every generator reads).
pub fn passphrase() -> Object {
    use crate::codes::passphrase::{MAX_CHARS, MIN_CHARS};
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(format!("^[A-Za-z0-9]{{{MIN_CHARS},{MAX_CHARS}}}$")))
        .build()
}

/// The coupons a lock or quote names: 1 to `MAX_COUPONS_PER_ORDER`, none
/// twice (`orders::validate_coupon_ids`).
pub fn coupon_ids() -> Array {
    use crate::commands::coupons::MAX_COUPONS_PER_ORDER;
    let uuid = ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)));
    ArrayBuilder::new()
        .items(uuid)
        .min_items(Some(1))
        .max_items(Some(MAX_COUPONS_PER_ORDER))
        .unique_items(true)
        .build()
}

/// A type's schema as the document holds it, as JSON (for the tests that
/// hold a schema to its parser).
pub fn json<T: utoipa::PartialSchema>() -> serde_json::Value {
    serde_json::to_value(T::schema()).unwrap_or_default()
}

/// [`json`] of a schema built by a function of this module.
pub fn json_of(object: Object) -> serde_json::Value {
    serde_json::to_value(object).unwrap_or_default()
}
