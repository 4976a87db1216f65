//! The integration tests of offkit-elf: edited objects read back by LLVM 19's `llvm-readelf`.

mod readelf;
