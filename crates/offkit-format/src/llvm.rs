//! Models of LLVM's own data structures whose iteration order reaches output bytes (DenseMap, StringMap).
//!
//! Not landed yet.
