//! Fuzz body: archive_scan.
//!
//! Not landed yet.

/// Runs the body on one input.
pub fn run(_data: &[u8]) {}
