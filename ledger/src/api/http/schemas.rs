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
use utoipa::openapi::schema::{ObjectBuilder, SchemaFormat, Type};
use utoipa::openapi::{KnownFormat, Object};

use crate::domain::names;

/// No NUL anywhere: the one rule every text the API takes shares
/// (`extract.rs`: Postgres cannot store a NUL).
pub const NO_NUL: &str = "^[^\\u0000]*$";

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
/// characters): no NUL, and neither starting nor ending with white space
/// (narrower than the check, which trims it).
pub fn name<const MAX: usize>() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(MAX))
        .pattern(Some("^[^\\s\\u0000]([^\\u0000]*[^\\s\\u0000])?$"))
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
