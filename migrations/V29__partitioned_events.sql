-- The event store partitioned by range of position (docs/design.md §16).
--
-- `events` becomes a partitioned table; the table as it was (every event so
-- far) becomes its first partition, `events_p0`, covering positions from 0
-- to the next multiple of the partition size above the last one; pg_partman
-- makes the partitions after it ahead of the appends (`partman.part_config`,
-- run by `ledger migrate` and the scanner). The size: 50,000,000 events a
-- partition (about a day and a half at 10M coupons a day, ~25 GB with its
-- indexes: the partition being written keeps its indexes in memory, and a
-- closed one is vacuumed, moved or exported whole in minutes).
--
-- Postgres enforces a unique index of a partitioned table only when it
-- holds the partition key, so the store's two uniqueness rules live in
-- tables of their own, written by the store in the statement (or the
-- transaction) that appends the events, each under a real unique
-- constraint: `event_ids` (every event's id, and its position) and
-- `streams` (every stream's version, the transaction of its last event and
-- the position of its first). A stream's versions are taken one after the
-- other under its row, so (stream_id, stream_version) is unique whatever
-- partition its events land in.
--
-- The upgrade holds events locked for its length (measured in
-- docs/benchmarks.md: a pause proportional to the store's size).

CREATE SCHEMA IF NOT EXISTS partman;
CREATE EXTENSION IF NOT EXISTS pg_partman SCHEMA partman;

-- 1. The table as it was becomes the first partition.
ALTER TABLE events RENAME TO events_p0;
DROP TRIGGER events_no_update_delete ON events_p0;
DROP TRIGGER events_no_truncate ON events_p0;
DROP TRIGGER events_stream_order ON events_p0;
ALTER TABLE events_p0 ALTER COLUMN position DROP IDENTITY;
ALTER TABLE events_p0 RENAME CONSTRAINT events_pkey TO events_p0_pkey;
ALTER INDEX events_tx_order RENAME TO events_p0_tx_order;
ALTER INDEX events_occurred_at RENAME TO events_p0_occurred_at;
DROP INDEX events_type;

-- 2. The keys that must be unique across every partition.
CREATE TABLE event_ids (
    event_id uuid   PRIMARY KEY,
    position bigint NOT NULL
);
CREATE TABLE streams (
    stream_id      text    PRIMARY KEY,
    version        integer NOT NULL CHECK (version >= 1),
    -- The largest tx_id of its events: the next event's tx_id is at least
    -- this (the commit-safe order of a stream follows its versions).
    last_tx        bigint  NOT NULL,
    -- Its first event's position: a stream is read from there on, so the
    -- partitions before are never searched.
    first_position bigint  NOT NULL
);
INSERT INTO event_ids SELECT event_id, position FROM events_p0;
INSERT INTO streams
    SELECT stream_id, max(stream_version), max(tx_id), min(position)
      FROM events_p0 GROUP BY stream_id;
ALTER TABLE events_p0 DROP CONSTRAINT events_event_id_key;

-- 3. The partitioned table, its indexes on every partition.
CREATE SEQUENCE events_position_seq;
SELECT setval('events_position_seq', coalesce((SELECT max(position) FROM events_p0), 0) + 1, false);
CREATE TABLE events (
    position        bigint      NOT NULL DEFAULT nextval('events_position_seq'),
    event_id        uuid        NOT NULL,
    stream_id       text        NOT NULL,
    stream_version  integer     NOT NULL,
    event_type      text        NOT NULL,
    schema_version  smallint    NOT NULL,
    payload         jsonb       NOT NULL,
    metadata        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    tx_id           bigint      NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    -- Named as the first partition's (the table as it was) names them.
    CONSTRAINT events_stream_version_check CHECK (stream_version >= 1),
    CONSTRAINT events_schema_version_check CHECK (schema_version >= 1),
    PRIMARY KEY (position)
) PARTITION BY RANGE (position);
ALTER SEQUENCE events_position_seq OWNED BY events.position;
CREATE INDEX events_tx_order ON events (tx_id, position);
CREATE INDEX events_occurred_at ON events USING brin (occurred_at);
CREATE INDEX events_stream ON events (stream_id, stream_version);

-- The first partition: its (stream, version) index built to match, its
-- unique one dropped (streams holds the rule now), then attached.
CREATE INDEX events_p0_stream ON events_p0 (stream_id, stream_version);
ALTER TABLE events_p0 DROP CONSTRAINT events_stream_id_stream_version_key;
DO $$
DECLARE
    size constant bigint := 50000000;
    bound bigint := greatest(size, ((coalesce((SELECT max(position) FROM events_p0), 0) / size) + 1) * size);
BEGIN
    EXECUTE format('ALTER TABLE events_p0 ADD CONSTRAINT events_p0_range
                    CHECK (position >= 0 AND position < %s)', bound);
    EXECUTE format('ALTER TABLE events ATTACH PARTITION events_p0 FOR VALUES FROM (0) TO (%s)', bound);
    ALTER TABLE events_p0 DROP CONSTRAINT events_p0_range;
    PERFORM partman.create_parent(
        p_parent_table := 'public.events', p_control := 'position', p_type := 'native',
        p_interval := size::text, p_premake := 4, p_start_partition := bound::text,
        p_jobmon := false);
END $$;
-- Maintenance makes the next partitions; it never drops or detaches one
-- (a partition leaves only after a verified export: `ledger archive`).
UPDATE partman.part_config SET infinite_time_partitions = false, retention = NULL
 WHERE parent_table = 'public.events';

-- 4. Append-only, every partition included (row triggers are cloned onto
-- each partition, the TRUNCATE trigger is added to each by the store's
-- maintenance: `store::partitions`).
CREATE TRIGGER events_no_update_delete
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();
DO $$
DECLARE part regclass;
BEGIN
    FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'events'::regclass LOOP
        EXECUTE format('CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON %s
                        FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()', part);
    END LOOP;
END $$;
REVOKE UPDATE, DELETE, TRUNCATE ON events FROM PUBLIC;

-- 5. A stream's events follow its versions in the commit-safe order: an
-- event's tx_id is at least the stream's last one (V4's rule, now read from
-- `streams` instead of searching every partition for the previous event).
CREATE OR REPLACE FUNCTION events_stream_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.tx_id := GREATEST(NEW.tx_id, coalesce(
        (SELECT last_tx FROM streams WHERE stream_id = NEW.stream_id), 0));
    RETURN NEW;
END;
$$;
CREATE TRIGGER events_stream_order
    BEFORE INSERT ON events
    FOR EACH ROW WHEN (NEW.stream_version > 1)
    EXECUTE FUNCTION events_stream_order();

-- The seals and checkpoints keep referring to positions; nothing there
-- depends on the table's form.

-- The keys of events written by plain SQL (a benchmark's setup, a restore
-- from a dump of `events` alone): every event from position `since` on
-- gets its `event_ids` row and its stream's `streams` row. The store's
-- own appends write them as they append.
CREATE FUNCTION events_index_keys(since bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO event_ids (event_id, position)
        SELECT event_id, position FROM events WHERE position >= since
    ON CONFLICT (event_id) DO NOTHING;
    INSERT INTO streams (stream_id, version, last_tx, first_position)
        SELECT stream_id, max(stream_version), max(tx_id), min(position)
          FROM events WHERE position >= since GROUP BY stream_id
    ON CONFLICT (stream_id) DO UPDATE
        SET version = GREATEST(streams.version, excluded.version),
            last_tx = GREATEST(streams.last_tx, excluded.last_tx),
            first_position = LEAST(streams.first_position, excluded.first_position);
$$;
