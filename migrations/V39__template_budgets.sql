-- Budgets (docs/design.md §15, "Budgets"): what a template's coupons may
-- cost in all and per business day. One row per budgeted template, guarded
-- like the quota: a lock adds to `reserved` only where what it charges fits
-- (`spent + reserved + charge <= total`, and the day's counters against
-- `daily`), in one statement. The day's counters are of `day`, the latest
-- business day a lock was charged to; a lock on a later day starts them
-- from zero. The checks below are the invariants the guard keeps.
CREATE TABLE template_budgets (
    template_sn  text           PRIMARY KEY REFERENCES templates (sn),
    total        numeric(20, 2) NOT NULL CHECK (total > 0),
    daily        numeric(20, 2) CHECK (daily > 0 AND daily <= total),
    spent        numeric(20, 2) NOT NULL DEFAULT 0 CHECK (spent >= 0),
    reserved     numeric(20, 2) NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    day          date,
    day_spent    numeric(20, 2) NOT NULL DEFAULT 0 CHECK (day_spent >= 0),
    day_reserved numeric(20, 2) NOT NULL DEFAULT 0 CHECK (day_reserved >= 0),
    CHECK (spent + reserved <= total),
    CHECK (daily IS NULL OR day_spent + day_reserved <= daily)
);

-- What a lock charged to budgets (`BudgetCharges`: its day and each
-- budgeted coupon's discount), so that its confirm, cancel, timeout and
-- refunds give back exactly that. Null: nothing was charged.
ALTER TABLE orders ADD COLUMN budget_charges jsonb;
