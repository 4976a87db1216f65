//! Models of LLVM's own data structures whose iteration order reaches output bytes: the
//! packager's `DenseMap<StringRef, StringRef>` (string-entry order of offload binaries) and the
//! bundler's `StringMap` (the order of `-list` and of unbundling).

pub mod densemap;
pub mod hashing;
pub mod integer;
pub mod stringmap;
