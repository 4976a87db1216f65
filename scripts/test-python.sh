#!/usr/bin/env bash
# The distribution's tests (called by scripts/test.sh): builds the wheel (scripts/build-wheel.sh,
# with maturin, cargo-zigbuild and ziglang from PyPI in target/wheel/tools), installs it into a
# fresh virtual environment and runs python/tests there with pytest — the package, the command
# on PATH, the man pages and completions, the runtime running an OpenMP program; then installs
# the command with `cargo install --path crates/offkit-cli` into a temporary root and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tools=$root/target/wheel/tools
if [ ! -x "$tools/bin/maturin" ]; then
  rm -rf "$tools"
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q --disable-pip-version-check \
    'maturin==1.16.0' 'cargo-zigbuild==0.24.1' 'ziglang==0.17.1' 'auditwheel==6.8.2'
fi
PATH=$tools/bin:$PATH scripts/build-wheel.sh "$root/target/wheel/dist"
wheel=$(ls "$root"/target/wheel/dist/offkit-*.whl)
echo "wheel: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
"$tools/bin/auditwheel" show "$wheel"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check 'pytest==9.2.0'
start=$EPOCHREALTIME
"$tmp/venv/bin/pip" install -q --disable-pip-version-check --no-index "$wheel"
echo "pip install: $(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $start }") s"

# pytest's exit status: 0 all passed; 5 collected nothing, which here is a failure too.
status=0
(cd "$tmp" && PATH=$tmp/venv/bin:$PATH "$tmp/venv/bin/python" -m pytest -p no:cacheprovider \
  -q "$root/python/tests") || status=$?
case $status in
  0) ;;
  5) echo "test-python: pytest collected no tests" >&2; exit 1 ;;
  *) echo "test-python: pytest failed (exit status $status)" >&2; exit 1 ;;
esac

# `cargo install --path` into a temporary root (a debug build, sharing the workspace's target
# directory with the test build): the binary runs, and `offkit rt --libdir` says where the
# runtime libraries go in that layout, and finds them once they are there.
cargo install -q --locked --debug --path crates/offkit-cli --root "$tmp/root" --target-dir "$root/target"
"$tmp/root/bin/offkit" --version
printf 'int main(void) {\n#pragma omp target\n  ;\n  return 0;\n}\n' > "$tmp/p.c"
"${OFFKIT_LLVM_ROOT:-/usr/lib/llvm-19}/bin/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu \
  -c "$tmp/p.c" -o "$tmp/p.o"
"$tmp/root/bin/offkit" inspect "$tmp/p.o" | grep -q 'openmp .* x86_64-pc-linux-gnu'
if "$tmp/root/bin/offkit" rt --libdir 2> "$tmp/rt.err"; then
  echo "test-python: offkit rt --libdir found libraries cargo install does not install" >&2; exit 1
fi
grep -q "$tmp/root/lib/offkit" "$tmp/rt.err"
mkdir -p "$tmp/root/lib/offkit"
cp -L "$root"/target/wheel/offkit.data/data/lib/offkit/libomptarget.so.* "$tmp/root/lib/offkit/"
[ "$("$tmp/root/bin/offkit" rt --libdir)" = "$tmp/root/lib/offkit" ]
echo "cargo install: ok"
