-- The messages each relay route handed to the broker (docs/design.md §5,
-- "Nobody bound to coupon.events"). `published` counts the events a route
-- passed on; while no subscriber is bound to coupon.events the relay sends
-- one probe per batch and skips the rest (counted in `unroutable`), and
-- runs carry many events per message, so the two counts differ.
ALTER TABLE relay_cursors ADD COLUMN sent bigint NOT NULL DEFAULT 0;
