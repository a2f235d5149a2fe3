//! A decimal field of a discount rule as it arrives: the string the contract
//! asks for (`"25.00"`), or a JSON number sent in its place. The number is
//! kept, not refused while deserializing: inside the tagged `discount`
//! object serde could only name `discount`, while validation names the
//! field (`discount.amount`) as it does for a malformed string. A number is
//! refused there: a JSON number is a binary float to most clients, and
//! money is exact.

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::domain::parse_error::{ParseError, ParseErrorKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawDecimal {
    Text(String),
    /// The number as JSON wrote it.
    Number(String),
}

impl RawDecimal {
    /// The text to parse, or the error naming `field` when a number came.
    pub fn text(&self, field: &str) -> Result<&str, ParseError> {
        match self {
            Self::Text(text) => Ok(text),
            Self::Number(n) => Err(ParseError::new(
                field,
                ParseErrorKind::NumberNotString(n.clone()),
            )),
        }
    }
}

impl From<String> for RawDecimal {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

/// Always a string: what is stored and shown is the text.
impl Serialize for RawDecimal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(s) | Self::Number(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RawDecimal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StringOrNumber)
    }
}

struct StringOrNumber;

impl Visitor<'_> for StringOrNumber {
    type Value = RawDecimal;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a decimal string, like \"25.00\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawDecimal, E> {
        Ok(RawDecimal::Text(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<RawDecimal, E> {
        Ok(RawDecimal::Text(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawDecimal, E> {
        Ok(RawDecimal::Number(v.to_string()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawDecimal, E> {
        Ok(RawDecimal::Number(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawDecimal, E> {
        Ok(RawDecimal::Number(v.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_is_text_and_a_number_is_named_as_the_field_at_fault() {
        let text: RawDecimal = serde_json::from_str(r#""25.00""#).unwrap();
        assert_eq!(text.text("amount"), Ok("25.00"));
        for json in ["25", "-3", "19.99"] {
            let number: RawDecimal = serde_json::from_str(json).unwrap();
            let e = number.text("amount").unwrap_err();
            assert_eq!(e.field(), "amount");
            assert!(e.message().contains(json), "{e}");
            assert_eq!(
                serde_json::to_string(&number).unwrap(),
                format!("\"{json}\"")
            );
        }
        assert!(serde_json::from_str::<RawDecimal>("true").is_err());
    }
}
