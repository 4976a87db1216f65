//! The iteration order of LLVM's `DenseMap<StringRef, …>` (quadratic probing, growth by doubling).
//!
//! Not landed yet.
