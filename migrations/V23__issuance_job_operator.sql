-- The operator who opened an issuance job (docs/design.md §7 "Operators"):
-- the coupons its chunks issue name them in their events' metadata. Null
-- for jobs opened before operators had names.
ALTER TABLE issuance_jobs ADD COLUMN operator text;
