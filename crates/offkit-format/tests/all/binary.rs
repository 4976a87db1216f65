//! Integration tests: binary.
