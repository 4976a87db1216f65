//! Target IDs (`gfx90a:sramecc+:xnack-`): parsing, canonical form, processor tables, and LLVM 19's compatibility rules.
//!
//! Not landed yet.
