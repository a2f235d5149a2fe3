use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Someone else appended to the stream first; reload and decide again.
    #[error("stream {stream_id} is not at version {expected}")]
    VersionConflict { stream_id: String, expected: i32 },
    /// The event id was recorded before with other content.
    #[error("event {event_id} was already recorded with other content")]
    EventIdReused { event_id: Uuid },
    #[error("event store: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error(transparent)]
    Encode(#[from] super::event::EncodeError),
}

/// The unique constraint that guards stream versions (created by V1).
pub(crate) const STREAM_VERSION_KEY: &str = "events_stream_id_stream_version_key";

/// Whether `e` is a violation of the stream-version uniqueness guard.
pub(crate) fn is_version_conflict(e: &tokio_postgres::Error) -> bool {
    e.as_db_error().is_some_and(|db| {
        *db.code() == tokio_postgres::error::SqlState::UNIQUE_VIOLATION
            && db.constraint() == Some(STREAM_VERSION_KEY)
    })
}

/// A failed append: a version conflict on `stream_id`, or a database error.
pub(crate) fn conflict_or_db(
    e: tokio_postgres::Error,
    stream_id: &str,
    expected: i32,
) -> StoreError {
    if is_version_conflict(&e) {
        StoreError::VersionConflict {
            stream_id: stream_id.to_owned(),
            expected,
        }
    } else {
        StoreError::Db(e)
    }
}
