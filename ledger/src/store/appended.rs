//! The ids of the events a request appended, for its log line.
//!
//! A request runs inside [`scope`] with a fresh [`Appended`]; every append
//! function of the store adds the ids it wrote to the one in scope, if any
//! (workers and CLI commands run outside one: nothing is collected). Work
//! done for the request on another task (the flash-sale batcher) takes the
//! collector along with [`current`] and adds to it there.
//!
//! Ids are added when the statement wrote them, before the commit: a
//! request whose transaction rolls back has collected ids that were never
//! recorded. The request log therefore shows them only for a successful
//! answer (2xx), which is only sent after the commit.

use std::future::Future;
use std::sync::{Arc, Mutex};

use uuid::Uuid;

tokio::task_local! {
    static APPENDED: Appended;
}

/// The ids appended so far by one request (cheap to clone: one `Arc`).
#[derive(Clone, Debug, Default)]
pub struct Appended(Arc<Mutex<Vec<Uuid>>>);

impl Appended {
    pub fn extend(&self, ids: impl IntoIterator<Item = Uuid>) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(ids);
    }

    /// The ids, in the order they were appended.
    pub fn ids(&self) -> Vec<Uuid> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// Runs `work` with `appended` as the collector of its task.
pub async fn scope<F: Future>(appended: Appended, work: F) -> F::Output {
    APPENDED.scope(appended, work).await
}

/// The collector in scope, to take to another task.
pub fn current() -> Option<Appended> {
    APPENDED.try_with(Clone::clone).ok()
}

/// Adds `ids` to the collector in scope; nothing outside one.
pub fn record(ids: impl IntoIterator<Item = Uuid>) {
    let _ = APPENDED.try_with(|a| a.extend(ids));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn ids_are_collected_in_scope_only() {
        record([Uuid::now_v7()]);
        let appended = Appended::default();
        let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
        let elsewhere = scope(appended.clone(), async move {
            record([a]);
            let taken = current().expect("in scope");
            tokio::spawn(async move { taken.extend([b]) })
                .await
                .unwrap();
            tokio::spawn(async { current().is_none() }).await.unwrap()
        })
        .await;
        assert!(elsewhere, "a spawned task is outside the scope");
        assert_eq!(appended.ids(), vec![a, b]);
    }
}
