-- The database itself keeps event ids and stream versions unique across
-- every partition (docs/design.md §16, "Uniqueness the database keeps"),
-- however a row of `events` is written: by the store's append, by COPY, or
-- by a plain INSERT of any role.
--
-- Until V34 the store's own append paths wrote `event_ids` and `streams`
-- next to the events; a plain INSERT into `events` wrote neither, so a
-- duplicate (stream_id, stream_version) whose position fell in another
-- partition, or a duplicate event_id, went in. Now a statement trigger on
-- `events` writes both from the rows the statement inserted (its
-- transition table), and the store's paths no longer write them:
--
-- - every new event id goes into `event_ids`, whose primary key refuses a
--   second one (`event_ids_pkey`, SQLSTATE 23505);
-- - a stream's first event (version 1) makes its `streams` row, whose
--   primary key refuses a second one (`streams_pkey`);
-- - a stream's later events move its row on from the version before their
--   first to their last, their versions distinct and without a gap; a row
--   that does not stand at exactly the version before is a unique
--   violation of `streams_pkey` raised by the trigger: a (stream_id,
--   stream_version) that exists already. The update locks the row, so two
--   statements racing for a version are settled by it (the second waits,
--   then finds it moved).
--
-- Why a statement trigger with a transition table: the work is set-based,
-- one statement per table whatever the rows (a COPY of 10,000 events makes
-- 10,000 keys in one INSERT, as the store's own COPY of them did), and it
-- takes no round trip of the client's. Measured in docs/benchmarks.md
-- ("Batch append").

CREATE FUNCTION events_keys() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    touched bigint;
    moved bigint;
BEGIN
    INSERT INTO event_ids (event_id, position) SELECT event_id, position FROM added;
    INSERT INTO streams (stream_id, version, last_tx, first_position)
        SELECT stream_id, 1, tx_id, position FROM added WHERE stream_version = 1;
    WITH later AS MATERIALIZED (
        SELECT stream_id, min(stream_version) AS lo, max(stream_version) AS hi,
               count(*) AS n, max(tx_id) AS last_tx
          FROM added WHERE stream_version > 1 GROUP BY stream_id),
    repeated AS (
        SELECT 1 FROM added WHERE stream_version > 1 AND (SELECT bool_or(n > 1) FROM later)
         GROUP BY stream_id, stream_version HAVING count(*) > 1),
    moved AS (
        UPDATE streams s SET version = l.hi, last_tx = GREATEST(s.last_tx, l.last_tx)
          FROM later l
         WHERE s.stream_id = l.stream_id AND s.version = l.lo - 1 AND l.n = l.hi - l.lo + 1
           AND NOT EXISTS (SELECT 1 FROM repeated)
        RETURNING 1)
    SELECT (SELECT count(*) FROM later), (SELECT count(*) FROM moved) INTO touched, moved;
    IF moved <> touched THEN
        RAISE EXCEPTION 'a stream version of this statement exists already (or its versions repeat or skip one)'
            USING ERRCODE = 'unique_violation', CONSTRAINT = 'streams_pkey',
                  HINT = 'append at the stream''s next version';
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER events_keys
    AFTER INSERT ON events
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION events_keys();

-- The keys are append-only too: an id is never forgotten, a stream's
-- version only moves forward and its first position never changes.
CREATE FUNCTION store_keys_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%: % is not allowed (the store''s uniqueness keys)', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER event_ids_append_only
    BEFORE UPDATE OR DELETE ON event_ids
    FOR EACH ROW EXECUTE FUNCTION store_keys_guard();
CREATE TRIGGER event_ids_no_truncate
    BEFORE TRUNCATE ON event_ids
    FOR EACH STATEMENT EXECUTE FUNCTION store_keys_guard();
CREATE TRIGGER streams_no_delete
    BEFORE DELETE ON streams
    FOR EACH ROW EXECUTE FUNCTION store_keys_guard();
CREATE TRIGGER streams_no_truncate
    BEFORE TRUNCATE ON streams
    FOR EACH STATEMENT EXECUTE FUNCTION store_keys_guard();
CREATE TRIGGER streams_forward_only
    BEFORE UPDATE ON streams
    FOR EACH ROW
    WHEN (NEW.version < OLD.version OR NEW.stream_id <> OLD.stream_id
          OR NEW.first_position <> OLD.first_position)
    EXECUTE FUNCTION store_keys_guard();
REVOKE UPDATE, DELETE, TRUNCATE ON event_ids FROM PUBLIC;
REVOKE DELETE, TRUNCATE ON streams FROM PUBLIC;

-- One append to one stream (V32's function, docs/design.md §4): the same
-- guards, without error when they fail (the caller's transaction goes on
-- and finds out which), but the keys are the trigger's to write. A new
-- stream must have no row; an existing one's row is locked at
-- `at_version` (FOR UPDATE: a racing append waits, then finds it moved
-- and writes nothing). Two appends racing to make the same new stream
-- are settled by the row's primary key: the second fails with a unique
-- violation (the store's `VersionConflict`).
CREATE OR REPLACE FUNCTION append_events(
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
    free AS (
        SELECT 1 WHERE at_version = 0 AND (SELECT ok FROM fresh)
           AND NOT EXISTS (SELECT 1 FROM streams WHERE stream_id = to_stream)),
    held AS (
        SELECT version FROM streams
         WHERE stream_id = to_stream AND version = at_version AND at_version > 0
           AND (SELECT ok FROM fresh)
           FOR UPDATE),
    appended AS (
        INSERT INTO events (position, event_id, stream_id, stream_version, event_type,
                            schema_version, payload, metadata, occurred_at)
        SELECT p.position, e.event_id, to_stream, at_version + e.ord::int, e.event_type,
               e.schema_version, e.payload, e.metadata, e.occurred_at
          FROM unnest(new_ids, new_types, new_schema_versions, new_payloads, new_metadata,
                      new_occurred_at) WITH ORDINALITY
               AS e(event_id, event_type, schema_version, payload, metadata, occurred_at, ord)
          JOIN pos p ON p.ord = e.ord
         WHERE EXISTS (SELECT 1 FROM free UNION ALL SELECT 1 FROM held)
        RETURNING events.position, events.stream_version)
    SELECT a.position, a.stream_version FROM appended a ORDER BY a.stream_version;
END
$$;

-- The keys of events written by plain SQL are the trigger's now; V29's
-- helper stays for a restore that loads `events` with its triggers off
-- (pg_restore --disable-triggers) and must index its keys after.
