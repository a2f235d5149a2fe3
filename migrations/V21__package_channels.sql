-- The channels that may give a package out (docs/design.md §6, §13), as
-- template_channels lists a template's: a signed claim of the package by a
-- channel not listed here is refused (403). An empty list lets no channel
-- claim it. Filled by PackageChannelAllowed events, rebuilt by replay.
CREATE TABLE package_channels (
    package_sn text NOT NULL REFERENCES packages (sn),
    channel_id uuid NOT NULL REFERENCES channels (id),
    PRIMARY KEY (package_sn, channel_id)
);
