-- The append-only event store (docs/design.md §4, contract: finance queries it).
CREATE TABLE events (
    position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        uuid        NOT NULL UNIQUE,
    stream_id       text        NOT NULL,
    stream_version  integer     NOT NULL CHECK (stream_version >= 1),
    event_type      text        NOT NULL,
    schema_version  smallint    NOT NULL CHECK (schema_version >= 1),
    payload         jsonb       NOT NULL,
    metadata        jsonb       NOT NULL DEFAULT '{}'::jsonb,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    -- The writing transaction's id. Positions come from a sequence and commit out
    -- of order; readers order by (tx_id, position) and only read transactions
    -- older than every one still running, so a late commit is never skipped and a
    -- rollback never stalls them.
    tx_id           bigint      NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    UNIQUE (stream_id, stream_version)
);

CREATE INDEX events_tx_order ON events (tx_id, position);
CREATE INDEX events_type ON events (event_type, position);

-- Append-only in the database itself, for every role (superusers included:
-- triggers fire for them too).
CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER events_no_update_delete
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();

CREATE TRIGGER events_no_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();

REVOKE UPDATE, DELETE, TRUNCATE ON events FROM PUBLIC;

-- Idempotency keys for commands: claimed by INSERT inside the command's transaction.
CREATE TABLE idempotency_keys (
    scope           text        NOT NULL,
    key             text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response_status smallint,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);

-- Inbox for message consumers: a redelivered message is a no-op.
CREATE TABLE inbox (
    consumer     text        NOT NULL,
    message_id   text        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, message_id)
);
