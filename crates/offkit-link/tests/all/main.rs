//! offkit-link's integration tests: the pipeline with a fake clang/ld (no LLVM needed).

mod fixtures;
mod pipeline;
