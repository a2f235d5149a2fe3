-- Queued package jobs, oldest first: what the scanner re-publishes when a
-- job's message was never sent (the API stopped between recording the job
-- and publishing it). Few rows are ever queued at once.
CREATE INDEX package_jobs_queued ON package_jobs (created_at) WHERE status = 'queued';
