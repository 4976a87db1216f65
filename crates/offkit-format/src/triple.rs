//! LLVM 19 target triples: parsing into arch/vendor/OS/environment/object format, normalization, compatibility.
//!
//! Not landed yet.
