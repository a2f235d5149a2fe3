-- Webhooks (docs/design.md §21): endpoints outside systems register, and one
-- row per event each endpoint is owed. Endpoints are configuration, not
-- ledger facts: they are not events, and replay does not rebuild them.
--
-- The signing secret is sealed as channel secrets are (secret_box: the
-- webhook id is the associated data); during a rotation's overlap the
-- previous secret signs too, until previous_valid_until.
CREATE TABLE webhooks (
    id                    uuid        PRIMARY KEY,
    url                   text        NOT NULL,
    -- '{*}' or event type names.
    event_types           text[]      NOT NULL CHECK (cardinality(event_types) > 0),
    description           text,
    enabled               boolean     NOT NULL DEFAULT true,
    retry_hours           integer     NOT NULL CHECK (retry_hours BETWEEN 1 AND 168),
    key_id                text        NOT NULL,
    nonce                 bytea       NOT NULL,
    ciphertext            bytea       NOT NULL,
    previous_key_id       text,
    previous_nonce        bytea,
    previous_ciphertext   bytea,
    previous_valid_until  timestamptz,
    -- A replay still to queue: events at positions replay_next..=replay_until.
    replay_next           bigint,
    replay_until          bigint,
    created_at            timestamptz NOT NULL,
    created_by            text        NOT NULL,
    updated_at            timestamptz NOT NULL,
    CONSTRAINT webhooks_previous_whole
        CHECK ((previous_key_id IS NULL) = (previous_ciphertext IS NULL)
           AND (previous_nonce IS NULL) = (previous_ciphertext IS NULL)
           AND (previous_valid_until IS NULL) = (previous_ciphertext IS NULL)),
    CONSTRAINT webhooks_replay_whole CHECK ((replay_next IS NULL) = (replay_until IS NULL))
);

-- One delivery per endpoint and event. A replay sets a delivered or failed
-- row back to pending rather than adding one.
CREATE TABLE webhook_deliveries (
    id               bigserial   PRIMARY KEY,
    webhook_id       uuid        NOT NULL REFERENCES webhooks ON DELETE CASCADE,
    position         bigint      NOT NULL,
    event_id         uuid        NOT NULL,
    stream_id        text        NOT NULL,
    event_type       text        NOT NULL,
    status           text        NOT NULL DEFAULT 'pending'
                                 CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         integer     NOT NULL DEFAULT 0,
    -- When the delivery (or its latest replay) was queued: the retry window's start.
    queued_at        timestamptz NOT NULL,
    next_attempt_at  timestamptz NOT NULL,
    last_attempt_at  timestamptz,
    last_status      integer,
    last_error       text,
    delivered_at     timestamptz,
    UNIQUE (webhook_id, event_id)
);
-- The sender's pick: an endpoint's pending rows by when they are due.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (webhook_id, next_attempt_at, position)
    WHERE status = 'pending';
-- Per-stream order: is an earlier event of the stream still pending?
CREATE INDEX webhook_deliveries_stream ON webhook_deliveries (webhook_id, stream_id, position)
    WHERE status = 'pending';
-- The deliveries list (newest first, by status).
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (webhook_id, status, id);

-- Where the fan-out stands in the log, in (transaction, position) order as
-- the relay reads it. It starts at the log's end: no endpoint existed before.
CREATE TABLE webhook_fanout (
    one        boolean     PRIMARY KEY DEFAULT true CHECK (one),
    tx_id      bigint      NOT NULL,
    position   bigint      NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO webhook_fanout (tx_id, position)
SELECT coalesce((SELECT tx_id FROM events ORDER BY tx_id DESC, position DESC LIMIT 1), 0),
       coalesce((SELECT position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1), 0);
