-- GET /v1/templates lists newest first, paged, optionally by status.
CREATE INDEX templates_created ON templates (created_at DESC, sn DESC);
