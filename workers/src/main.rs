//! The `workers` binary: outbox relay, issuance, projections, scanner.
fn main() {}
