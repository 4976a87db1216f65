//! offkit-link's integration tests: the pipeline with a fake clang/ld, and the in-process
//! objcopy step on clang-19 objects.

mod api;
mod fixtures;
mod pipeline;
mod relocate;
