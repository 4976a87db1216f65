//! Test support for the wrap work.
