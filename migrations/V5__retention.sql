-- Idempotency keys are remembered for a while, not forever (see
-- ledger::retention): the pruner finds the old ones by age.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
