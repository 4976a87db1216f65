//! Models of LLVM's ADT (`llvm/ADT`) whose iteration order reaches output bytes: the
//! packager's `DenseMap<StringRef, StringRef>` (string-entry order of offload binaries), the
//! bundler's `StringMap` (the order of `-list` and of unbundling), and the hashing the `DenseMap` uses.

pub mod densemap;
pub mod hashing;
pub mod stringmap;
