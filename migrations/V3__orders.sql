-- Orders at checkout (TCC) and their refunds. Reproducible from the
-- `order-<id>` streams.

CREATE TABLE orders (
    order_id        text        PRIMARY KEY,
    user_id         text,
    -- locked | confirmed | cancelled | released (lock timed out)
    -- | cancelled_before_lock (an empty rollback: a later lock is refused)
    status          text        NOT NULL,
    -- The lock request's hash and answer: the same request is answered again.
    request_hash    bytea,
    lock_response   jsonb,
    -- The order as locked and its allocations, for confirm and refunds.
    order_body      jsonb,
    allocations     jsonb,
    coupon_ids      uuid[]      NOT NULL DEFAULT '{}',
    lock_expires_at timestamptz,
    version         integer     NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX orders_lock_expiry ON orders (lock_expires_at) WHERE status = 'locked';

CREATE TABLE refunds (
    order_id     text        NOT NULL REFERENCES orders (order_id),
    refund_id    text        NOT NULL,
    seq          integer     NOT NULL,
    request_hash bytea       NOT NULL,
    -- The pricing engine's Refund, needed by every later refund of the order.
    refund       jsonb       NOT NULL,
    response     jsonb       NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (order_id, refund_id),
    UNIQUE (order_id, seq)
);
