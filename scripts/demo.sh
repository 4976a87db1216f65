#!/usr/bin/env bash
# offkit's main job on a bundled example: build the OpenMP program in examples/saxpy for the
# x86_64 offload target, run it on LLVM 19's libomptarget and on offkit's own runtime, and show
# with `offkit inspect` the device images in its objects, its static library and the executable.
# Then build it with clang-22 (Debian 13 has no offload runtime for it) in the Debian 13 root of
# scripts/setup-trixie.sh and run it there on offkit's libomptarget.so.22.1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --locked -q -p offkit-cli -p offkit-rt
offkit=$PWD/target/release/offkit
out=$PWD/target/demo
rm -rf "$out" && mkdir -p "$out"
src=$PWD/examples/saxpy
target=x86_64-pc-linux-gnu
cc=(clang-19 -fopenmp -fopenmp-targets=$target -O2)

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "compile (each object carries its device code in .llvm.offloading)"
show "${cc[@]}" -c "$src/saxpy.c" -o "$out/saxpy.o"
show "${cc[@]}" -c "$src/main.c" -o "$out/main.o"
show llvm-ar-19 rcs "$out/libsaxpy.a" "$out/saxpy.o"

step "link through offkit's clang-linker-wrapper (clang-19 -B: it extracts, device-links and wraps the images)"
show "$offkit" shims "$out/shims"
show "${cc[@]}" -B "$out/shims" "$out/main.o" -L"$out" -lsaxpy -o "$out/saxpy"

step "run on LLVM 19's libomptarget (the x86_64 offload device is this CPU)"
LD_LIBRARY_PATH=${OFFKIT_LLVM_ROOT:-/usr/lib/llvm-19}/lib show "$out/saxpy"

step "run on offkit's runtime (crates/offkit-rt: a libomptarget.so.19.1 in Rust), no LLVM offload library"
LD_LIBRARY_PATH=$PWD/target/release show "$out/saxpy"
show sh -c "LD_LIBRARY_PATH=$PWD/target/release ldd '$out/saxpy' | grep libomptarget"

step "inspect the objects, the archive and the executable"
(cd "$out" && show "$offkit" inspect main.o libsaxpy.a saxpy)

step "clang-22 (Debian 13 root): link against offkit's libomptarget.so.22.1 with -L and an rpath, run"
scripts/setup-trixie.sh
root=${OFFKIT_TRIXIE_ROOT:-/opt/offkit/trixie}
work22=$(mktemp -d "$root/tmp/offkit-demo-XXXXXX")
trap 'rm -rf "$work22"' EXIT
inner=${work22#"$root"}
cp "$src/saxpy.c" "$src/main.c" "$work22/"
mkdir "$work22/lib"
cp "$PWD/target/release/deps/libomptarget.so.22.1" "$work22/lib/"
ln -s libomptarget.so.22.1 "$work22/lib/libomptarget.so"
in_root() {
  printf '(Debian 13 root, in %s) $ %s\n' "$inner" "$*"
  chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin \
    /bin/sh -c 'cd "$0" && exec "$@"' "$inner" "$@"
}
cc22=(clang-22 -fopenmp -fopenmp-targets=$target -O2)
in_root "${cc22[@]}" -c saxpy.c -o saxpy.o
in_root "${cc22[@]}" -c main.c -o main.o
in_root llvm-ar-22 rcs libsaxpy.a saxpy.o
in_root "${cc22[@]}" main.o -L. -lsaxpy -L"$inner/lib" -Wl,-rpath,"$inner/lib" -o saxpy
in_root ./saxpy
in_root sh -c "ldd ./saxpy | grep libomptarget"
