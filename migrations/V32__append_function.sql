-- One append to one stream (docs/design.md §4, "The append's plan"): the
-- statement `store::append` sent as its own prepared statement until V32,
-- now a function whose plan is kept.
--
-- Why a function: as a prepared statement its plan was made again on every
-- call. Postgres compares a cached generic plan's estimate with the plans
-- made for each call's values; with the events' arrays unknown it
-- estimated 1,000 positions and 50 events, a single event's plan came out
-- ten times cheaper, so every append paid for planning a statement of six
-- tables (about 0.3 ms of the server's CPU, three quarters of the append).
-- Inside this function the plan is made once per connection
-- (`plan_cache_mode = force_generic_plan`, for this function only): the
-- append does the same work whatever the events' count, so one plan fits
-- every call. That plan must never scan: one made while `event_ids` and
-- `streams` were analyzed empty (a new store) looked them up by sequential
-- scan and kept doing so as they grew (9 ms an append at 100,000 rows,
-- quadratic over a first bulk of appends). Every lookup here is by a
-- unique key, so the function also plans without sequential scans.
--
-- The events are fresh (no id recorded before), the stream is at
-- `expected` (its `streams` row moved on, or made for a new one), then the
-- events at positions taken from the sequence and their ids. Nothing is
-- written when either guard fails (no error: the caller's transaction goes
-- on and finds out which). Both guards are unique keys outside the
-- partitioned table (§16): `event_ids`' and `streams`' own; a race between
-- two appends is settled by the `streams` row.
CREATE FUNCTION append_events(
    new_ids uuid[], to_stream text, at_version int, new_types text[],
    new_schema_versions int2[], new_payloads jsonb[], new_metadata jsonb[],
    new_occurred_at timestamptz[])
RETURNS TABLE (event_position bigint, event_version int)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
BEGIN
    RETURN QUERY
    WITH fresh AS (SELECT NOT EXISTS (SELECT 1 FROM event_ids WHERE event_id = ANY(new_ids)) AS ok),
    pos AS MATERIALIZED (
        SELECT nextval('events_position_seq') AS position, ord
          FROM generate_series(1, cardinality(new_ids)) AS ord WHERE (SELECT ok FROM fresh)),
    made AS (
        INSERT INTO streams (stream_id, version, last_tx, first_position)
        SELECT to_stream, at_version + cardinality(new_ids), pg_current_xact_id()::text::bigint,
               (SELECT min(position) FROM pos)
         WHERE at_version = 0 AND (SELECT ok FROM fresh)
        ON CONFLICT (stream_id) DO NOTHING RETURNING version),
    moved AS (
        UPDATE streams SET version = at_version + cardinality(new_ids),
                           last_tx = GREATEST(last_tx, pg_current_xact_id()::text::bigint)
         WHERE stream_id = to_stream AND version = at_version AND at_version > 0
           AND (SELECT ok FROM fresh)
        RETURNING version),
    appended AS (
        INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                            schema_version, payload, metadata, occurred_at)
        SELECT p.position, e.event_id, to_stream, at_version + e.ord::int, e.event_type,
               e.schema_version, e.payload, e.metadata, e.occurred_at
          FROM unnest(new_ids, new_types, new_schema_versions, new_payloads, new_metadata,
                      new_occurred_at) WITH ORDINALITY
               AS e(event_id, event_type, schema_version, payload, metadata, occurred_at, ord)
          JOIN pos p ON p.ord = e.ord
         WHERE EXISTS (SELECT 1 FROM made UNION ALL SELECT 1 FROM moved)
        RETURNING events.position, events.event_id, events.stream_version),
    recorded AS (INSERT INTO event_ids (event_id, position)
                 SELECT a.event_id, a.position FROM appended a)
    SELECT a.position, a.stream_version FROM appended a ORDER BY a.stream_version;
END
$$;
