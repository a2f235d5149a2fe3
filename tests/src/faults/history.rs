//! What the clients did: every logical request (one Idempotency-Key, or
//! one flash-sale attempt), its final answer, how many tries it took and
//! when. The checker reads only this and the stores' final state.

use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

/// Every kind of request the workload sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// A signed claim on the hot template (per-user limit 2).
    ClaimHot,
    /// A claim in the flash sale (no key: the group commit; limit 1).
    ClaimFlash,
    /// A claim on the template voided mid-run.
    ClaimDoomed,
    /// A claim of the shop template, for an order.
    ClaimShop,
    Lock,
    Confirm,
    Cancel,
    Refund,
    /// A one-use code.
    Redeem,
    /// The shared code.
    RedeemShared,
    PackageClaim,
    Upload,
    Void,
}

/// How a request ended.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Answer {
    /// An HTTP answer other than 503.
    Status { status: u16, body: Value },
    /// No answer but 503s and dropped connections until the client gave up:
    /// it may have taken effect, at most once.
    Unknown { last: String },
}

impl Answer {
    pub fn status(&self) -> Option<u16> {
        match self {
            Answer::Status { status, .. } => Some(*status),
            Answer::Unknown { .. } => None,
        }
    }

    pub fn is(&self, wanted: u16) -> bool {
        self.status() == Some(wanted)
    }

    pub fn body(&self) -> &Value {
        match self {
            Answer::Status { body, .. } => body,
            Answer::Unknown { .. } => &Value::Null,
        }
    }
}

/// One logical request.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    pub op: Op,
    /// Its Idempotency-Key (a flash claim's: a name only, never sent).
    pub key: String,
    /// Who or what it was about: a user, an order, a code.
    pub subject: String,
    pub answer: Answer,
    /// HTTP tries, the first included.
    pub tries: u32,
    /// Whether an earlier try may have taken effect (a 503 or a drop).
    pub uncertain_tries: u32,
    pub started_ms: u64,
    pub ended_ms: u64,
}

/// The history, appended to by every client.
pub struct History {
    start: Instant,
    entries: Mutex<Vec<Entry>>,
}

impl History {
    pub fn new(start: Instant) -> Self {
        History {
            start,
            entries: Mutex::new(Vec::new()),
        }
    }

    /// Milliseconds since the workload started.
    pub fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    pub fn push(&self, entry: Entry) {
        self.entries
            .lock()
            .expect("no client panics holding it")
            .push(entry);
    }

    pub fn entries(&self) -> Vec<Entry> {
        self.entries
            .lock()
            .expect("no client panics holding it")
            .clone()
    }
}
