#!/usr/bin/env bash
# Benchmark: `offkit inspect` against `llvm-objdump-19 --offloading` on the same generated inputs.
#
#   1. an object holding 1 GiB of device images (4 × 256 MiB, packaged by clang-offload-packager
#      19 and added to a host object as its .llvm.offloading section by llvm-objcopy 19);
#   2. a static archive of 2,000 fat objects (one clang-19 OpenMP object, x86_64 + amdgcn
#      gfx90a, under 2,000 member names).
#
# Goals (issue 2): the 1 GiB object in ≤ 10 ms and ≤ 16 MiB peak RSS — offkit maps the file and
# reads headers only. Each measurement runs after `sync`, RUNS times; the median wall time and
# the median peak RSS (`/usr/bin/time -f %M`) are printed for both tools, with the ratio
# objdump/offkit (above 1: offkit is faster or smaller).
#
# Usage: bench/inspect.sh [RUNS]   (default 7). Needs ~2.2 GiB of disk under target/bench.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
llvm=/usr/lib/llvm-19/bin
work=$PWD/target/bench/inspect
mkdir -p "$work"
cargo build --release --locked -q -p offkit-cli
offkit=$PWD/target/release/offkit

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

# measure TOOL ARGS… → "median_ms median_rss_kib"
measure() {
  local t=() m=() i start end rss
  for ((i = 0; i < runs; i++)); do
    sync
    start=$(date +%s%N)
    rss=$( { /usr/bin/time -f %M "$@" >/dev/null 2>/dev/null; } 2>&1 | tail -1)
    end=$(date +%s%N)
    t+=($(((end - start) / 1000)))
    m+=("$rss")
  done
  local tm mm
  tm=$(printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
  mm=$(printf '%s\n' "${m[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
  echo "$tm $mm"
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

gen_big
gen_archive
echo
echo "offkit inspect vs llvm-objdump-19 --offloading (median of $runs runs after sync)"
printf '%-28s %10s %10s %8s %10s %10s %8s\n' input "offkit ms" "objdump ms" ratio \
  "offkit MiB" "objdump MiB" ratio
row "object, 1 GiB of images" "$work/big.o"
row "archive, 2000 fat objects" "$work/fat2000.a"
read -r ot om <"$work/object, 1 GiB of images.result"
echo
if ((ot <= 10000 && om <= 16384)); then
  echo "goal met: the 1 GiB object in $((ot / 1000)).$((ot % 1000 / 100)) ms and $((om / 1024)) MiB (≤ 10 ms, ≤ 16 MiB)"
else
  echo "goal MISSED: the 1 GiB object in $((ot / 1000)).$((ot % 1000 / 100)) ms and $((om / 1024)) MiB (goal ≤ 10 ms, ≤ 16 MiB)"
fi
