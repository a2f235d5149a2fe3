-- EXPLAIN of the export's time window on a 1M-event store (docs/benchmarks.md,
-- "Events by occurred_at"): run by scripts/explain-occurred-at.
\timing off
\set q 'SELECT e.position, e.event_id, e.stream_id, e.payload FROM events e LEFT JOIN event_seals s ON s.position = e.position WHERE e.tx_id < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint) AND e.occurred_at >= timestamptz ''2026-10-15 10:00:00+00'' AND e.occurred_at < timestamptz ''2026-10-15 11:00:00+00'' ORDER BY e.tx_id, e.position'
\echo == one hour (1,385 of 1M events), BRIN on occurred_at
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) :q;
\set qd 'SELECT e.position, e.event_id, e.stream_id, e.payload FROM events e LEFT JOIN event_seals s ON s.position = e.position WHERE e.tx_id < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint) AND e.occurred_at >= timestamptz ''2026-10-15 00:00:00+00'' AND e.occurred_at < timestamptz ''2026-10-16 00:00:00+00'' ORDER BY e.tx_id, e.position'
\echo == one day (33,231 of 1M events), BRIN on occurred_at
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) :qd;
BEGIN;
DROP INDEX events_occurred_at;
\echo == one hour, no index (as before V20)
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) :q;
\echo == one day, no index
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) :qd;
CREATE INDEX events_occurred_btree ON events (occurred_at);
\echo == one hour, B-tree instead
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) :q;
ROLLBACK;
SELECT pg_size_pretty(pg_relation_size('events_occurred_at')) AS brin_size, pg_size_pretty(pg_relation_size('events')) AS table_size;
