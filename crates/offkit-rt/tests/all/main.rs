//! The runtime against LLVM 19's: programs compiled by clang-19 run once on LLVM 19's
//! `libomptarget.so.19.1` (in `offkit_testutil::llvm_lib()`: `$OFFKIT_LLVM_ROOT/lib`, by default
//! `/usr/lib/llvm-19/lib`) and once on offkit's, with the same exit status, stdout and stderr
//! (addresses normalised).
mod arch;
mod gaps;
mod harness;
mod ompt;
mod packaging;
mod programs;
