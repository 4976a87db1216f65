#!/bin/sh
# Regenerates the bitcode fuzz seeds with clang-19 (LLVM 19): small real bitcode files that
# cover what offkit's bitcode reader reads. Each stays well under 64 KiB.
#   sh fuzz/seeds/bitcode/generate.sh
set -eu
cd "$(dirname "$0")"
BIN=${OFFKIT_LLVM_ROOT:-/usr/lib/llvm-19}/bin
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# Embedded offload objects: one image, and two packager outputs.
printf '\177ELF tiny image' > "$t/img"
"$BIN/clang-offload-packager" -o "$t/one.out" \
  --image=file="$t/img",triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp
"$BIN/clang-offload-packager" -o "$t/two.out" \
  --image=file="$t/img",triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp \
  --image=file="$t/img",triple=nvptx64-nvidia-cuda,arch=sm_70,kind=cuda
echo 'int main(void) { return 0; }' > "$t/main.c"
"$BIN/clang" -flto -c "$t/main.c" -o embed1.bc -Xclang -fembed-offload-object="$t/one.out"
"$BIN/clang" -flto -c "$t/main.c" -o embed2.bc -Xclang -fembed-offload-object="$t/one.out" \
  -Xclang -fembed-offload-object="$t/two.out"
# A wrapped (Darwin) module with an embedded object.
"$BIN/clang" -flto --target=x86_64-apple-macos11 -c "$t/main.c" -o wrapped.bc \
  -Xclang -fembed-offload-object="$t/one.out"

# Symbols: data, functions, weak, hidden, TLS, common, alias, ifunc, section, module asm.
cat > "$t/sym.c" <<'C'
int d = 1; int z; static int s = 2; extern int u; __attribute__((weak)) int w = 3;
__attribute__((visibility("hidden"))) int h = 4; __thread int tls = 5; int common;
__attribute__((section("sec"))) int in_sec = 6;
extern void ext(void);
static int local(int x) { return x + s; }
int f(int x) { ext(); return local(x) + u + w; }
int a(int) __attribute__((alias("f")));
static int (*res(void))(int) { return f; }
int ifn(int) __attribute__((ifunc("res")));
__asm__(".globl asm_def\nasm_def:\n.long 0\n");
C
"$BIN/clang" -flto -fcommon -c "$t/sym.c" -o symbols.bc

# C++ comdats and templates.
cat > "$t/t.cpp" <<'C'
template <typename T> T twice(T x) { return x + x; }
inline int in(int x) { return x * 3; }
int use() { return twice(2) + in(1); }
C
"$BIN/clang" -flto -c "$t/t.cpp" -o cxx.bc

# HIP device code (-fgpu-rdc).
cat > "$t/k.hip" <<'C'
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
__device__ int dev_one = 1;
__global__ void kern(int *p) { *p = dev_one; }
C
"$BIN/clang" -x hip --offload-arch=gfx90a -nogpulib -nogpuinc -fgpu-rdc --cuda-device-only \
  -c "$t/k.hip" -o hip-device.bc

# DATA and CSTRING constants named in !llvm.embedded.objects.
cat > "$t/data.ll" <<'LL'
@a = private constant [3 x i32] [i32 1, i32 -2, i32 65536], section ".llvm.offloading"
@b = private constant [4 x i8] c"abc\00", section ".llvm.offloading"
@c = private constant <2 x double> <double 1.0, double -0.5>
!llvm.embedded.objects = !{!0, !1, !2}
!0 = !{ptr @a, !".llvm.offloading"}
!1 = !{ptr @b, !".llvm.offloading"}
!2 = !{ptr @c, !".llvm.offloading"}
LL
"$BIN/llvm-as" "$t/data.ll" -o data.bc

# Two modules in one file (no symbol table), as llvm-cat -b makes.
"$BIN/llvm-cat" -b -o multi.bc embed1.bc cxx.bc

ls -l ./*.bc
