-- A channel's templates (GET /v1/users/{uid}/claimable?channel_id=): the
-- primary key leads with the template, so listing by channel would read
-- every template's channels (docs/design.md §15).
CREATE INDEX template_channels_by_channel ON template_channels (channel_id, template_sn);
