#!/usr/bin/env bash
# Benchmark: `offkit inspect` against what a user has today, on the same generated inputs.
#
#   1. a HIP shared library laid out as ROCm's are (bench/gen-hip-library.sh: 128 translation
#      units, each a 4096-aligned bundle of 4 real code objects padded to 2 MiB in `.hip_fatbin`,
#      with its `__hip_fatbin_wrapper` record; 1 GiB of code objects), against
#      `llvm-objcopy-19 --dump-section .hip_fatbin` + `clang-offload-bundler-19 -list` (which
#      sees the first bundle only);
#   2. an object holding 1 GiB of device images (4 × 256 MiB, packaged by clang-offload-packager
#      19 and added to a host object as its .llvm.offloading section by llvm-objcopy 19), against
#      `llvm-objdump-19 --offloading`;
#   3. a static archive of 2,000 fat objects (one clang-19 OpenMP object, x86_64 + amdgcn
#      gfx90a, under 2,000 member names), against `llvm-objdump-19 --offloading`.
#
# Goals: the HIP library in ≤ 20 ms and ≤ 16 MiB peak RSS; the 1 GiB object in
# ≤ 10 ms and ≤ 16 MiB — offkit maps the file and reads headers only. The image
# counts each side finds are printed: offkit should find all 512 code objects of the library
# (once its walk reads every bundle of a section), LLVM's tools the 4 of the first bundle. Each measurement runs after `sync` (the inputs stay in the page cache:
# this measures the tools, not the disk), RUNS times; the median wall time and the median peak
# RSS (`/usr/bin/time -f %M`) are printed for both tools, with the ratio
# objdump/offkit (above 1: offkit is faster or smaller). Needs python3 for the timing.
#
# Usage: bench/inspect.sh [RUNS]   (default 7). Needs ~4.5 GiB of disk under target/bench (the
# inputs are kept for the next run; bench/check.sh uses the same library).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
. bench/measure.sh   # llvm, work (target/bench/inspect), offkit (built), measure

gen_big() {
  [ -f "$work/big.o" ] && return
  echo "generating the 1 GiB object…" >&2
  local i imgs=()
  for i in 0 1 2 3; do
    # Random bytes are not needed: neither tool should read the payloads.
    head -c 256M /dev/zero >"$work/img$i.o"
    imgs+=("--image=file=$work/img$i.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp")
  done
  "$llvm/clang-offload-packager" -o "$work/big.pkg" "${imgs[@]}"
  rm -f "$work"/img?.o
  printf 'int host(void) { return 0; }\n' >"$work/host.c"
  "$llvm/clang" -c "$work/host.c" -o "$work/host.o"
  "$llvm/llvm-objcopy" --add-section=.llvm.offloading="$work/big.pkg" \
    --set-section-type=.llvm.offloading=0x6fff4c0b \
    --set-section-flags=.llvm.offloading=exclude "$work/host.o" "$work/big.o"
  rm -f "$work/big.pkg"
}

gen_archive() {
  [ -f "$work/fat2000.a" ] && return
  echo "generating the archive of 2,000 fat objects…" >&2
  cat >"$work/k.c" <<'EOF'
#pragma omp declare target
int scale = 2;
#pragma omp end declare target
int saxpy(int n, float *x, float *y) {
#pragma omp target map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; ++i) y[i] += scale * x[i];
  return 0;
}
EOF
  "$llvm/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu,amdgcn-amd-amdhsa \
    -Xopenmp-target=amdgcn-amd-amdhsa --offload-arch=gfx90a -nogpulib \
    -c "$work/k.c" -o "$work/k.o"
  mkdir -p "$work/members"
  local i
  for i in $(seq -w 1 2000); do cp "$work/k.o" "$work/members/k$i.o"; done
  (cd "$work/members" && "$llvm/llvm-ar" rcs "$work/fat2000.a" k*.o)
  rm -rf "$work/members"
}

