-- A redemption's rows no longer check their code batch by foreign key
-- (docs/design.md §13, "Foreign keys on the redemption path").
--
-- A batch of redemptions writes one row per code into each of these three
-- tables; each row's foreign key ran a trigger that looked the batch up
-- again (`SELECT ... FOR KEY SHARE`): about half of an upsert's time in a
-- scratch database (59 rows), and in the redemption bench the pairs' insert
-- went from 0.83 to 0.17 ms a batch once it was gone. The only writer is the
-- redemption's transaction, which has just read the batch's row
-- (`code_batches::current`), and no code batch is ever deleted, so the
-- keys guarded a case that cannot happen.
ALTER TABLE code_uses DROP CONSTRAINT code_uses_batch_id_fkey;
ALTER TABLE code_redemptions DROP CONSTRAINT code_redemptions_batch_id_fkey;
ALTER TABLE code_batch_users DROP CONSTRAINT code_batch_users_batch_id_fkey;
