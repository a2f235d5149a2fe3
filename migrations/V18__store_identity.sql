-- The store's identity (docs/design.md §5, "one ledger per vhost"): made once, at
-- the first migration of a database, and carried by every message the
-- ledger publishes (header `store_id`). Consumers refuse messages of
-- another store, and the processes of two stores cannot run on one
-- RabbitMQ vhost at once (messaging/store_guard.rs).
CREATE TABLE store_identity (
    only_row   boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    store_id   uuid        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO store_identity (store_id) VALUES (gen_random_uuid());

-- Events the relay sent to the public exchange with no subscriber bound
-- (returned as unroutable: expected, counted, never logged one by one).
ALTER TABLE relay_cursors ADD COLUMN unroutable bigint NOT NULL DEFAULT 0;
