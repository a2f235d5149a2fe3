-- Relay cursors, projections and the stream-consistent read order (issue 6).

-- Readers order events by (tx_id, position). A transaction can take its xid
-- (at its first write, e.g. an idempotency key) before the transaction that
-- wrote the previous event of a stream it then appends to: ordering by the
-- raw xid would put version N+1 before version N. So an event's tx_id is the
-- larger of its own xid and the previous event's tx_id. It never falls below
-- the writer's xid, which is all the reader's horizon needs: a row is only
-- read once every transaction older than the horizon has finished.
CREATE FUNCTION events_stream_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.tx_id := GREATEST(NEW.tx_id, coalesce(
        (SELECT tx_id FROM events
          WHERE stream_id = NEW.stream_id AND stream_version = NEW.stream_version - 1),
        0));
    RETURN NEW;
END;
$$;

-- Version 1 has no predecessor: bulk COPYs of new streams skip the trigger.
CREATE TRIGGER events_stream_order
    BEFORE INSERT ON events
    FOR EACH ROW WHEN (NEW.stream_version > 1)
    EXECUTE FUNCTION events_stream_order();

-- Where each relay stands (one row per relay name).
CREATE TABLE relay_cursors (
    name       text        PRIMARY KEY,
    tx_id      bigint      NOT NULL,
    position   bigint      NOT NULL,
    published  bigint      NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Per projection: the last event applied (the position it reflects).
CREATE TABLE projection_positions (
    projection text        PRIMARY KEY,
    position   bigint      NOT NULL,
    applied    bigint      NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Per projection and coupon: what the projection knows of it, so a change
-- moves the coupon from one bucket to another; `version` detects gaps.
CREATE TABLE projection_coupons (
    projection      text           NOT NULL,
    coupon_id       uuid           NOT NULL,
    user_id         text           NOT NULL,
    template_sn     text           NOT NULL,
    face_value      numeric(20, 2) NOT NULL,
    status          text           NOT NULL,
    version         integer        NOT NULL,
    -- What the coupon takes off the order holding it (from OrderLocked).
    locked_discount numeric(20, 2) NOT NULL DEFAULT 0,
    PRIMARY KEY (projection, coupon_id)
);

-- Per projection and non-coupon stream (orders): the last version applied.
CREATE TABLE projection_streams (
    projection text    NOT NULL,
    stream_id  text    NOT NULL,
    version    integer NOT NULL,
    PRIMARY KEY (projection, stream_id)
);

-- Projection `balances`: per user and coupon status, count and face value.
CREATE TABLE balances (
    user_id    text           NOT NULL,
    status     text           NOT NULL,
    count      bigint         NOT NULL,
    face_value numeric(20, 2) NOT NULL,
    PRIMARY KEY (user_id, status)
);

-- Projection `template_stats`: per template and coupon status, count and
-- face value; plus what was issued and what the coupons cost.
CREATE TABLE template_stats (
    template_sn text           NOT NULL,
    status      text           NOT NULL,
    count       bigint         NOT NULL,
    face_value  numeric(20, 2) NOT NULL,
    PRIMARY KEY (template_sn, status)
);

CREATE TABLE template_totals (
    template_sn text           PRIMARY KEY,
    issued      bigint         NOT NULL,
    -- Discounts of used coupons, net of refund reversals.
    cost        numeric(20, 2) NOT NULL
);

-- Consumers prune the inbox by age.
CREATE INDEX inbox_processed ON inbox (processed_at);
