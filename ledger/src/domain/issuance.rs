//! Bulk issuance (docs/design.md §9), the pure part: a job's statuses, each line's
//! outcome, the chunk message, and how one chunk's lines are decided given
//! what the users already hold and how much quota is left.
//!
//! Deciding a chunk is two steps, because the quota guard in SQL can only
//! reserve once it knows how many lines want a coupon:
//! 1. [`per_user`]: in file order, a line passes while its user is under the
//!    template's per-user limit (counting earlier lines of the same chunk);
//! 2. [`take_quota`]: of the passing lines, the first `granted` (what the
//!    guarded UPDATE reserved) are issued, the rest are `sold_out`.

use crate::domain::names::name_list;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::domain::ids::{TemplateSn, UserId};

/// Lines per chunk message by default, and at most.
pub const DEFAULT_CHUNK_LINES: usize = 1_000;
pub const MAX_CHUNK_LINES: usize = 10_000;

/// How long an `uploading` job may stay silent before it counts as broken off.
pub const UPLOAD_SILENCE_SECS: i64 = 10;

name_list! {
    /// Where a job stands (contract names).
    #[derive(Serialize, Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    // The API's schema keeps its published name.
    #[schema(as = JobStatus)]
    pub enum IssuanceJobStatus {
        /// The file is being read and its chunks published.
        Uploading,
        /// The upload broke off; the same file under the same key resumes it.
        Incomplete,
        /// Every chunk is on the queue; none issued yet.
        Queued,
        Running,
        Done,
        Cancelled,
        Failed,
    }
}

impl IssuanceJobStatus {
    pub const ALL: &'static [IssuanceJobStatus] = <Self as strum::VariantArray>::VARIANTS;

    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }

    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }

    /// No chunk will change the job any more.
    pub const fn is_final(self) -> bool {
        matches!(self, Self::Done | Self::Cancelled | Self::Failed)
    }

    /// The final statuses' names, to bind as a `text[]`.
    pub fn final_names() -> Vec<&'static str> {
        Self::ALL
            .iter()
            .filter(|s| s.is_final())
            .map(|s| s.as_str())
            .collect()
    }

    /// The status a reader sees: the stored one (the upload, a cancel and
    /// each chunk's own transaction write it), except that an upload silent
    /// for longer than `silence` broke off, though nothing wrote so.
    pub fn shown(self, progress: JobProgress, silence: chrono::Duration) -> IssuanceJobStatus {
        match self {
            Self::Uploading if progress.now - progress.updated_at > silence => Self::Incomplete,
            other => other,
        }
    }
}

/// What [`IssuanceJobStatus::shown`] needs to know of a job.
#[derive(Clone, Copy, Debug)]
pub struct JobProgress {
    /// Known once the upload ended.
    pub chunks_total: Option<i32>,
    pub chunks_done: i32,
    pub updated_at: chrono::DateTime<chrono::Utc>,
    pub now: chrono::DateTime<chrono::Utc>,
}

name_list! {
    /// What became of one line of the file (contract names). Every line ends
    /// in exactly one.
    pub enum Outcome {
        Issued,
        Invalid,
        OverLimit,
        SoldOut,
        Cancelled,
        /// The template admits only its allow-list, and the user is not on
        /// it (docs/design.md §15).
        NotEligible,
    }
}

impl Outcome {
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

/// One valid line of the file, as a chunk carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChunkLine {
    /// 1-based line number in the uploaded file.
    pub line: u64,
    #[serde(deserialize_with = "UserId::read_stored")]
    pub user_id: UserId,
}

/// The body of a `coupon.issuance` message (schema in `schemas/`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IssuanceChunk {
    pub job_id: Uuid,
    /// 0-based, in file order.
    pub chunk_no: i32,
    pub template_sn: TemplateSn,
    pub lines: Vec<ChunkLine>,
}

impl IssuanceChunk {
    /// The message id: the same (job, chunk) always has the same id, so a
    /// chunk published twice is applied once (the worker's inbox).
    pub fn message_id(job_id: Uuid, chunk_no: i32) -> String {
        format!("issuance-{job_id}-{chunk_no}")
    }
}

/// The lines of a chunk after the per-user limit.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PerUser {
    /// Indices (into the chunk's lines) that may get a coupon, in order.
    pub passing: Vec<usize>,
    /// Indices whose user is at the limit.
    pub over_limit: Vec<usize>,
}

