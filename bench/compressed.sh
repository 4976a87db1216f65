#!/usr/bin/env bash
# Benchmark: `offkit inspect` and `offkit extract` on a HIP library whose bundles are all
# compressed (CCOB v3, zstd), as ROCm 7 wheels ship them (jax-rocm7-plugin: 45 bundles, 27
# targets each, 28 MiB inflating to 2.27 GiB) — against `cp` of the file and `zstd -d` of the
# same compressed payloads.
#
# The library: 27 real code objects (clang-19, -O2, 300 kernels with loops: ~300 KiB each, a
# realistic 16:1 under zstd) bundled per translation unit with LLVM 19's clang-offload-bundler,
# BUNDLES translation units linked by ld.lld-19 (as bench/gen-hip-library.sh lays them out),
# then every bundle compressed by `offkit compress --ccob-version 3` (byte for byte what LLVM
# 22's bundler writes). Default BUNDLES=280: 2.2 GiB inflated.
#
# Goals: inspect ≤ 3× `cp` of the file and ≤ 32 MiB peak; extract of everything ≤
# `zstd -d` of the payloads + `cp`, and ≤ 64 MiB peak. Runs are interleaved (cp, zstd, inspect,
# extract in turn), RUNS times; medians printed. Outputs are removed outside the timing.
#
# Usage: bench/compressed.sh [RUNS] [BUNDLES]   (defaults 5, 280). Needs ~5 GiB under
# target/bench/compressed while it runs (the extracted images), and zstd.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
bundles=${2:-280}
llvm=/usr/lib/llvm-19/bin
work=$PWD/target/bench/compressed
mkdir -p "$work"
cargo build --release --locked -q -p offkit-cli
offkit=$PWD/target/release/offkit
lib=$work/libccob-$bundles.so

if [ ! -f "$lib" ]; then
  gen=$(mktemp -d "$work/gen.XXXXXX")
  trap 'rm -rf "$gen"' EXIT
  echo "generating $lib: $bundles bundles of 27 code objects…" >&2
  python3 - "$gen/k.hip" <<'PY'
import sys
src = ["#define __global__ __attribute__((global))"]
for i in range(300):
    src.append(
        f"__global__ void k{i}(float *x, const float *y, int n) {{ float a = x[0]; "
        f"for (int j = 0; j < n; j++) {{ a = a * {1.0 + i / 1000:.4f}f + y[j] * y[n - j]; "
        f"if (a > {i}.0f) a -= y[j + {i}]; x[j] = a; }} x[n] = a * {i}; }}")
open(sys.argv[1], "w").write("\n".join(src) + "\n")
PY
  targets=host-x86_64-unknown-linux-gnu
  inputs=(-input=/dev/null)
  for arch in gfx900 gfx902 gfx904 gfx906 gfx908 gfx909 gfx90a gfx90c gfx940 gfx941 gfx942 \
    gfx1010 gfx1011 gfx1012 gfx1013 gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035 gfx1036 \
    gfx1100 gfx1101 gfx1102 gfx1103 gfx1150; do
    "$llvm/clang" -x hip --offload-arch=$arch -nogpulib -nogpuinc --offload-device-only \
      --no-gpu-bundle-output -O2 -c "$gen/k.hip" -o "$gen/co-$arch.o"
    targets+=,hipv4-amdgcn-amd-amdhsa--$arch
    inputs+=("-input=$gen/co-$arch.o")
  done
  "$llvm/clang-offload-bundler" -type=o -bundle-align=4096 -targets="$targets" "${inputs[@]}" \
    -output="$gen/bundle.bin"
  for i in $(seq 1 "$bundles"); do
    cat >"$gen/tu$i.s" <<EOF
	.section .hip_fatbin,"a",@progbits
	.p2align 12
__hip_fatbin_$i:
	.incbin "$gen/bundle.bin"
	.section .hipFatBinSegment,"aw",@progbits
	.p2align 3
__hip_fatbin_wrapper_$i:
	.long 0x48495046
	.long 1
	.quad __hip_fatbin_$i
	.quad 0
EOF
    "$llvm/clang" -c "$gen/tu$i.s" -o "$gen/tu$i.o"
  done
  "$llvm/ld.lld" -shared "$gen"/tu*.o -o "$gen/plain.so"
  "$offkit" compress -q --ccob-version 3 "$gen/plain.so" -o "$lib.tmp"
  mv "$lib.tmp" "$lib"
  rm -rf "$gen"
  trap - EXIT
fi

# The compressed payloads alone (each CCOB v3 header is 32 bytes; the zstd frames follow), as
# one stream of frames for `zstd -d`.
payloads=$work/payloads-$bundles.zst
[ -f "$payloads" ] || python3 - "$lib" "$payloads" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
out = open(sys.argv[2], "wb")
at = data.find(b"CCOB")
while at >= 0:
    version, method, total = struct.unpack_from("<HHQ", data, at + 4)
    if version == 3:
        out.write(data[at + 32: at + total])
        at += total
    else:
        at += 4
    at = data.find(b"CCOB", at)
PY
inflated=$(python3 -c "import struct,sys;d=open('$lib','rb').read();i=d.find(b'CCOB');t=0
while i>=0:
  t+=struct.unpack_from('<Q',d,i+16)[0];i=d.find(b'CCOB',i+struct.unpack_from('<Q',d,i+8)[0])
print(t)")
echo "library: $(stat -c %s "$lib") bytes, $bundles compressed bundles, $((inflated >> 20)) MiB inflated," \
  "payloads $(stat -c %s "$payloads") bytes" >&2

# t NAME CMD...: one timed run; seconds and peak RSS (KiB) appended to $work/NAME.
t() {
  local name=$1; shift
  sync
  /usr/bin/time -f "%e %M" -o "$work/$name.one" "$@" >/dev/null
  cat "$work/$name.one" >>"$work/$name.runs"
}
rm -f "$work"/*.runs
for r in $(seq 1 "$runs"); do
  t cp cp "$lib" "$work/copy.so"; rm -f "$work/copy.so"
  t zstd zstd -q -d -f "$payloads" -o "$work/payloads.out"; rm -f "$work/payloads.out"
  t inspect "$offkit" inspect "$lib"
  t extract "$offkit" extract -o "$work/out" "$lib"; rm -rf "$work/out"
done
median() { sort -n -k"$2" "$work/$1.runs" | awk -v k="$2" '{a[NR]=$k} END {print a[int((NR+1)/2)]}'; }
cp_s=$(median cp 1); zstd_s=$(median zstd 1)
printf '%-8s %8s %10s\n' what seconds "peak MiB"
for n in cp zstd inspect extract; do
  printf '%-8s %8s %10s\n' $n "$(median $n 1)" "$(( $(median $n 2) / 1024 ))"
done
awk -v i="$(median inspect 1)" -v c="$cp_s" 'BEGIN {printf "inspect / cp: %.2f (goal ≤ 3)\n", i / c}'
awk -v e="$(median extract 1)" -v z="$zstd_s" -v c="$cp_s" \
  'BEGIN {printf "extract / (zstd -d + cp): %.2f (goal ≤ 1)\n", e / (z + c)}'
