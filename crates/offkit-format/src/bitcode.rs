//! LLVM bitcode: a bounded bitstream reader, the embedded offload objects of a module, and its symbol table.
//!
//! Not landed yet.
