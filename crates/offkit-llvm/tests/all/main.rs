//! offkit-llvm integration tests, one module per area; conformance tests run the LLVM 19 tools
//! on the same inputs.

mod bitcode;
mod targets;
