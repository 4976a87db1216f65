//! Fuzz body: compressed.
//!
//! Not landed yet.

/// Runs the body on one input.
pub fn run(_data: &[u8]) {}
