//! The container scanner: every device image, bundle and entry table in a file, nested to any depth.
//!
//! Not landed yet.
