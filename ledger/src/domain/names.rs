//! The enums that are lists of names (statuses, kinds, policies) all take
//! the same derives from `strum`, so that each list is written once, as the
//! enum's variants:
//!
//! - `IntoStaticStr` with `const_into_str`: the name (`as_str`, `into_str`);
//! - `EnumString`: `FromStr` from exactly that name;
//! - `VariantArray`: every value, in declaration order;
//! - `Display`: the name;
//!
//! with `#[strum(serialize_all = "snake_case")]`, the names serde writes
//! (`#[serde(rename_all = "snake_case")]`). This module lists a type's names
//! for messages that say what is expected.

use strum::VariantArray;

/// Every name of `T`, in declaration order.
pub fn names<T>() -> impl Iterator<Item = &'static str>
where
    T: VariantArray + Copy + Into<&'static str>,
{
    T::VARIANTS.iter().map(|&v| v.into())
}

/// The names of `T` separated by commas: `a, b, c`.
pub fn comma_separated<T>() -> String
where
    T: VariantArray + Copy + Into<&'static str>,
{
    names::<T>().collect::<Vec<_>>().join(", ")
}

/// The names of `T` as alternatives: `a, b or c` (`a or b`; `a`).
pub fn alternatives<T>() -> String
where
    T: VariantArray + Copy + Into<&'static str>,
{
    let names: Vec<&str> = names::<T>().collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// `value` of the field `field` as one of `T`'s values; else the message
/// that refuses it, naming the field and what it may be (`status: a, b or c`).
pub fn parse_field<T>(field: &str, value: &str) -> Result<T, String>
where
    T: VariantArray + Copy + Into<&'static str> + std::str::FromStr,
{
    value
        .parse()
        .map_err(|_| format!("{field}: {}", alternatives::<T>()))
}

/// The JSON Schema of a name-list enum in an event payload: inlined where a
/// field names it, a string of one of its names and nothing more (the type's
/// doc stays in the code). For `#[schemars(inline, transform = ...)]`.
pub fn plain_schema(schema: &mut schemars::Schema) {
    schema.remove("description");
}

/// Declares an enum that is a list of names with the one derive set above
/// (and `Clone, Copy, Debug, PartialEq, Eq, Hash`); serde, schema and other
/// derives a list needs come in its own attributes.
macro_rules! name_list {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident { $($(#[$vattr:meta])* $variant:ident),+ $(,)? }
    ) => {
        $(#[$attr])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash,
            strum::IntoStaticStr, strum::EnumString, strum::VariantArray, strum::Display,
        )]
        #[strum(serialize_all = "snake_case", const_into_str)]
        $vis enum $name { $($(#[$vattr])* $variant),+ }
    };
}
pub(crate) use name_list;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, strum::IntoStaticStr, strum::EnumString, strum::VariantArray)]
    #[strum(serialize_all = "snake_case")]
    enum Colour {
        Red,
        DarkGreen,
        Blue,
    }

    #[derive(Clone, Copy, Debug, strum::IntoStaticStr, strum::EnumString, strum::VariantArray)]
    #[strum(serialize_all = "snake_case")]
    enum Single {
        Only,
    }

    #[test]
    fn names_are_listed_in_declaration_order() {
        assert_eq!(comma_separated::<Colour>(), "red, dark_green, blue");
        assert_eq!(alternatives::<Colour>(), "red, dark_green or blue");
        assert_eq!(alternatives::<Single>(), "only");
        assert!(matches!(
            parse_field::<Single>("f", "only"),
            Ok(Single::Only)
        ));
        assert_eq!(
            parse_field::<Colour>("f", "Red").err().as_deref(),
            Some("f: red, dark_green or blue")
        );
    }
}
