//! The kinds of job the issuance queue (`coupon.issuance`) carries, one
//! list (docs/design.md §9): a kind's name is its messages' `type` property
//! and its schema's name (`schemas/<kind>.v<n>.json`), and the issuance
//! worker decodes a delivery by it.

use lapin::BasicProperties;

use crate::domain::names::{comma_separated, name_list};

name_list! {
    /// Named on the wire as the types are (not in snake case): each
    /// variant's `to_string` is its own name.
    pub enum JobKind {
        /// A chunk of a bulk issuance's lines (`chunk_message`).
        #[strum(to_string = "IssuanceChunk")]
        IssuanceChunk,
        /// A large package's claim run as a job (`package_job_message`).
        #[strum(to_string = "PackageJob")]
        PackageJob,
    }
}

impl JobKind {
    /// Its name on the wire: the `type` property and the schema's name.
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }

    /// The kind a delivery's `type` property names. A message without one
    /// is a chunk (chunks went out untyped before package jobs existed); a
    /// type outside the list is refused, naming it.
    pub fn of(properties: &BasicProperties) -> Result<Self, UnknownJobKind> {
        match properties.kind() {
            None => Ok(Self::IssuanceChunk),
            Some(name) => name.as_str().parse().map_err(|_| UnknownJobKind {
                name: name.to_string(),
            }),
        }
    }
}

/// A message on the issuance queue whose `type` is no [`JobKind`].
#[derive(Debug, thiserror::Error)]
#[error("a message of type {name:?} on the issuance queue: its types are {known}", known = comma_separated::<JobKind>())]
pub struct UnknownJobKind {
    pub name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delivery_is_read_by_its_type_and_an_untyped_one_is_a_chunk() {
        let typed = |t: &str| BasicProperties::default().with_type(t.into());
        assert_eq!(
            JobKind::of(&typed("PackageJob")).unwrap(),
            JobKind::PackageJob
        );
        assert_eq!(
            JobKind::of(&typed("IssuanceChunk")).unwrap(),
            JobKind::IssuanceChunk
        );
        assert_eq!(
            JobKind::of(&BasicProperties::default()).unwrap(),
            JobKind::IssuanceChunk
        );
        let unknown = JobKind::of(&typed("CouponIssued")).unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "a message of type \"CouponIssued\" on the issuance queue: its types are IssuanceChunk, PackageJob"
        );
    }
}
