-- Passphrase codes (口令, docs/design.md §20): a batch of one code chosen by
-- hand. `passphrase` is what the operator typed (shown in lists),
-- `passphrase_key` what users' input is matched on (NFKC, lower case,
-- no spaces or dashes: `codes/passphrase.rs`). Generated batches have
-- neither.
ALTER TABLE code_batches
    ADD COLUMN passphrase     text,
    ADD COLUMN passphrase_key text,
    ADD CHECK ((passphrase IS NULL) = (passphrase_key IS NULL));

-- At most one active batch holds a passphrase: creating a second is 409
-- `code_taken` (a stopped one frees it; an expired one is stopped when a
-- new batch asks for its passphrase). Also the redemption's lookup.
CREATE UNIQUE INDEX code_batches_passphrase ON code_batches (passphrase_key)
    WHERE status = 'active' AND passphrase_key IS NOT NULL;
-- A redemption of a stopped batch's passphrase finds it too (to answer 422).
CREATE INDEX code_batches_passphrase_any ON code_batches (passphrase_key, created_at)
    WHERE passphrase_key IS NOT NULL;
