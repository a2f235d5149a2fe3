-- A queued package claim keeps what its caller vouched for about the user
-- (tags, region, new user), so the worker applies the item templates'
-- eligibility as the request would have (docs/design.md §15). Jobs queued
-- before have none: no fact, as for a caller that sends none.
ALTER TABLE package_jobs ADD COLUMN user_facts jsonb;
