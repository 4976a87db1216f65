//! Offload entry tables (`__tgt_offload_entry`): LLVM 19's 32-byte entries and the newer 56-byte ones.
//!
//! Not landed yet.
