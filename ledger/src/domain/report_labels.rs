//! The labels a report gives its own rows (docs/design.md §12): a group
//! with no channel, the platform's templates, the row that adds all up.
//! Ids parse against them (a shop may not be called so), so they sit
//! below both the ids and the liability fold.

/// The label of coupons issued without a channel.
pub const NO_CHANNEL: &str = "none";

/// The label of the templates of no shop (the platform's own) when rows
/// are grouped by shop.
pub const PLATFORM: &str = "(platform)";

/// The label of the row that adds every group up.
pub const TOTAL: &str = "total";
