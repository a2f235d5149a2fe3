-- Campaign rules (docs/design.md §15): who may claim a template, the shop
-- it belongs to, and the description apps show. They come from
-- TemplateCreated (and TemplateUpdated) and are rebuilt by replay.
ALTER TABLE templates
    ADD COLUMN eligibility jsonb,
    ADD COLUMN shop_id     text,
    ADD COLUMN description text;

-- A template's allow-list: a set of user ids (up to 10M), changed by
-- uploaded files. The events of stream `allowlist-<sn>` carry each part's
-- ids whose membership changed; `version` is that stream's, `members` the
-- set's size, both rebuilt by replay.
CREATE TABLE allow_lists (
    template_sn text    PRIMARY KEY REFERENCES templates (sn),
    version     integer NOT NULL,
    members     bigint  NOT NULL CHECK (members >= 0)
);

CREATE TABLE template_allow_list (
    template_sn text NOT NULL REFERENCES allow_lists (template_sn),
    user_id     text NOT NULL,
    PRIMARY KEY (template_sn, user_id)
);

-- Each uploaded file: what it asked for and what it did. A file is applied
-- part by part as it streams, so an upload broken off is `incomplete`
-- (what it applied stays: adding or removing the same ids again is a
-- no-op, so sending the file again finishes it).
CREATE TABLE allow_list_files (
    id           uuid        PRIMARY KEY,
    template_sn  text        NOT NULL REFERENCES templates (sn),
    mode         text        NOT NULL CHECK (mode IN ('add', 'remove')),
    status       text        NOT NULL CHECK (status IN ('uploading', 'done', 'incomplete')),
    lines_read   bigint      NOT NULL DEFAULT 0,
    blank        bigint      NOT NULL DEFAULT 0,
    invalid      bigint      NOT NULL DEFAULT 0,
    valid        bigint      NOT NULL DEFAULT 0,
    changed      bigint      NOT NULL DEFAULT 0,
    operator     text,
    -- The request's Idempotency-Key: the same key and file answer the same
    -- file; the file's SHA-256 (of its decompressed bytes) once read.
    idempotency_key text,
    sha256       bytea,
    error        text,
    created_at   timestamptz NOT NULL,
    finished_at  timestamptz,
    UNIQUE (template_sn, idempotency_key)
);
CREATE INDEX allow_list_files_by_template ON allow_list_files (template_sn, created_at DESC);

-- The first invalid lines of a file, with their 1-based number and why
-- (at most 1,000 a file: the count in allow_list_files is exact).
CREATE TABLE allow_list_errors (
    file_id uuid   NOT NULL REFERENCES allow_list_files (id) ON DELETE CASCADE,
    line    bigint NOT NULL,
    reason  text   NOT NULL,
    PRIMARY KEY (file_id, line)
);

-- Bulk issuance on an allow-listed template: lines whose user is not on
-- the list end `not_eligible` (docs/design.md §9, §15).
ALTER TABLE issuance_chunks ADD COLUMN not_eligible integer NOT NULL DEFAULT 0;
