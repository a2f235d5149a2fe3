//! Pure domain logic: no I/O. Takes a clock and data, returns decisions and events.
