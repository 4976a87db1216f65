//! Test support for the bitcode work.
