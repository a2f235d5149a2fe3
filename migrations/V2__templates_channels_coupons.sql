-- Write model for templates, channels and coupons. Every table here except
-- channel_secrets and channel_nonces is reproducible by replaying `events`.

CREATE TABLE templates (
    sn                 text        PRIMARY KEY,
    name               text        NOT NULL,
    kind               text        NOT NULL,
    currency           text        NOT NULL,
    -- The validated pricing terms in their canonical raw form (immutable).
    terms              jsonb       NOT NULL,
    face_value         numeric(20, 2) NOT NULL,
    issue_begin        timestamptz NOT NULL,
    issue_end          timestamptz NOT NULL,
    total              bigint      NOT NULL CHECK (total >= 0),
    issued             bigint      NOT NULL DEFAULT 0 CHECK (issued >= 0),
    per_user_limit     integer     NOT NULL CHECK (per_user_limit >= 1),
    refund_policy      text        NOT NULL,
    remind_days_before integer,
    status             text        NOT NULL,
    version            integer     NOT NULL,
    created_at         timestamptz NOT NULL,
    -- The quota guard's last line of defence.
    CHECK (issued <= total)
);

CREATE TABLE channels (
    id         uuid        PRIMARY KEY,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL
);

-- Credentials are not ledger state: they never enter the event log, which
-- analytics subscribe to.
CREATE TABLE channel_secrets (
    channel_id uuid PRIMARY KEY REFERENCES channels (id),
    secret     text NOT NULL
);

-- Nonces of signed channel requests, single-use. Redis refuses most replays
-- first; this table is the guard that survives Redis being down or flushed.
CREATE TABLE channel_nonces (
    channel_id uuid        NOT NULL,
    nonce      text        NOT NULL,
    seen_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (channel_id, nonce)
);
CREATE INDEX channel_nonces_seen ON channel_nonces (seen_at);

CREATE TABLE template_channels (
    template_sn text NOT NULL REFERENCES templates (sn),
    channel_id  uuid NOT NULL REFERENCES channels (id),
    PRIMARY KEY (template_sn, channel_id)
);

-- Per-user claim counts, guarded by `claimed < per_user_limit` in SQL.
CREATE TABLE user_claims (
    template_sn text    NOT NULL,
    user_id     text    NOT NULL,
    claimed     integer NOT NULL CHECK (claimed >= 0),
    PRIMARY KEY (template_sn, user_id)
);

CREATE TABLE coupons (
    id           uuid        PRIMARY KEY,
    template_sn  text        NOT NULL REFERENCES templates (sn),
    user_id      text        NOT NULL,
    status       text        NOT NULL,
    issued_at    timestamptz NOT NULL,
    effective_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    channel_id   uuid,
    refund_from  uuid,
    order_id     text,
    version      integer     NOT NULL
);
CREATE INDEX coupons_user ON coupons (user_id, issued_at, id);
CREATE INDEX coupons_template ON coupons (template_sn, status);
CREATE INDEX coupons_unused_expiry ON coupons (expires_at) WHERE status = 'unused';
