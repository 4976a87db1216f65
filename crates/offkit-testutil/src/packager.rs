//! Test support for the packager work.
