//! A field of a change that tells "absent" from `null`: `None` leaves the
//! value as it is, `Some(None)` clears it, `Some(Some(v))` sets it.
//!
//! serde reads `null` in an `Option<Option<T>>` as `None`, the same as an
//! absent field, so a clear would be lost on the way back in (a request, or
//! a stored `TemplateUpdated` read by `replay`). Such fields take
//! `#[serde(default, deserialize_with = "present")]`: absence is the
//! `default`, and anything present, `null` included, comes through here.

use serde::{Deserialize, Deserializer};

/// A present field: `null` is `Some(None)`.
pub fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}
