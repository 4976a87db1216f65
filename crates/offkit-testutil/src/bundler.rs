//! Test support for the bundler work.
