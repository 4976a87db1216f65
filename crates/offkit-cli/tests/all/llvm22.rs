//! Conformance with LLVM 22 (Debian 13's 22.1.8, run in the Debian 13 root of
//! `offkit_testutil::llvm22`): offkit's LLVM 22 faces and LLVM 22's tools run on the same inputs
//! inside the root, and their exit status, stdout, stderr and output bytes are compared.

mod arch;
mod bundler;
mod ccob;
mod convert;
mod e2e;
mod e2e_cuda;
mod entries;
mod faces;
mod linker_wrapper;
mod nvlink;
mod objdump;
mod packager;
mod wrap;
