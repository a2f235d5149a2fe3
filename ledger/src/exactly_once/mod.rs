//! Nothing takes effect twice (docs/design.md §5, §7): each guard is
//! claimed inside the transaction of the effect it stands for.
//!
//! - [`idempotency`]: a command's `Idempotency-Key` and its stored answer.
//! - [`inbox`]: a consumer's (consumer, message id): a redelivery is a no-op.
//! - [`retention`]: the tables above (and the nonces) pruned by age, in
//!   bounded batches.

pub mod idempotency;
pub mod inbox;
pub mod retention;
