-- Claim rate limits of a template (docs/design.md §12): the API's `rate_limit`
-- object as it is validated (`domain::rate_limit::RateLimit`), per channel
-- and per user token buckets. NULL: no limit. jsonb rather than columns so a
-- bucket may be absent and the flash-sale code reads one value per template.
ALTER TABLE templates ADD COLUMN rate_limit jsonb;
