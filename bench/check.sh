#!/usr/bin/env bash
# Benchmark: `offkit check` of a HIP shared library with 128 bundles (bench/gen-hip-library.sh:
# 1 GiB of code objects for gfx90a:xnack+, gfx90a:xnack-, gfx1030 and gfx1100, laid out as
# ROCm's libraries are) for three devices, against the closest thing a user has today:
# `llvm-objcopy-19 --dump-section .hip_fatbin` + `clang-offload-bundler-19 -list` and a grep per
# device (which sees the first bundle only, and knows nothing of feature compatibility).
#
# Goal: ≤ 20 ms. Median wall time and peak RSS of RUNS runs after `sync`, ratios
# llvm/offkit (above 1: offkit is faster or smaller).
#
# Usage: bench/check.sh [RUNS]   (default 7). Shares target/bench/inspect/hip with
# bench/inspect.sh (~2 GiB while generating, 1 GiB kept).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
. bench/measure.sh   # llvm, work (target/bench/inspect), offkit (built), measure

bench/gen-hip-library.sh "$work/hip"
lib=$work/hip/libhip.so
fb=$work/hip/fatbin.bin
devices=gfx90a:xnack+,gfx1030,gfx1100
llvm_cmd="$llvm/llvm-objcopy --dump-section=.hip_fatbin=$fb $lib /dev/null && \
  $llvm/clang-offload-bundler -list -type=o -input=$fb > $fb.list && \
  grep -q -- '--gfx90a:xnack+\$' $fb.list && grep -q -- '--gfx1030\$' $fb.list && \
  grep -q -- '--gfx1100\$' $fb.list"
"$offkit" check "$lib" --device "$devices"
read -r ot om < <(measure "$offkit" check "$lib" --device "$devices")
read -r lt lm < <(measure bash -c "$llvm_cmd")
rm -f "$fb" "$fb.list"
echo
echo "offkit check vs llvm-objcopy-19 --dump-section + clang-offload-bundler-19 -list + grep"
echo "(median of $runs runs after sync)"
printf '%-28s %10s %10s %8s %10s %10s %8s\n' input "offkit ms" "llvm ms" ratio \
  "offkit MiB" "llvm MiB" ratio
awk -v n="HIP .so, 128 bundles, 1 GiB" -v ot="$ot" -v lt="$lt" -v om="$om" -v lm="$lm" \
  'BEGIN { printf "%-28s %10.2f %10.2f %7.1fx %10.1f %10.1f %7.1fx\n",
           n, ot / 1000, lt / 1000, lt / ot, om / 1024, lm / 1024, lm / om }'
if ((ot <= 20000)); then
  echo "goal met: check in $((ot / 1000)).$((ot % 1000 / 100)) ms (≤ 20 ms)"
else
  echo "goal MISSED: check in $((ot / 1000)).$((ot % 1000 / 100)) ms (goal ≤ 20 ms)"
fi
