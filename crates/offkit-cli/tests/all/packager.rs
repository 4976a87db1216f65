//! Integration tests: packager.
