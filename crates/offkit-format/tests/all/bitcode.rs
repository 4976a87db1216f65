//! Integration tests: bitcode.
