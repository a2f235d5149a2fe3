-- Liability snapshots: what `ledger report liability` would say of every
-- event up to a seal checkpoint, per template, channel and issue day (in the
-- business time zone `tz`), so an as-of report folds only the events after
-- the snapshot. Derived data, rebuilt from the events at will
-- (`--from-start` ignores them); the events stay the only truth.
CREATE TABLE liability_snapshots (
    tz              text        NOT NULL,
    checkpoint_id   bigint      NOT NULL REFERENCES seal_checkpoints (id),
    -- Of the events the checkpoint covers since the one before (NULL: none):
    -- a report as of an earlier instant skips them.
    min_occurred_at timestamptz,
    -- Of every event up to the checkpoint: the snapshot serves reports as
    -- of this instant or later.
    max_occurred_at timestamptz,
    events          bigint      NOT NULL,
    built_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tz, checkpoint_id)
);

CREATE TABLE liability_snapshot_rows (
    tz            text           NOT NULL,
    checkpoint_id bigint         NOT NULL,
    template_sn   text           NOT NULL,
    channel_id    uuid,
    day           date           NOT NULL,
    issued        bigint         NOT NULL,
    unused        bigint         NOT NULL,
    locked        bigint         NOT NULL,
    used          bigint         NOT NULL,
    refunded      bigint         NOT NULL,
    expired       bigint         NOT NULL,
    voided        bigint         NOT NULL,
    outstanding   numeric(20, 2) NOT NULL,
    cost          numeric(20, 2) NOT NULL,
    FOREIGN KEY (tz, checkpoint_id) REFERENCES liability_snapshots (tz, checkpoint_id)
);

CREATE INDEX liability_snapshot_rows_of ON liability_snapshot_rows (tz, checkpoint_id);
