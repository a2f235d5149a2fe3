//! Batches of redemption codes (docs/design.md §13), the pure part: a batch's status.

use crate::domain::names::name_list;
use serde::{Deserialize, Serialize};

name_list! {
    /// A code batch's status: `active` from its creation, `stopped` for good
    /// once stopped (its codes are refused).
    #[derive(Serialize, Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum CodeBatchStatus {
        Active,
        Stopped,
    }
}

impl CodeBatchStatus {
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}
