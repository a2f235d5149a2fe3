-- Bulk issuance (docs/design.md §9): jobs, their chunks, and the lines that got no
-- coupon. Lines that got one are the coupons themselves (job_id, job_line),
-- so a 10M-line job writes no second row per issued line.

CREATE TABLE issuance_jobs (
    id              uuid        PRIMARY KEY,
    template_sn     text        NOT NULL REFERENCES templates (sn),
    -- The Idempotency-Key that names the job (a fresh uuid when none was given).
    job_key         text        NOT NULL UNIQUE,
    format          text        NOT NULL,
    status          text        NOT NULL,
    -- SHA-256 of the whole (decompressed) file, once it was read to the end.
    file_sha256     bytea,
    bytes_read      bigint      NOT NULL DEFAULT 0,
    lines_read      bigint      NOT NULL DEFAULT 0,
    blank           bigint      NOT NULL DEFAULT 0,
    invalid         bigint      NOT NULL DEFAULT 0,
    valid           bigint      NOT NULL DEFAULT 0,
    -- Known once the upload ended; the chunks' outcomes are summed from
    -- issuance_chunks (no hot job row for concurrent chunk transactions).
    chunks_total    integer,
    error           text,
    created_at      timestamptz NOT NULL,
    -- The upload's last sign of life: an `uploading` job silent for long
    -- broke off (`incomplete`).
    updated_at      timestamptz NOT NULL,
    started_at      timestamptz,
    finished_at     timestamptz
);
CREATE INDEX issuance_jobs_template ON issuance_jobs (template_sn, created_at DESC);
CREATE INDEX issuance_jobs_status ON issuance_jobs (status, created_at DESC);

-- One row per chunk published; `digest` (SHA-256 of its lines) proves a
-- resumed upload is the same file.
CREATE TABLE issuance_chunks (
    job_id     uuid        NOT NULL REFERENCES issuance_jobs (id),
    chunk_no   integer     NOT NULL,
    lines      integer     NOT NULL,
    first_line bigint      NOT NULL,
    last_line  bigint      NOT NULL,
    digest     bytea       NOT NULL,
    -- Set once the broker confirmed the chunk's message.
    published_at timestamptz,
    -- Set by the issuance worker in the chunk's own transaction.
    done_at    timestamptz,
    issued     integer     NOT NULL DEFAULT 0,
    over_limit integer     NOT NULL DEFAULT 0,
    sold_out   integer     NOT NULL DEFAULT 0,
    cancelled  integer     NOT NULL DEFAULT 0,
    -- How long the chunk's transaction took, up to its commit.
    duration_ms double precision,
    PRIMARY KEY (job_id, chunk_no)
);

-- Every line of a job that got no coupon, with its outcome and reason.
CREATE TABLE issuance_lines (
    job_id  uuid   NOT NULL,
    line    bigint NOT NULL,
    user_id text   NOT NULL,
    outcome text   NOT NULL,
    reason  text,
    PRIMARY KEY (job_id, line)
);

ALTER TABLE coupons ADD COLUMN job_id uuid, ADD COLUMN job_line bigint;
CREATE INDEX coupons_job ON coupons (job_id, job_line) WHERE job_id IS NOT NULL;
