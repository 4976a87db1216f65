//! Offload bundles: the binary (`__CLANG_OFFLOAD_BUNDLE__`) and text formats, and compressed bundles (`CCOB`).
//!
//! Not landed yet.
