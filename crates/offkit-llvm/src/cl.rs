//! LLVM's command-line library (`llvm/Support/CommandLine`) as offkit's drop-ins need it: the
//! parser ([`options`]) and how `cl::opt<unsigned>` and friends read an integer value
//! ([`integer`]).

pub mod integer;
pub mod options;
