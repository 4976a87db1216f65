//! Test support for the link work.
