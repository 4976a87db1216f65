//! Integration tests: scan.
