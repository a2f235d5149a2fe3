//! Batches of redemption codes (docs/design.md §13), the pure part: a batch's status.

use serde::{Deserialize, Serialize};

/// A code batch's status: `active` from its creation, `stopped` for good
/// once stopped (its codes are refused).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::VariantArray,
    strum::Display,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case", const_into_str)]
pub enum CodeBatchStatus {
    Active,
    Stopped,
}

impl CodeBatchStatus {
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}
