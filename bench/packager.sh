#!/usr/bin/env bash
# Benchmark: packaging 4 x 256 MiB device images with clang-offload-packager.
#
# Runs offkit's drop-in (a link named clang-offload-packager to the release build) and LLVM 19's
# tool on the same generated images, after `sync`, several times each, alternating, and prints
# the median wall time and the median peak RSS (`/usr/bin/time -f %M`) of both, and the ratios.
# Both outputs are checked to be byte-identical.
#
# Goals: offkit >= 2x faster than LLVM 19, <= 32 MiB peak memory.
#
# Usage: bench/packager.sh [RUNS] [IMAGE_MIB]      (defaults: 5 runs, 256 MiB per image)
# The scratch directory (about 3 GiB at the default size) is under $TMPDIR and is removed at
# the end.
set -euo pipefail

RUNS=${1:-5}
MIB=${2:-256}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LLVM=${OFFKIT_LLVM_PACKAGER:-/usr/lib/llvm-19/bin/clang-offload-packager}

[ -x "$LLVM" ] || { echo "error: $LLVM not found (install clang-19: scripts/setup.sh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time not found (apt-get install time)" >&2; exit 1; }

echo "building offkit (release)..." >&2
cargo build --quiet --release -p offkit-cli --manifest-path "$ROOT/Cargo.toml"
OFFKIT="$ROOT/target/release/offkit"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/offkit-bench-packager.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/bin"
ln -s "$OFFKIT" "$WORK/bin/clang-offload-packager"
OURS="$WORK/bin/clang-offload-packager"

echo "generating 4 x $MIB MiB images in $WORK..." >&2
for i in 0 1 2 3; do
  head -c $((MIB * 1048576)) /dev/urandom > "$WORK/img$i.o"
done
IMAGES=(
  --image=file=img0.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp
  --image=file=img1.o,triple=amdgcn-amd-amdhsa,arch=gfx1030,kind=openmp
  --image=file=img2.o,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=openmp
  --image=file=img3.o,triple=x86_64-pc-linux-gnu,arch=,kind=openmp
)
sync

# One timed run: prints "seconds kib".
measure() {
  local tool=$1 out=$2
  rm -f "$WORK/$out"
  sync
  (cd "$WORK" && /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$tool" -o "$out" "${IMAGES[@]}")
  cat "$WORK/time.txt"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

declare -a OT OM LT LM
for r in $(seq "$RUNS"); do
  read -r t m < <(measure "$OURS" ours.bin); OT+=("$t"); OM+=("$m")
  read -r t m < <(measure "$LLVM" llvm.bin); LT+=("$t"); LM+=("$m")
  echo "run $r: offkit ${OT[-1]} s ${OM[-1]} KiB, LLVM ${LT[-1]} s ${LM[-1]} KiB" >&2
done

if ! cmp -s "$WORK/ours.bin" "$WORK/llvm.bin"; then
  echo "error: offkit's output differs from LLVM's" >&2
  exit 1
fi

ot=$(printf '%s\n' "${OT[@]}" | median); lt=$(printf '%s\n' "${LT[@]}" | median)
om=$(printf '%s\n' "${OM[@]}" | median); lm=$(printf '%s\n' "${LM[@]}" | median)
size=$(stat -c %s "$WORK/ours.bin")

echo
echo "clang-offload-packager: 4 x $MIB MiB images -> $((size / 1048576)) MiB output, median of $RUNS runs (outputs identical)"
printf '%-28s %12s %16s\n' "" "time (s)" "peak RSS (MiB)"
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
printf '%-28s %12.3f %16.1f\n' "offkit (drop-in)" "$ot" "$(div "$om" 1024)"
printf '%-28s %12.3f %16.1f\n' "LLVM 19" "$lt" "$(div "$lm" 1024)"
printf '%-28s %11.1fx %15.1fx\n' "LLVM / offkit" "$(div "$lt" "$ot")" "$(div "$lm" "$om")"
echo "goals: >= 2.0x faster, offkit <= 32 MiB"
