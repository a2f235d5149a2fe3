-- Each `ledger audit verify` run and its verdict, for the console's audit
-- status (docs/design.md §14). A record of runs, not evidence: the chain and the
-- heads finance keeps outside are the evidence, and a verify can be run
-- again at any time.
CREATE TABLE audit_verifications (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at      timestamptz NOT NULL,
    finished_at     timestamptz NOT NULL,
    from_checkpoint bigint,
    expected_head   boolean     NOT NULL,
    intact          boolean     NOT NULL,
    events          bigint      NOT NULL CHECK (events >= 0),
    head            bytea       CHECK (octet_length(head) = 32),
    finding         text,
    CHECK (intact = (finding IS NULL))
);
