
// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-
host code
// __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-

// __CLANG_OFFLOAD_BUNDLE____START__ openmp-x86_64-pc-linux-gnu-
device code for gfx90a
// __CLANG_OFFLOAD_BUNDLE____END__ openmp-x86_64-pc-linux-gnu-
