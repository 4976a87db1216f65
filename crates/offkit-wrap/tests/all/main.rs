//! offkit-wrap's integration tests: conformance with LLVM 19's registration objects, byte for
//! byte, with LLVM 22's (in the Debian 13 root), and programs that link and run against LLVM
//! 19's libomptarget.

mod bad_input;
mod common;
mod image_info;
mod large;
mod llvm;
mod llvm22;
mod props;
mod runtime;
