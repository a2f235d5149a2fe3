-- The projections' inbox rows are receipts, one per message, not guards
-- (docs/design.md §5): a projection skips what it has seen by the stream
-- versions in its own rows. A receipt names the positions of the events
-- its message carried and the projection committed, so that the fault
-- suite can tell an event acked and lost (no receipt holds it) from one
-- applied. A run's events are consecutive in commit order, not in
-- position, so a range of its first and last would not do; a multirange
-- of a run of 1,000 events is usually one or a few ranges.
--
-- Other consumers leave it null: their message id is the receipt.
ALTER TABLE inbox ADD COLUMN positions int8multirange;

-- A projection's position is the last event it was given in commit order
-- (tx_id, position), which lag counts from. Without the inbox filtering
-- repeats out, a redelivered batch could move it back to an earlier
-- event; its tx_id beside it lets the update keep the later one (null on
-- rows written before: the next event moves it).
ALTER TABLE projection_positions ADD COLUMN tx_id bigint;
