//! Integration tests: wrapper.
