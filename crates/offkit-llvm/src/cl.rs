//! LLVM's command-line library (`llvm/Support/CommandLine`) as offkit's drop-ins need it: how
//! `cl::opt<unsigned>` and friends read an integer value.

pub mod integer;
