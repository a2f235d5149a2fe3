-- Issuance jobs: the stored status is the truth a read shows. The last
-- chunk's transaction moves its job to `done` (the first to `running`),
-- counting chunks on the job row: one short update at the end of each
-- chunk's transaction (a chunk is 1,000 lines, so a hot row only per
-- thousand coupons). Before, `running` and `done` were derived from the
-- chunks on every read, and the stored status stayed `queued`.
ALTER TABLE issuance_jobs ADD COLUMN chunks_done integer NOT NULL DEFAULT 0;
UPDATE issuance_jobs j SET chunks_done = c.n
  FROM (SELECT job_id, count(*)::int AS n FROM issuance_chunks
         WHERE done_at IS NOT NULL GROUP BY job_id) c
 WHERE c.job_id = j.id;
UPDATE issuance_jobs j
   SET status = CASE WHEN j.chunks_done = j.chunks_total THEN 'done' ELSE 'running' END,
       finished_at = CASE WHEN j.chunks_done = j.chunks_total
                          THEN (SELECT max(done_at) FROM issuance_chunks c WHERE c.job_id = j.id)
                     END
 WHERE j.status IN ('queued', 'running') AND (j.chunks_done > 0 OR j.chunks_total = 0);
-- Every ended job has its end instant: the retention counts from it.
UPDATE issuance_jobs SET finished_at = updated_at
 WHERE status IN ('cancelled', 'failed') AND finished_at IS NULL;
UPDATE package_jobs SET finished_at = created_at
 WHERE status <> 'queued' AND finished_at IS NULL;

-- Reports and exports filter events by `occurred_at`. The log is appended
-- in time order, so a BRIN index (a few pages per million events, nothing
-- to maintain per append, unlike a B-tree that would grow with the store)
-- finds a window's blocks; docs/benchmarks.md has the EXPLAIN on 1M events.
CREATE INDEX events_occurred_at ON events USING brin (occurred_at);
