//! offkit-wrap's integration tests: conformance with LLVM 19's registration objects, and
//! programs that link and run against LLVM 19's libomptarget.

mod common;
mod llvm;
mod runtime;
