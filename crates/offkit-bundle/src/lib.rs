//! # offkit-bundle
//!
//! The offload bundler's file-level work (bundling, unbundling and listing binary and text
//! bundles, fat objects and archives), streaming payloads between files in bounded memory.
//!
//! Not landed yet (issue 3).
#![deny(missing_docs)]
