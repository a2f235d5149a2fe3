-- Coupon packages (券包, docs/design.md §13): several coupons at once, claimed
-- online by the package's sn (signed by a channel) or offline by a code of
-- one of the package's code batches. `claimed` is guarded by `total`, each
-- user's count by `per_user_limit`; the items' templates keep their own
-- quota and per-user guards.
CREATE TABLE packages (
    sn             text        PRIMARY KEY,
    name           text        NOT NULL,
    -- [{"template_sn": ..., "count": n}, ...] in the order they are issued.
    items          jsonb       NOT NULL,
    total          bigint      NOT NULL CHECK (total >= 1),
    claimed        bigint      NOT NULL DEFAULT 0 CHECK (claimed >= 0 AND claimed <= total),
    per_user_limit integer     NOT NULL CHECK (per_user_limit >= 1),
    issue_begin    timestamptz NOT NULL,
    issue_end      timestamptz NOT NULL CHECK (issue_end > issue_begin),
    status         text        NOT NULL CHECK (status IN ('draft', 'active', 'stopped')),
    version        integer     NOT NULL,
    created_at     timestamptz NOT NULL
);

CREATE TABLE package_claims (
    package_sn text    NOT NULL REFERENCES packages (sn),
    user_id    text    NOT NULL,
    claimed    integer NOT NULL CHECK (claimed >= 1),
    PRIMARY KEY (package_sn, user_id)
);

-- A code batch gives a template's coupon or a package's coupons.
ALTER TABLE code_batches ALTER COLUMN template_sn DROP NOT NULL;
ALTER TABLE code_batches ADD COLUMN package_sn text REFERENCES packages (sn);
ALTER TABLE code_batches ADD CHECK ((template_sn IS NULL) <> (package_sn IS NULL));
