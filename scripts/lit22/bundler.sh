#!/bin/sh
# LLVM 22's lit tests of clang-offload-bundler and llvm-offload-binary (clang/test/Driver/
# clang-offload-bundler*.c, llvm/test/tools/llvm-offload-binary/) with LLVM 22's tools and
# with offkit's LLVM 22 faces in the Debian 13 root; prints the RUN-line counts (run.py, the
# runner all scripts/lit22/*.sh share).
#
# usage: scripts/lit22/bundler.sh [-v] [OFFKIT_EXE]
# env:   OFFKIT_TRIXIE_ROOT (default /opt/offkit/trixie), OFFKIT_LLVM22_SRC (LLVM 22.1.8's
#        sources, default /opt/offkit/src22/llvm-toolchain-22_22.1.8)
set -eu
verbose=
if [ "${1:-}" = -v ]; then verbose=-v; shift; fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
root=${OFFKIT_TRIXIE_ROOT:-/opt/offkit/trixie}
src=${OFFKIT_LLVM22_SRC:-/opt/offkit/src22/llvm-toolchain-22_22.1.8}
exe=${1:-$repo/target/debug/offkit}
[ -x "$exe" ] || { echo "no offkit at $exe: cargo build -p offkit-cli first" >&2; exit 2; }
[ -x "$root/usr/lib/llvm-22/bin/clang" ] || { echo "no LLVM 22 in $root: scripts/setup-trixie.sh" >&2; exit 2; }
[ -d "$src/clang/test/Driver" ] || { echo "no LLVM 22 sources at $src" >&2; exit 2; }
exec python3 "$here/run.py" $verbose "$root" "$exe" \
    "$src"/clang/test/Driver/clang-offload-bundler*.c \
    "$src"/llvm/test/tools/llvm-offload-binary/*.ll
