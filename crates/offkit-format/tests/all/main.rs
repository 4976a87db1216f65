//! offkit-format integration tests, one module per area; conformance tests run the LLVM 19
//! tools on the same inputs.

mod binary;
mod bundle;
mod code_object;
mod fatbin;
mod resources;
mod scan;
