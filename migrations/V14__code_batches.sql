-- Redemption codes (docs/design.md §13). A code is computed from its batch's key and
-- a serial (ledger/src/codes): nothing is stored per code but what its
-- redemptions changed. Each key id has one serial counter; a batch takes a
-- contiguous range [first_serial, first_serial + count) of it, so no two
-- batches share a serial and (the cipher being a permutation) a code.
CREATE TABLE code_serials (
    key_id      text   PRIMARY KEY,
    next_serial bigint NOT NULL CHECK (next_serial >= 0 AND next_serial <= 2147483648)
);

CREATE TABLE code_batches (
    id            uuid        PRIMARY KEY,
    template_sn   text        NOT NULL REFERENCES templates (sn),
    key_id        text        NOT NULL,
    first_serial  bigint      NOT NULL CHECK (first_serial >= 0),
    count         bigint      NOT NULL CHECK (count >= 1),
    uses_per_code integer     NOT NULL CHECK (uses_per_code >= 1),
    per_user      integer     NOT NULL CHECK (per_user >= 1),
    status        text        NOT NULL CHECK (status IN ('active', 'stopped')),
    expires_at    timestamptz,
    version       integer     NOT NULL,
    created_at    timestamptz NOT NULL,
    CHECK (first_serial + count <= 2147483648)
);
CREATE UNIQUE INDEX code_batches_serials ON code_batches (key_id, first_serial);

-- Uses of each code redeemed at least once; guarded by uses <= uses_per_code.
CREATE TABLE code_uses (
    batch_id uuid    NOT NULL REFERENCES code_batches (id),
    serial   bigint  NOT NULL,
    uses     integer NOT NULL CHECK (uses >= 1),
    PRIMARY KEY (batch_id, serial)
);

-- Who redeemed which code: once per user and code, and per batch at most
-- the batch's per_user codes (counted in code_batch_users).
CREATE TABLE code_redemptions (
    batch_id    uuid        NOT NULL REFERENCES code_batches (id),
    serial      bigint      NOT NULL,
    user_id     text        NOT NULL,
    coupon_ids  uuid[]      NOT NULL,
    redeemed_at timestamptz NOT NULL,
    PRIMARY KEY (batch_id, serial, user_id)
);

CREATE TABLE code_batch_users (
    batch_id uuid    NOT NULL REFERENCES code_batches (id),
    user_id  text    NOT NULL,
    redeemed integer NOT NULL CHECK (redeemed >= 1),
    PRIMARY KEY (batch_id, user_id)
);
