//! Integration tests: inspect.
