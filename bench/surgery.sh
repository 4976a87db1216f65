#!/usr/bin/env bash
# Benchmarks of `offkit prune` and `offkit compress` on a HIP shared library of 128 bundles
# (bench/gen-hip-library.sh: 1 GiB of code objects for gfx90a:xnack+, gfx90a:xnack-, gfx1030 and
# gfx1100, laid out as ROCm's libraries are), against the closest thing a user has today:
#
#   prune    `offkit prune LIB --keep gfx1030 -o OUT` vs `cp LIB OUT` (goal: ≤ 1.5× cp, ≤ 64 MiB)
#   compress `offkit compress LIB -o OUT` (all cores) vs LLVM 19's `clang-offload-bundler
#            -compress` making the same 128 bundles one after another (goal: ≥ 1.8× faster on
#            2 cores), and every compressed bundle byte-identical to LLVM's
#   decompress the compressed library back (byte-identical to the original; goal ≤ 64 MiB +
#            one bundle) vs the bundler unbundling one compressed bundle 128 times; and
#            `offkit inspect` of the compressed library, 1 GiB long with its freed bytes
#            holes (goal ≤ 64 MiB)
#
# Median wall time and peak RSS of RUNS runs after `sync` (bench/measure.sh); ratios
# other/offkit (above 1: offkit is faster or smaller).
#
# Usage: bench/surgery.sh [RUNS]   (default 3). Shares target/bench/inspect/hip with
# bench/inspect.sh; writes ~2 GiB more while it runs (removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
. bench/measure.sh   # llvm, work (target/bench/inspect), offkit (built), measure

bench/gen-hip-library.sh "$work/hip"
lib=$work/hip/libhip.so
out=$work/surgery
rm -rf "$out" && mkdir -p "$out"
trap 'rm -rf "$out"' EXIT

# prune vs cp
"$offkit" prune "$lib" --keep gfx1030 -o "$out/pruned.so" | tail -1
echo "pruned: $(stat -c %s "$out/pruned.so") bytes, $(du -k "$out/pruned.so" | cut -f1) KiB on disk" \
  "(original: $(du -k "$lib" | cut -f1) KiB)"
read -r pt pm < <(measure "$offkit" prune "$lib" --keep gfx1030 -o "$out/pruned.so")
read -r ct cm < <(measure cp "$lib" "$out/copy.so")
rm -f "$out/copy.so"

# compress vs LLVM's bundler, bundle after bundle: the code objects of one bundle (the
# generator repeats the same bundle) bundled and compressed 128 times as HIP's driver does.
"$llvm/llvm-objcopy" --dump-section=.hip_fatbin="$out/fb.bin" "$lib" /dev/null
python3 - "$out/fb.bin" "$out/b0.bundle" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<Q", d, 24)[0]
pos, end = 32, 0
for _ in range(n):
    off, size, l = struct.unpack_from("<QQQ", d, pos)
    pos += 24 + l
    end = max(end, off + size)
