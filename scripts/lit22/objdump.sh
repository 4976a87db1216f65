#!/bin/sh
# LLVM 22.1.8's own lit tests of `llvm-objdump --offloading`
# (llvm/test/tools/llvm-objdump/Offloading/*.test), run line by line with LLVM 22's llvm-objdump
# and with offkit's LLVM 22 face (shims made with --with-objdump) in the Debian 13 root; yaml2obj,
# llvm-objcopy and FileCheck are LLVM 22's on both sides (llvm-22-tools, scripts/setup-trixie.sh).
# A RUN line that runs llvm-objdump without --offloading (fatbin.test disassembles what
# --offloading extracted) runs LLVM 22's llvm-objdump on both sides: offkit's face does
# --offloading only. Prints the RUN-line counts (run.py, the runner all scripts/lit22/*.sh share).
#
# usage: scripts/lit22/objdump.sh [-v] [OFFKIT_EXE]   (default: target/debug/offkit)
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
tests=$src/llvm/test/tools/llvm-objdump/Offloading
[ -x "$exe" ] || { echo "no offkit at $exe: cargo build -p offkit-cli first" >&2; exit 2; }
[ -x "$root/usr/lib/llvm-22/bin/yaml2obj" ] || { echo "no yaml2obj in $root: install llvm-22-tools there (scripts/setup-trixie.sh)" >&2; exit 2; }
[ -d "$tests" ] || { echo "no LLVM 22 sources at $src" >&2; exit 2; }
exec python3 "$here/run.py" --with-objdump $verbose "$root" "$exe" "$tests"/*.test
