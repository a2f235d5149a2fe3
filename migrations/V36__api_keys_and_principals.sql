-- App keys (docs/design.md §19): one row per key, rebuilt by replay from
-- its `apikey-<id>` stream. Only SHA-256 digests of keys are kept: the
-- current one, and the one a rotation replaced until the overlap ends.
-- `last_used_at` is operational (written at most once a minute per key and
-- process), not replayed.
CREATE TABLE api_keys (
    id                   uuid        PRIMARY KEY,
    name                 text        NOT NULL,
    scopes               text[]      NOT NULL,
    created_at           timestamptz NOT NULL,
    digest               bytea       NOT NULL UNIQUE,
    previous_digest      bytea       UNIQUE,
    previous_valid_until timestamptz,
    revoked_at           timestamptz,
    last_used_at         timestamptz,
    -- The key's own request rate (a token bucket per process); null: none.
    rate_per_second      integer     CHECK (rate_per_second >= 1),
    rate_burst           integer     CHECK (rate_burst >= 1),
    version              integer     NOT NULL,
    CHECK ((rate_per_second IS NULL) = (rate_burst IS NULL))
);

-- A name names one live key; a revoked key's name may be given again.
CREATE UNIQUE INDEX api_keys_live_name ON api_keys (name) WHERE revoked_at IS NULL;

-- Who did what (GET /v1/audit/actions): the events of operators' and
-- apps' requests, by position. Bulk work (a job's coupons, expiries) is
-- not in it, so the index stays a fraction of the log.
CREATE INDEX events_by_principal ON events (position)
    WHERE metadata->>'actor' IN ('admin', 'service');
