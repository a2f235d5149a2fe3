-- Exports of event partitions, and the partitions that left `events`
-- (docs/design.md §16 "Retiring an event partition").
--
-- A partition may be detached or dropped only after an export of exactly
-- its range was written, read back and verified
-- (`ledger archive export-events`); the export is recorded here only once
-- it verified, so a row is a verified export. Both tables are append-only,
-- like the chain they account for.
CREATE TABLE partition_exports (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    partition_number bigint      NOT NULL CHECK (partition_number >= 0),
    partition_name   text        NOT NULL,
    range_lower      bigint      NOT NULL,
    range_upper      bigint      NOT NULL,
    -- The partition's events in the file (its bridge links aside).
    events           bigint      NOT NULL CHECK (events > 0),
    -- The chain's span in the file: the partition's first event in chain
    -- order to the closing checkpoint's last seal.
    first_seq        bigint      NOT NULL CHECK (first_seq >= 1),
    last_seq         bigint      NOT NULL,
    -- The first seal in the file of an event of a later partition (NULL:
    -- none came before the checkpoint). The partition's events sealed
    -- after it are interleaved with later partitions' in commit order:
    -- their exports need them as bridges, so they are kept in
    -- `event_bridges` when the partition leaves.
    first_later_seq  bigint,
    checkpoint_id    bigint      NOT NULL REFERENCES seal_checkpoints (id),
    checkpoint_head  bytea       NOT NULL CHECK (octet_length(checkpoint_head) = 32),
    file_sha256      bytea       NOT NULL CHECK (octet_length(file_sha256) = 32),
    file_bytes       bigint      NOT NULL CHECK (file_bytes > 0),
    path             text        NOT NULL,
    exported_at      timestamptz NOT NULL,
    verified_at      timestamptz NOT NULL,
    CHECK (range_upper > range_lower),
    CHECK (last_seq >= first_seq)
);
CREATE INDEX partition_exports_by_name ON partition_exports (partition_name, id);

CREATE TABLE partition_retirements (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    partition_number bigint      NOT NULL,
    partition_name   text        NOT NULL,
    range_lower      bigint      NOT NULL,
    range_upper      bigint      NOT NULL,
    action           text        NOT NULL CHECK (action IN ('detached', 'dropped')),
    export_id        bigint      NOT NULL REFERENCES partition_exports (id),
    events           bigint      NOT NULL,
    retired_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partition_retirements_by_name ON partition_retirements (partition_name, id);

-- The events of retired partitions that later partitions' exports need
-- as bridges (see `first_later_seq`): a handful of the transactions open
-- across each partition boundary. Frozen, like `events`.
CREATE TABLE event_bridges (
    position        bigint      PRIMARY KEY,
    event_id        uuid        NOT NULL UNIQUE,
    stream_id       text        NOT NULL,
    stream_version  integer     NOT NULL,
    event_type      text        NOT NULL,
    schema_version  smallint    NOT NULL,
    payload         jsonb       NOT NULL,
    metadata        jsonb       NOT NULL,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL,
    tx_id           bigint      NOT NULL
);
CREATE INDEX event_bridges_tx_order ON event_bridges (tx_id, position);
CREATE TRIGGER event_bridges_no_update_delete BEFORE UPDATE OR DELETE ON event_bridges
    FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER event_bridges_no_truncate BEFORE TRUNCATE ON event_bridges
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();
REVOKE UPDATE, DELETE, TRUNCATE ON event_bridges FROM PUBLIC;

CREATE TRIGGER partition_exports_no_update_delete BEFORE UPDATE OR DELETE ON partition_exports
    FOR EACH ROW EXECUTE FUNCTION seals_append_only();
CREATE TRIGGER partition_exports_no_truncate BEFORE TRUNCATE ON partition_exports
    FOR EACH STATEMENT EXECUTE FUNCTION seals_append_only();
CREATE TRIGGER partition_retirements_no_update_delete BEFORE UPDATE OR DELETE ON partition_retirements
    FOR EACH ROW EXECUTE FUNCTION seals_append_only();
CREATE TRIGGER partition_retirements_no_truncate BEFORE TRUNCATE ON partition_retirements
    FOR EACH STATEMENT EXECUTE FUNCTION seals_append_only();
REVOKE UPDATE, DELETE, TRUNCATE ON partition_exports, partition_retirements FROM PUBLIC;

-- The database's own guard: a table of events leaves `events` (DETACH) or
-- is dropped only when a verified export of it is recorded, whoever types
-- the command (psql included). `ledger archive events --detach|--drop`
-- checks more (the exact range, the row count, the oldest partition
-- first); this catches the slip of a hand-typed DDL. It is no defence
-- against a superuser, who may disable event triggers.
--
-- Partitions are known by their names (`events_p<lower bound>`,
-- `events_default`), the only ones pg_partman gives them.
CREATE FUNCTION events_partition_exported(name text) RETURNS boolean
    LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM partition_exports WHERE partition_name = name)
$$;

-- After an ALTER TABLE: no table of events stands outside `events` holding
-- rows without an export. Empty ones pass: pg_partman makes each new
-- partition as a table of its own and attaches it, and a table without
-- events loses nothing.
CREATE FUNCTION events_partition_guard_detach() RETURNS event_trigger
    LANGUAGE plpgsql AS $$
DECLARE
    part record;
    holds boolean;
BEGIN
    FOR part IN
        SELECT c.relname::text AS name FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND c.relkind = 'r'
           AND c.relname ~ '^events_(p[0-9]+|default)$'
           AND NOT EXISTS (SELECT 1 FROM pg_inherits i
                            WHERE i.inhrelid = c.oid AND i.inhparent = 'public.events'::regclass)
    LOOP
        CONTINUE WHEN events_partition_exported(part.name);
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM public.%I)', part.name) INTO holds;
        IF holds THEN
            RAISE EXCEPTION 'the event partition % would leave events without a verified export', part.name
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'ledger archive export-events --partition N --output FILE, then ledger archive events --partition N --detach';
        END IF;
    END LOOP;
END;
$$;

-- After a DROP: no table of events went without an export (its rows are
-- gone by now, so every one counts; pg_partman drops none: its retention
-- is off, V29).
CREATE FUNCTION events_partition_guard_drop() RETURNS event_trigger
    LANGUAGE plpgsql AS $$
DECLARE
    gone record;
BEGIN
    FOR gone IN
        SELECT object_name FROM pg_event_trigger_dropped_objects()
         WHERE object_type = 'table' AND schema_name = 'public'
           AND (object_name = 'events' OR object_name ~ '^events_(p[0-9]+|default)$')
    LOOP
        CONTINUE WHEN gone.object_name <> 'events' AND events_partition_exported(gone.object_name);
        RAISE EXCEPTION 'the event table % would be dropped without a verified export', gone.object_name
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'ledger archive export-events --partition N --output FILE, then ledger archive events --partition N --drop';
    END LOOP;
END;
$$;

-- Event triggers need a superuser. A deployment that migrates as a lesser
-- owner keeps the command's own checks and is told so.
DO $$
BEGIN
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        CREATE EVENT TRIGGER events_partition_detach_guard ON ddl_command_end
            WHEN TAG IN ('ALTER TABLE')
            EXECUTE FUNCTION events_partition_guard_detach();
        CREATE EVENT TRIGGER events_partition_drop_guard ON sql_drop
            WHEN TAG IN ('DROP TABLE')
            EXECUTE FUNCTION events_partition_guard_drop();
    ELSE
        RAISE NOTICE 'not a superuser: event partitions are guarded by ledger archive alone (no event trigger)';
    END IF;
END $$;
