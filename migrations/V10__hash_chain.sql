-- The hash chain (docs/design.md §11). The sealer reads events in the store's
-- commit-safe order and gives each one a SHA-256 link over the previous
-- link and the event's fields (ledger/src/audit/chain.rs). `seq` is the
-- chain's own order: 1, 2, 3, ... with no gaps.
CREATE TABLE event_seals (
    seq      bigint PRIMARY KEY CHECK (seq >= 1),
    position bigint NOT NULL UNIQUE,
    tx_id    bigint NOT NULL,
    hash     bytea  NOT NULL CHECK (octet_length(hash) = 32)
);

-- Every N events or T seconds: the chain's head at `last_seq`, the seqs and
-- the positions it covers since the checkpoint before, and the chain's
-- length. `ledger audit checkpoints` prints each as one line for finance
-- to keep outside the database.
CREATE TABLE seal_checkpoints (
    id           bigint      PRIMARY KEY CHECK (id >= 1),
    first_seq    bigint      NOT NULL,
    last_seq     bigint      NOT NULL UNIQUE REFERENCES event_seals (seq),
    min_position bigint      NOT NULL,
    max_position bigint      NOT NULL,
    head         bytea       NOT NULL CHECK (octet_length(head) = 32),
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- Append-only, like events.
CREATE FUNCTION seals_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER event_seals_no_update_delete BEFORE UPDATE OR DELETE ON event_seals
    FOR EACH ROW EXECUTE FUNCTION seals_append_only();
CREATE TRIGGER event_seals_no_truncate BEFORE TRUNCATE ON event_seals
    FOR EACH STATEMENT EXECUTE FUNCTION seals_append_only();
CREATE TRIGGER seal_checkpoints_no_update_delete BEFORE UPDATE OR DELETE ON seal_checkpoints
    FOR EACH ROW EXECUTE FUNCTION seals_append_only();
CREATE TRIGGER seal_checkpoints_no_truncate BEFORE TRUNCATE ON seal_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION seals_append_only();
REVOKE UPDATE, DELETE, TRUNCATE ON event_seals, seal_checkpoints FROM PUBLIC;