/// Step 1: which lines pass the per-user limit, given what each user
/// already claimed of the template (absent: none).
pub fn per_user(lines: &[ChunkLine], claimed: &HashMap<String, i32>, limit: i32) -> PerUser {
    let mut so_far: HashMap<&str, i32> = HashMap::new();
    let mut decided = PerUser::default();
    for (i, line) in lines.iter().enumerate() {
        let held = so_far
            .entry(line.user_id.as_str())
            .or_insert_with(|| claimed.get(line.user_id.as_str()).copied().unwrap_or(0));
        if *held < limit {
            *held += 1;
            decided.passing.push(i);
        } else {
            decided.over_limit.push(i);
        }
    }
    decided
}

/// Step 2: the first `granted` passing lines are issued, the rest sold out.
/// Returns (issued, sold_out).
pub fn take_quota(passing: &[usize], granted: usize) -> (&[usize], &[usize]) {
    debug_assert!(
        granted <= passing.len(),
        "the guard reserves at most what was asked"
    );
    passing.split_at(granted.min(passing.len()))
}

/// Each user's new claim count after the issued lines (for the guarded upsert).
pub fn claims_after(
    lines: &[ChunkLine],
    issued: &[usize],
    claimed: &HashMap<String, i32>,
) -> Vec<(String, i32)> {
    let mut counts: HashMap<&str, i32> = HashMap::new();
    for &i in issued {
        *counts.entry(lines[i].user_id.as_str()).or_default() += 1;
    }
    let mut after: Vec<(String, i32)> = counts
        .into_iter()
        .map(|(user, n)| (user.to_owned(), claimed.get(user).copied().unwrap_or(0) + n))
        .collect();
    // A fixed order: concurrent chunks lock user_claims rows alike.
    after.sort();
    after
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(users: &[&str]) -> Vec<ChunkLine> {
        users
            .iter()
            .enumerate()
            .map(|(i, u)| ChunkLine {
                line: i as u64 + 1,
                user_id: UserId::parse(u).unwrap(),
            })
            .collect()
    }

    #[test]
    fn repeated_users_pass_up_to_their_limit_counting_what_they_hold() {
        let chunk = lines(&["a", "b", "a", "a", "c", "b"]);
        let claimed = HashMap::from([("b".to_owned(), 1)]);
        let decided = per_user(&chunk, &claimed, 2);
        assert_eq!(decided.passing, vec![0, 1, 2, 4]);
        assert_eq!(decided.over_limit, vec![3, 5]);
    }

    #[test]
    fn the_quota_goes_to_the_first_passing_lines_and_claims_count_only_them() {
        let chunk = lines(&["a", "b", "a", "c"]);
        let claimed = HashMap::from([("a".to_owned(), 1)]);
        let decided = per_user(&chunk, &claimed, 3);
        let (issued, sold_out) = take_quota(&decided.passing, 3);
        assert_eq!((issued, sold_out), (&[0, 1, 2][..], &[3][..]));
        let after = claims_after(&chunk, issued, &claimed);
        assert_eq!(after, vec![("a".to_owned(), 3), ("b".to_owned(), 1)]);
    }

    #[test]
    fn every_line_gets_exactly_one_outcome() {
        let chunk = lines(&["a", "a", "a", "b", "b", "c"]);
        for limit in 1..4 {
            for granted in 0..=6 {
                let decided = per_user(&chunk, &HashMap::new(), limit);
                let granted = granted.min(decided.passing.len());
                let (issued, sold_out) = take_quota(&decided.passing, granted);
                let mut all: Vec<usize> = [issued, sold_out, &decided.over_limit].concat();
                all.sort();
                assert_eq!(all, (0..chunk.len()).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn the_stored_status_is_shown_but_a_silent_upload_broke_off() {
        let now = chrono::Utc::now();
        let silence = chrono::Duration::seconds(30);
        let at = |chunks_total, chunks_done, quiet| JobProgress {
            chunks_total,
            chunks_done,
            updated_at: now - chrono::Duration::seconds(quiet),
            now,
        };
        use IssuanceJobStatus as S;
        // The chunks' counts never run ahead of the stored status.
        assert_eq!(S::Queued.shown(at(Some(3), 3, 0), silence), S::Queued);
        assert_eq!(S::Running.shown(at(Some(3), 1, 0), silence), S::Running);
        assert_eq!(S::Uploading.shown(at(None, 2, 5), silence), S::Uploading);
        assert_eq!(S::Uploading.shown(at(None, 2, 31), silence), S::Incomplete);
        assert_eq!(S::Cancelled.shown(at(Some(3), 3, 0), silence), S::Cancelled);
    }

    #[test]
    fn statuses_round_trip() {
        for &status in IssuanceJobStatus::ALL {
            assert_eq!(IssuanceJobStatus::parse(status.as_str()), Some(status));
        }
        assert!(IssuanceJobStatus::Done.is_final() && !IssuanceJobStatus::Running.is_final());
    }
}
