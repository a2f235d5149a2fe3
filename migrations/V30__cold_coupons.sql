-- Hot and cold coupons (docs/design.md §16, "Hot and cold coupons").
--
-- `coupons` keeps the live coupons and the recently ended ones; a terminal
-- coupon (used, refunded, expired, void) whose last change is older than
-- LEDGER_ARCHIVE_AFTER_DAYS moves to `coupons_archive` (the archiver, in
-- bounded batches). Claims, quotes, locks, wallets and the scanner read
-- `coupons` only; a read by id, a job's report, a template's history and
-- replay read both.
--
-- `changed_at`: when the coupon last changed (the time of its last event).
-- Rows written before this migration have none: for them the archiver
-- takes `expires_at`, never earlier than a terminal coupon's last change
-- except for one voided or used before its expiry, which then waits until
-- it would have expired. Adding a column without a default rewrites
-- nothing; the partial index is the migration's only cost (seconds per
-- million ended coupons, writes to coupons wait meanwhile).

ALTER TABLE coupons ADD COLUMN changed_at timestamptz;

CREATE INDEX coupons_ended ON coupons ((coalesce(changed_at, expires_at)))
    WHERE status IN ('used', 'refunded', 'expired', 'void');

-- Same columns as `coupons` in the same order, plus when it moved.
CREATE TABLE coupons_archive (
    id           uuid        PRIMARY KEY,
    template_sn  text        NOT NULL,
    user_id      text        NOT NULL,
    status       text        NOT NULL,
    issued_at    timestamptz NOT NULL,
    effective_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    channel_id   uuid,
    refund_from  uuid,
    order_id     text,
    version      integer     NOT NULL,
    job_id       uuid,
    job_line     bigint,
    changed_at   timestamptz,
    archived_at  timestamptz NOT NULL DEFAULT now()
);
-- A wallet with ?include_archived=true, a job's report, a template's
-- history, and the purge (oldest first).
CREATE INDEX coupons_archive_user ON coupons_archive (user_id, issued_at, id);
CREATE INDEX coupons_archive_job ON coupons_archive (job_id, job_line) WHERE job_id IS NOT NULL;
CREATE INDEX coupons_archive_template ON coupons_archive (template_sn, status, issued_at);
CREATE INDEX coupons_archive_ended ON coupons_archive ((coalesce(changed_at, expires_at)));

-- Every purge (物理删除 of cold rows): replay --verify takes the latest
-- `purged_before` as the horizon before which an ended coupon may have no
-- row at all.
CREATE TABLE coupon_purges (
    id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    purged_before timestamptz NOT NULL,
    coupons       bigint      NOT NULL,
    operator      text        NOT NULL,
    purged_at     timestamptz NOT NULL DEFAULT now()
);
