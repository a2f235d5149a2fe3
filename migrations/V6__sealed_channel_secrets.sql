-- Channel secrets sealed at rest (ChaCha20-Poly1305, associated data = the
-- channel id) under the key named by key_id, from LEDGER_SECRET_KEY.
-- SQL cannot know the key: rows from before this migration keep their
-- plaintext `secret` until `ledger serve` starts with the key set, which seals
-- every such row and clears `secret` in one transaction (it also re-seals rows
-- under an old key with the current one). A row holds one form, never both.
ALTER TABLE channel_secrets
    ALTER COLUMN secret DROP NOT NULL,
    ADD COLUMN key_id     text,
    ADD COLUMN nonce      bytea,
    ADD COLUMN ciphertext bytea,
    ADD CONSTRAINT channel_secrets_sealed_whole
        CHECK ((key_id IS NULL) = (nonce IS NULL) AND (nonce IS NULL) = (ciphertext IS NULL)),
    ADD CONSTRAINT channel_secrets_one_form
        CHECK ((secret IS NULL) <> (ciphertext IS NULL));
