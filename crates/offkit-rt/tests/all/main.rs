//! The runtime against LLVM 19's: programs compiled by clang-19 run once on LLVM 19's
//! `libomptarget.so.19.1` (in `offkit_testutil::llvm_lib()`: `$OFFKIT_LLVM_ROOT/lib`, by default
//! `/usr/lib/llvm-19/lib`) and once on offkit's, with the same exit status, stdout and stderr
//! (addresses normalised). The same programs built by clang-22 run on offkit's
//! `libomptarget.so.22.1` in the Debian 13 root (`llvm22`, `gaps22`, `ompt22`).
mod arch;
mod gaps;
mod gaps22;
mod harness;
mod harness22;
mod llvm22;
mod ompt;
mod ompt22;
mod packaging;
mod programs;
