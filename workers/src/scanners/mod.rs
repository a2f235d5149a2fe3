//! The workers that wake on a clock rather than a queue:
//!
//! - [`scanner`]: expiry of coupons and lock timeouts, job purges, every
//!   interval; [`requeue`]: package jobs whose message may never have
//!   been sent.
//! - [`sealer`]: the hash chain over the events, and its checkpoints.
//! - [`archiver`]: ended coupons to cold storage, every interval.

pub(crate) mod archiver;
pub(crate) mod requeue;
pub(crate) mod scanner;
pub(crate) mod sealer;
