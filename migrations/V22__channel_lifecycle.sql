-- Channel lifecycle (docs/design.md §15): a channel can be disabled and
-- enabled, and its secret rotated with an overlap. Everything added to
-- `channels` is rebuilt by replay from ChannelCreated, ChannelDisabled,
-- ChannelEnabled and ChannelSecretRotated; `version` is the channel
-- stream's, for the next append (every stream so far holds only its
-- ChannelCreated).
ALTER TABLE channels
    ADD COLUMN status            text        NOT NULL DEFAULT 'active',
    ADD COLUMN secret_created_at timestamptz,
    ADD COLUMN previous_secret_valid_until timestamptz,
    ADD COLUMN version           integer     NOT NULL DEFAULT 1,
    ADD CONSTRAINT channels_status CHECK (status IN ('active', 'disabled'));
UPDATE channels SET secret_created_at = created_at;
ALTER TABLE channels ALTER COLUMN secret_created_at SET NOT NULL;

-- The secret a rotation replaced, sealed as the current one is (same key
-- ring, associated data = the channel id): it still verifies signatures
-- until `channels.previous_secret_valid_until`. Only the latest previous
-- secret is kept; credentials never enter the event log.
ALTER TABLE channel_secrets
    ADD COLUMN previous_key_id     text,
    ADD COLUMN previous_nonce      bytea,
    ADD COLUMN previous_ciphertext bytea,
    ADD CONSTRAINT channel_secrets_previous_whole
        CHECK ((previous_key_id IS NULL) = (previous_nonce IS NULL)
           AND (previous_nonce IS NULL) = (previous_ciphertext IS NULL));
