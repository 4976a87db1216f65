//! The iteration order of LLVM 19's `StringMap` (XXH3-64 hash, probing, tombstones, rehashing).
//!
//! Not landed yet.
