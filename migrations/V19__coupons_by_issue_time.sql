-- A template's history (GET /v1/templates/{sn}/history) counts its coupons
-- by issue time and status. This index replaces coupons_template
-- (template_sn, status), which is its prefix and so serves every query that
-- one did, with issued_at after them: a range of issue times is then read
-- with one descent per status, not by walking all of the template's
-- coupons. Same number of indexes on coupons: bulk issuance and status
-- changes write no more index entries than before.
--
-- Building it blocks writes to coupons for as long as it takes (minutes on
-- tens of millions of rows). IF NOT EXISTS lets an operator build it first
-- with CREATE INDEX CONCURRENTLY (docs/operations.md), without the block.
CREATE INDEX IF NOT EXISTS coupons_template_status_issued
    ON coupons (template_sn, status, issued_at);
DROP INDEX IF EXISTS coupons_template;
