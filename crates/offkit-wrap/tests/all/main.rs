//! offkit-wrap's integration tests: conformance with LLVM 19's registration objects, byte for
//! byte, and programs that link and run against LLVM 19's libomptarget.

mod bad_input;
mod common;
mod image_info;
mod large;
mod llvm;
mod props;
mod runtime;
