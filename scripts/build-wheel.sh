#!/usr/bin/env bash
# Builds offkit's Python wheel into DIR (default target/wheel/dist): the `offkit` command, the
# runtime libraries libomptarget.so.19.1 and .22.1 (in the wheel's data: bin/offkit,
# lib/offkit/), the man pages and bash/zsh/fish completions (share/), and the package `offkit`
# (crates/offkit-py, abi3), all linked against glibc 2.17 by zig: manylinux_2_17 (any x86_64
# Linux since 2014: RHEL/CentOS 7, Debian 8, Ubuntu 14.04).
#
# Needs maturin, cargo-zigbuild and ziglang (PyPI) on PATH or in the running Python (as
# scripts/test-python.sh installs them), and Debian 12's libzstd-dev and zlib1g-dev.
#
# zstd and zlib are linked statically from Debian 12's own archives (libzstd 1.5.4, zlib
# 1.2.13), found through a pkg-config directory made here: the wheel needs no libzstd.so or
# libz.so on the user's machine, and compresses byte for byte as LLVM 19 on Debian 12 does (it
# links the same libzstd; offkit's conformance tests rely on that). Grafting the shared
# libraries in (auditwheel repair) would not do: Debian 12's libzstd.so.1 needs glibc 2.34.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-$root/target/wheel/dist}
target=x86_64-unknown-linux-gnu
work=$root/target/wheel

# pkg-config files that name only the static archives.
static=$work/static-libs
rm -rf "$static" && mkdir -p "$static"
for lib in zstd z; do
  a=$(cc -print-file-name="lib$lib.a")
  [ -f "$a" ] || { echo "build-wheel: lib$lib.a not found (apt-get install libzstd-dev zlib1g-dev)" >&2; exit 1; }
  ln -s "$a" "$static/lib$lib.a"
done
printf 'Name: zstd\nDescription: static libzstd\nVersion: 1.5\nLibs: -L%s -lzstd\nCflags:\n' "$static" > "$static/libzstd.pc"
printf 'Name: zlib\nDescription: static zlib\nVersion: 1.2\nLibs: -L%s -lz\nCflags:\n' "$static" > "$static/zlib.pc"
export PKG_CONFIG_PATH=$static PKG_CONFIG_LIBDIR=$static PKG_CONFIG_ALL_STATIC=1 PKG_CONFIG_ALLOW_CROSS=1
export CARGO_ZIGBUILD_ZIG_COMMAND=${CARGO_ZIGBUILD_ZIG_COMMAND:-python3}
export CARGO_ZIGBUILD_ZIG_COMMAND_ARGS=${CARGO_ZIGBUILD_ZIG_COMMAND_ARGS:--m ziglang}
# No debug information in what ships; symbol tables stripped (the runtime's exports stay).
export CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=symbols

# The command and the runtime, through scripts/wheel/zigcc.sh (glibc 2.17; the runtime's
# LLVM packaging).
CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=$root/scripts/wheel/zigcc.sh \
  cargo build --release --locked --target "$target" --target-dir "$work" -p offkit-cli -p offkit-rt
bin=$work/$target/release

# The wheel's data directory (pyproject.toml's tool.maturin.data).
data=$work/offkit.data
rm -rf "$data"
mkdir -p "$data/scripts" "$data/data/lib/offkit" "$data/data/share/man/man1" \
  "$data/data/share/bash-completion/completions" "$data/data/share/zsh/site-functions" \
  "$data/data/share/fish/vendor_completions.d"
cp "$bin/offkit" "$data/scripts/offkit"
cp -L "$bin/libomptarget.so.19.1" "$bin/libomptarget.so.22.1" "$data/data/lib/offkit/"
"$bin/offkit" man "$data/data/share/man/man1" > /dev/null
"$bin/offkit" completions bash > "$data/data/share/bash-completion/completions/offkit"
"$bin/offkit" completions zsh > "$data/data/share/zsh/site-functions/_offkit"
"$bin/offkit" completions fish > "$data/data/share/fish/vendor_completions.d/offkit.fish"

# The package, with maturin's own zig linking (it checks the manylinux policy of the module).
mkdir -p "$out"
rm -f "$out"/offkit-*.whl
python3 -m maturin build --release --locked --strip --zig --compatibility manylinux_2_17 \
  --target "$target" --target-dir "$work/py" --out "$out" --interpreter python3
ls "$out"/offkit-*.whl
