//! Integration tests: targets.
