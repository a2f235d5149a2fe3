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
    /// A batch larger than one statement takes.
    #[error("a batch of {0} events is more than one append takes")]
    TooMany(usize),
}

/// The unique key of a stream (its row in `streams`, V29): a new stream
/// whose id is taken.
pub(crate) const STREAM_KEY: &str = "streams_pkey";
/// The unique key of an event's id across every partition (V29).
pub(crate) const EVENT_ID_KEY: &str = "event_ids_pkey";

fn violates(e: &tokio_postgres::Error, key: &str) -> bool {
    e.as_db_error().is_some_and(|db| {
        *db.code() == tokio_postgres::error::SqlState::UNIQUE_VIOLATION
            && db.constraint() == Some(key)
    })
}

/// Whether `e` is a violation of the stream-version uniqueness guard.
pub(crate) fn is_version_conflict(e: &tokio_postgres::Error) -> bool {
    violates(e, STREAM_KEY)
}

/// A failed append: a version conflict on `stream_id`, an event id
/// recorded before, or a database error.
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
    } else if violates(&e, EVENT_ID_KEY) {
        StoreError::EventIdReused {
            event_id: reused_id(&e).unwrap_or_default(),
        }
    } else {
        StoreError::Db(e)
    }
}

/// The id a violation of [`EVENT_ID_KEY`] names in its detail
/// (`Key (event_id)=(<uuid>) already exists.`).
pub(crate) fn reused_id(e: &tokio_postgres::Error) -> Option<Uuid> {
    let detail = e.as_db_error()?.detail()?;
    let id = detail.split_once("=(")?.1.split_once(')')?.0;
    id.parse().ok()
}
