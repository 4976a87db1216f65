//! LLVM's `hash_value(StringRef)` (`llvm/ADT/Hashing.h`, the CityHash-derived `hash_short` with the fixed release seed).
//!
//! Not landed yet.
