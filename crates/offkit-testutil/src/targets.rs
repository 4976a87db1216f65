//! Test support for the targets work.
