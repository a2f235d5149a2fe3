//! Black-box test support: find the workspace binaries and run them against a
//! test's own database, vhost and Redis prefix.

use std::path::PathBuf;

pub use ledger::testkit::{TestDb, TestRedis, TestVhost};

/// Path of a workspace binary (`ledger`, `workers`), built next to this test.
pub fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary knows its path");
    // target/<profile>/deps/<test> -> target/<profile>/<name>
    let path = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join(name))
        .expect("test binaries live in target/<profile>/deps");
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --workspace --bins` first (scripts/test does)",
        path.display()
    );
    path
}
