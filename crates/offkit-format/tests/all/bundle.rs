//! Integration tests: bundle.
