//! The offkit CLI's integration tests, one module per area. Conformance tests run LLVM 19's
//! tools on the same inputs and compare bytes, stdout, stderr and exit status.

mod arch;
mod bundler;
mod check;
mod dropin;
mod hip;
mod hostile;
mod inspect;
mod linker_wrapper;
mod llvm22;
mod memory;
mod objdump;
mod outputs;
mod packager;
mod pipeline;
mod resources;
mod surgery;
mod wrapper;
