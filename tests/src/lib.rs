//! Black-box test support: find and start the workspace binaries.