open(sys.argv[2], "wb").write(d[:end])
PY
rm -f "$out/fb.bin"
ids=$(python3 - "$out/b0.bundle" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<Q", d, 24)[0]
pos, ids = 32, []
for _ in range(n):
    off, size, l = struct.unpack_from("<QQQ", d, pos)
    ids.append(d[pos + 24:pos + 24 + l].decode())
    pos += 24 + l
print(",".join(ids))
PY
)
inputs=()
tlist=()
for id in ${ids//,/ }; do
  if [[ $id == host-* ]]; then
    inputs+=(-input=/dev/null)
    tlist+=("$(echo "$id" | sed 's/-*$//')")
  else
    "$llvm/clang-offload-bundler" -unbundle -type=o -input="$out/b0.bundle" -targets="$id" \
      -output="$out/${id//:/_}.co"
    inputs+=("-input=$out/${id//:/_}.co")
    tlist+=("$id")
  fi
done
targets=$(IFS=,; echo "${tlist[*]}")
cat >"$out/llvm.sh" <<EOF
for i in \$(seq 1 128); do
  "$llvm/clang-offload-bundler" -type=o -bundle-align=4096 -targets=$targets ${inputs[*]} \
    -output="$out/llvm.ccob" -compress
done
EOF
"$offkit" compress "$lib" -o "$out/compressed.so" | tail -1
bash "$out/llvm.sh"
python3 - "$out/compressed.so" "$out/llvm.ccob" <<'PY'
import sys
d, want = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
n = d.count(want)
total = d.count(b"CCOB")
print(f"compressed bundles byte-identical to LLVM 19's: {n} of {total}")
sys.exit(0 if n == total == 128 else 1)
PY
read -r zt zm < <(measure "$offkit" compress "$lib" -o "$out/compressed.so")
read -r lt lm < <(measure bash "$out/llvm.sh")

# decompress vs LLVM's bundler unbundling the same compressed bundle 128 times (it decompresses
# it whole each time); inspect of the compressed file (1 GiB long, its freed bytes holes).
unb=()
for id in ${targets//,/ }; do unb+=("-output=$out/u-${id//:/_}"); done
cat >"$out/llvm-d.sh" <<EOF
for i in \$(seq 1 128); do
  "$llvm/clang-offload-bundler" -unbundle -type=o -targets=$targets -input="$out/llvm.ccob" ${unb[*]}
done
EOF
"$offkit" decompress "$out/compressed.so" -o "$out/decompressed.so" | tail -1
cmp "$lib" "$out/decompressed.so" && echo "decompressed: byte-identical to the original"
read -r dt dm < <(measure "$offkit" decompress "$out/compressed.so" -o "$out/decompressed.so")
read -r ut um < <(measure bash "$out/llvm-d.sh")
read -r it im < <(measure "$offkit" inspect "$out/compressed.so")

echo
echo "offkit prune/compress vs cp / LLVM 19's bundler (median of $runs runs after sync, $(nproc) cores)"
printf '%-44s %10s %10s %8s %10s %10s\n' case "offkit ms" "other ms" ratio "offkit MiB" "other MiB"
row() { awk -v n="$1" -v ot="$2" -v lt="$3" -v om="$4" -v lm="$5" \
  'BEGIN { printf "%-44s %10.0f %10.0f %7.2fx %10.1f %10.1f\n", n, ot/1000, lt/1000, lt/ot, om/1024, lm/1024 }'; }
row "prune --keep gfx1030 vs cp (1 GiB, 128 b.)" "$pt" "$ct" "$pm" "$cm"
row "compress vs bundler -compress ×128" "$zt" "$lt" "$zm" "$lm"
row "decompress vs bundler -unbundle ×128" "$dt" "$ut" "$dm" "$um"
row "inspect of the compressed (sparse) library" "$it" "$it" "$im" "$im"
awk -v pt="$pt" -v ct="$ct" -v pm="$pm" 'BEGIN {
  r = pt / ct; printf "prune: %.2f× cp (goal ≤ 1.5×), %.1f MiB (goal ≤ 64 MiB): %s\n", r, pm/1024,
  (r <= 1.5 && pm <= 65536) ? "goal met" : "goal MISSED" }'
awk -v zt="$zt" -v lt="$lt" 'BEGIN {
  r = lt / zt; printf "compress: %.2f× faster than LLVM 19 (goal ≥ 1.8×): %s\n", r,
  (r >= 1.8) ? "goal met" : "goal MISSED" }'
awk -v dm="$dm" -v im="$im" 'BEGIN {
  printf "decompress: %.1f MiB (goal ≤ 64 MiB + one 8 MiB bundle): %s\n", dm/1024,
  (dm <= 73728) ? "goal met" : "goal MISSED";
  printf "inspect of the compressed library: %.1f MiB (goal ≤ 64 MiB): %s\n", im/1024,
  (im <= 65536) ? "goal met" : "goal MISSED" }'
