//! The runtime against LLVM 19's: programs compiled by clang-19 run once on
//! `/usr/lib/llvm-19/lib/libomptarget.so.19.1` and once on offkit's, with the same exit status,
//! stdout and stderr (addresses normalised).
mod arch;
mod harness;
mod packaging;
mod programs;
