-- The database-kept keys (migration V35, docs/design.md §16) against the
-- store's own writes of them as before V35, on 100,000 fresh-stream
-- CouponIssued-sized events, by SQL on a migrated store:
--   createdb -h 127.0.0.1 -U postgres keys_bench
--   DATABASE_URL=postgres://postgres@127.0.0.1:5432/keys_bench target/release/ledger migrate
--   psql -h 127.0.0.1 -U postgres -d keys_bench -f ops/bench/store_keys.sql
-- OLD: the trigger off, the events then their ids then their streams, as
-- the store wrote them; TRIGGER: the events alone, the trigger writing the
-- keys (then again with a larger work_mem for the transition table).
-- Each round adds 300,000 events: compare within a round.
\timing on
CREATE TEMP TABLE src AS SELECT gen_random_uuid() AS id, 'coupon-' || gen_random_uuid() AS s,
  jsonb_build_object('coupon_id', gen_random_uuid(), 'template_sn', 'ABCDEFGH12345678', 'user_id', 'user-' || g, 'issued_at', now(), 'effective_at', now(), 'expires_at', now(), 'channel_id', null, 'job_id', gen_random_uuid(), 'line', g) AS p
  FROM generate_series(1, 100000) g;
\echo OLD
ALTER TABLE events DISABLE TRIGGER events_keys;
BEGIN;
CREATE TEMP TABLE pos AS SELECT id, s, p, nextval('events_position_seq') AS position FROM src;
INSERT INTO events (position, event_id, stream_id, stream_version, event_type, schema_version, payload, metadata, occurred_at)
  SELECT position, id, s, 1, 'CouponIssued', 1, p, '{"actor":"x"}', now() FROM pos;
INSERT INTO event_ids SELECT id, position FROM pos;
INSERT INTO streams SELECT s, 1, pg_current_xact_id()::text::bigint, position FROM pos;
COMMIT;
DROP TABLE pos;
UPDATE src SET id = gen_random_uuid(), s = 'coupon-' || gen_random_uuid();
\echo TRIGGER
ALTER TABLE events ENABLE TRIGGER events_keys;
BEGIN;
CREATE TEMP TABLE pos AS SELECT id, s, p, nextval('events_position_seq') AS position FROM src;
INSERT INTO events (position, event_id, stream_id, stream_version, event_type, schema_version, payload, metadata, occurred_at)
  SELECT position, id, s, 1, 'CouponIssued', 1, p, '{"actor":"x"}', now() FROM pos;
COMMIT;
DROP TABLE pos;
UPDATE src SET id = gen_random_uuid(), s = 'coupon-' || gen_random_uuid();
\echo TRIGGER_256MB
SET work_mem = '256MB';
BEGIN;
CREATE TEMP TABLE pos AS SELECT id, s, p, nextval('events_position_seq') AS position FROM src;
INSERT INTO events (position, event_id, stream_id, stream_version, event_type, schema_version, payload, metadata, occurred_at)
  SELECT position, id, s, 1, 'CouponIssued', 1, p, '{"actor":"x"}', now() FROM pos;
COMMIT;
