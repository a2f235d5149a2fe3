-- Voiding a template voids its unused coupons in batches (docs/design.md
-- §15); each coupon's CouponVoided names the template's void event as its
-- cause and shares its correlation id. A template voided before this
-- migration has none: its coupons are voided without a cause.
ALTER TABLE templates
    ADD COLUMN void_event_id uuid,
    ADD COLUMN void_correlation_id text;
