-- Claims of large packages (docs/design.md §13): a package of more than 100 coupons
-- is claimed by the issuance worker, not in the request. The request
-- records the job and answers 202; the worker runs the claim in one
-- transaction with its inbox row and records here what became of it. The
-- claim's own effects are its events and the write-model tables, as for a
-- claim answered at once: this table only tells the caller.
CREATE TABLE package_jobs (
    id             uuid        PRIMARY KEY,
    package_sn     text        NOT NULL REFERENCES packages (sn),
    user_id        text        NOT NULL,
    -- The redemption code that asked, for a package's code.
    code_batch_id  uuid        REFERENCES code_batches (id),
    code_serial    bigint,
    -- The channel that asked (a signed request); NULL for the service.
    channel_id     uuid,
    -- The request's metadata, given to the claim's events (as the
    -- synchronous path gives its own).
    metadata       jsonb       NOT NULL,
    status         text        NOT NULL
                   CHECK (status IN ('queued', 'done', 'refused', 'failed')),
    -- refused: the HTTP status, code and message the synchronous path
    -- answers; failed: the 503 the request answered.
    error_status   smallint,
    error_code     text,
    error_message  text,
    -- done: the coupons, in the package's item order.
    coupon_ids     uuid[]      NOT NULL DEFAULT '{}',
    created_at     timestamptz NOT NULL,
    finished_at    timestamptz,
    CHECK ((code_batch_id IS NULL) = (code_serial IS NULL)),
    CHECK ((status IN ('refused', 'failed')) = (error_code IS NOT NULL)),
    CHECK ((status = 'queued') = (finished_at IS NULL))
);
CREATE INDEX package_jobs_package ON package_jobs (package_sn, created_at DESC);
