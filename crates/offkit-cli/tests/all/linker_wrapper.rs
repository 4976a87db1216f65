//! Integration tests: linker_wrapper.
