#!/bin/sh
# rustc's linker for the wheel build (scripts/build-wheel.sh): zig's `cc` (through cargo-zigbuild,
# which adapts rustc's arguments to it) linking against glibc 2.17, so that the binaries load on
# every manylinux_2_17 system.
#
# offkit-rt's build.rs gives the runtime its LLVM packaging through a GNU ld wrapper that the C
# compiler driver runs (`-fuse-ld=bfd -B<dir>`), which zig does not: here the same is done for
# zig's linker. rustc's anonymous version script is replaced by exports.map (the `VERS1.0` node
# clang-19 programs import), and the objects are linked once more as LLVM 22's runtime
# (exports22.map, SONAME libomptarget.so.22.1, beside the output).
set -eu
rt=$(cd "$(dirname "$0")/../../crates/offkit-rt" && pwd)
zig() {
  cargo-zigbuild zig cc -- -g -fno-sanitize=all -target "${OFFKIT_ZIG_TARGET:-x86_64-linux-gnu.2.17}" "$@"
}
case " $* " in
  *" -Wl,-soname,libomptarget.so.19.1 "*) ;;
  *) zig "$@"; exit ;;
esac
for a; do
  shift
  case $a in
    -Wl,--version-script=*) a=-Wl,--version-script=$rt/exports.map ;;
  esac
  set -- "$@" "$a"
done
zig "$@"
prev=
for a; do
  shift
  b=$a
  case $prev in
    -o) b="${a%/*}/libomptarget.so.22.1" ;;
  esac
  case $a in
    -Wl,--version-script=*) b=-Wl,--version-script=$rt/exports22.map ;;
    -Wl,-soname,libomptarget.so.19.1) b=-Wl,-soname,libomptarget.so.22.1 ;;
  esac
  set -- "$@" "$b"
  prev=$a
done
zig "$@"
