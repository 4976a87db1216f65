//! # offkit-wrap
//!
//! Registration objects: a relocatable host object that embeds linked device images and, at
//! start-up, hands a `__tgt_bin_desc` (OpenMP) or a fatbinary (CUDA, HIP) to the offload
//! runtime — written directly as ELF with the `object` crate, no LLVM needed.
//!
//! Not landed yet (issue 4).
#![deny(missing_docs)]
