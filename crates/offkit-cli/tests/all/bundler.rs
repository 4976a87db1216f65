//! Integration tests: bundler.