row() {
  local name=$1 file=$2
  read -r ot om < <(measure "$offkit" inspect "$file")
  read -r lt lm < <(measure "$llvm/llvm-objdump" --offloading "$file")
  # Both tools must find the same images (these inputs have no offload binaries nested inside
  # device images, so offkit's count of offload-binary rows is comparable).
  local on ln
  ln=$("$llvm/llvm-objdump" --offloading "$file" | grep -c '^OFFLOADING IMAGE')
  on=$("$offkit" inspect --json --no-entries "$file" |
    grep -c '"source": "offload-binary"')
  awk -v n="$name" -v ot="$ot" -v lt="$lt" -v om="$om" -v lm="$lm" -v on="$on" -v ln="$ln" \
    'BEGIN { printf "%-28s %10.2f %10.2f %7.1fx %10.1f %10.1f %7.1fx   images %s / %s\n",
             n, ot / 1000, lt / 1000, lt / ot, om / 1024, lm / 1024, lm / om, on, ln }'
  echo "$ot $om" >"$work/$name.result"
}

# The HIP library: offkit inspect against llvm-objcopy --dump-section + clang-offload-bundler
# -list (one shell running both; its peak RSS is the larger of the two).
hip_row() {
  local lib=$work/hip/libhip.so fb=$work/hip/fatbin.bin
  local llvm_cmd="$llvm/llvm-objcopy --dump-section=.hip_fatbin=$fb $lib /dev/null && \
    $llvm/clang-offload-bundler -list -type=o -input=$fb"
  read -r ot om < <(measure "$offkit" inspect "$lib")
  read -r lt lm < <(measure bash -c "$llvm_cmd")
  local on ln
  on=$("$offkit" inspect --json --no-entries "$lib" | grep -c '"offload_kind": "hipv4"')
  ln=$(bash -c "$llvm_cmd" | grep -c '^hipv4-')
  rm -f "$fb"
  awk -v n="HIP .so, 128 bundles, 1 GiB" -v ot="$ot" -v lt="$lt" -v om="$om" -v lm="$lm" \
    -v on="$on" -v ln="$ln" \
    'BEGIN { printf "%-28s %10.2f %10.2f %7.1fx %10.1f %10.1f %7.1fx   code objects %s / %s\n",
             n, ot / 1000, lt / 1000, lt / ot, om / 1024, lm / 1024, lm / om, on, ln }'
  echo "$ot $om" >"$work/hip.result"
}

bench/gen-hip-library.sh "$work/hip"
gen_big
gen_archive
echo
echo "offkit inspect vs llvm-objcopy-19 --dump-section + clang-offload-bundler-19 -list"
echo "(median of $runs runs after sync)"
printf '%-28s %10s %10s %8s %10s %10s %8s\n' input "offkit ms" "llvm ms" ratio \
  "offkit MiB" "llvm MiB" ratio
hip_row
echo
echo "offkit inspect vs llvm-objdump-19 --offloading (median of $runs runs after sync)"
printf '%-28s %10s %10s %8s %10s %10s %8s\n' input "offkit ms" "objdump ms" ratio \
  "offkit MiB" "objdump MiB" ratio
row "object, 1 GiB of images" "$work/big.o"
row "archive, 2000 fat objects" "$work/fat2000.a"
echo
read -r ot om <"$work/hip.result"
if ((ot <= 20000 && om <= 16384)); then
  echo "goal met: the HIP library in $((ot / 1000)).$((ot % 1000 / 100)) ms and $((om / 1024)) MiB (≤ 20 ms, ≤ 16 MiB)"
else
  echo "goal MISSED: the HIP library in $((ot / 1000)).$((ot % 1000 / 100)) ms and $((om / 1024)) MiB (goal ≤ 20 ms, ≤ 16 MiB)"
fi
read -r ot om <"$work/object, 1 GiB of images.result"
if ((ot <= 10000 && om <= 16384)); then
  echo "goal met: the 1 GiB object in $((ot / 1000)).$((ot % 1000 / 100)) ms and $((om / 1024)) MiB (≤ 10 ms, ≤ 16 MiB)"
else
  echo "goal MISSED: the 1 GiB object in $((ot / 1000)).$((ot % 1000 / 100)) ms and $((om / 1024)) MiB (goal ≤ 10 ms, ≤ 16 MiB)"
fi
