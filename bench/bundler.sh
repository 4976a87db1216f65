#!/usr/bin/env bash
# Bundler benchmark: offkit (as the drop-in `clang-offload-bundler` and as `offkit
# bundle/unbundle/list`) side by side with LLVM 19's clang-offload-bundler on the same inputs.
#
#   bench/bundler.sh [RUNS]      (default 5 interleaved rounds; medians are printed)
#
# Jobs (-type=bc):
#   bundle    4 × 256 MiB inputs into one bundle           (goal: ≤ 1.2 × `cat` of the inputs;
#             also shown: `cat` writing the same bytes after a header of the bundle's size)
#   unbundle  one 256 MiB target out of that 1 GiB bundle  (goal: ≥ 4 × faster than LLVM 19)
#   list      the IDs of that 1 GiB bundle                 (goal: ≤ 10 ms)
#   compress  libLLVM.so.19.1 + libclang-cpp.so.19.1 with -compress (goal: ≥ 1.5 × LLVM 19 with
#             identical bytes, ≥ 2 × with --threads 2), then unbundle from the result
# Peak RSS (goal: ≤ 32 MiB for the uncompressed jobs) comes from /usr/bin/time -f %M. Every
# measurement runs after `sync` and drops nothing else; the inputs stay in the page cache, as
# they would in a build.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
LLVM=/usr/lib/llvm-19/bin/clang-offload-bundler
cargo build --release -q -p offkit-cli
OFFKIT=$PWD/target/release/offkit
WORK=$(mktemp -d "${TMPDIR:-/tmp}/offkit-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/bin"
ln -s "$OFFKIT" "$WORK/bin/clang-offload-bundler"
ln -s /usr/lib/llvm-19/bin/llvm-objcopy "$WORK/bin/llvm-objcopy"
DROPIN=$WORK/bin/clang-offload-bundler
cd "$WORK"

echo "generating 4 × 256 MiB inputs in $WORK ..."
for i in 0 1 2 3; do head -c $((256 << 20)) /dev/urandom > "in$i"; done
T="-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa-gfx906,hip-amdgcn-amd-amdhsa-gfx90a,hip-amdgcn-amd-amdhsa-gfx1030"
K="--target=host-x86_64-unknown-linux-gnu-=in0 --target=hip-amdgcn-amd-amdhsa--gfx906=in1 --target=hip-amdgcn-amd-amdhsa--gfx90a=in2 --target=hip-amdgcn-amd-amdhsa--gfx1030=in3"

# Every measurement is a named command; they run in RUNS interleaved rounds (each round runs
# every command once, after `sync`), so that all tools see the same machine conditions, and
# the median wall time (ms) and median peak RSS (KiB) of each are reported.
NAMES=()
declare -A CMD MS RSS TIMES RSSES
# job NAME OUTPUT COMMAND...: OUTPUT (or -) is removed before each run of NAME, so that no
# tool pays for freeing the previous round's output (a 1 GiB file takes the filesystem up to
# half a second to free, whoever replaces it).
declare -A OUT
job() { local name=$1 out=$2; shift 2; NAMES+=("$name"); CMD[$name]="$*"; OUT[$name]=$out; }
run_rounds() {
  for r in $(seq "$RUNS"); do
    echo "  round $r/$RUNS"
    for name in "${NAMES[@]}"; do
      [ "${OUT[$name]}" = - ] || rm -f "${OUT[$name]}"
      sync
      local t0 t1
      t0=$(date +%s%N)
      # shellcheck disable=SC2086
      /usr/bin/time -f %M -o "$WORK/rss" ${CMD[$name]} > /dev/null
      t1=$(date +%s%N)
      TIMES[$name]+="$(( (t1 - t0) / 1000 )) "
      RSSES[$name]+="$(tail -1 "$WORK/rss") "
    done
  done
  for name in "${NAMES[@]}"; do
    MS[$name]=$(printf '%s\n' ${TIMES[$name]} | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
    RSS[$name]=$(printf '%s\n' ${RSSES[$name]} | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
  done
  NAMES=()
}

row() { # row JOB TOOL NAME REFERENCE
  local us=${MS[$3]} ref=${MS[$4]:-}
  local ratio=""
  [ -n "$ref" ] && ratio=$(awk -v a="$us" -v b="$ref" 'BEGIN { printf "%.2f", b / a }')
  printf '| %-10s | %-26s | %9.1f | %8.1f | %s |\n' "$1" "$2" "$(awk -v u="$us" 'BEGIN{print u/1000}')" \
    "$(awk -v k="${RSS[$3]}" 'BEGIN{print k/1024}')" "$ratio"
}

echo "bundle, unbundle, list ..."
printf '#!/bin/sh\ncat in0 in1 in2 in3 > cat.out\n' > cat.sh
# The same copy with the bundle's layout: the payloads start after the bundle header, not at
# page-aligned offsets, which makes the kernel's copy slower (each page lands in two).
# shellcheck disable=SC2086
"$OFFKIT" bundle -o probe.bc $K
HDR=$(( $(stat -c %s probe.bc) - 4 * (256 << 20) ))
rm -f probe.bc
printf '#!/bin/sh\n{ head -c %d /dev/zero; cat in0 in1 in2 in3; } > cat_hdr.out\n' "$HDR" > cat_hdr.sh
job cat cat.out sh cat.sh
job cat_hdr cat_hdr.out sh cat_hdr.sh
job b_llvm llvm.bc "$LLVM" -type=bc "$T" -input=in0 -input=in1 -input=in2 -input=in3 -output=llvm.bc
job b_dropin dropin.bc "$DROPIN" -type=bc "$T" -input=in0 -input=in1 -input=in2 -input=in3 -output=dropin.bc
job b_offkit offkit.bc "$OFFKIT" bundle -o offkit.bc $K
job u_llvm u_llvm "$LLVM" -type=bc -unbundle -targets=hip-amdgcn-amd-amdhsa-gfx90a -input=llvm.bc -output=u_llvm
job u_dropin u_dropin "$DROPIN" -type=bc -unbundle -targets=hip-amdgcn-amd-amdhsa-gfx90a -input=llvm.bc -output=u_dropin
job u_offkit u_offkit "$OFFKIT" unbundle llvm.bc --target hip-amdgcn-amd-amdhsa--gfx90a=u_offkit
job l_llvm - "$LLVM" -type=bc -list -input=llvm.bc
job l_dropin - "$DROPIN" -type=bc -list -input=llvm.bc
job l_offkit - "$OFFKIT" list llvm.bc
run_rounds
cmp llvm.bc dropin.bc && cmp llvm.bc offkit.bc && echo "  bundles identical"
cmp in2 u_llvm && cmp in2 u_dropin && cmp in2 u_offkit && echo "  payloads identical"
rm -f cat.out cat_hdr.out dropin.bc offkit.bc u_llvm u_dropin u_offkit in0 in1 in2 in3

echo "compress ..."
# Debian ships libLLVM.so.19.1 in the multiarch directory; /usr/lib/llvm-19/lib links to it only
# when llvm-19-dev is installed.
lib19() {
  local f
  for f in "/usr/lib/llvm-19/lib/$1" "/usr/lib/$(gcc -print-multiarch 2>/dev/null)/$1"; do
    [ -e "$f" ] && { readlink -f "$f"; return; }
  done
  echo "error: $1 not found (install llvm-19: scripts/setup.sh)" >&2
  exit 1
}
LIB_LLVM=$(lib19 libLLVM.so.19.1)
LIB_CLANG=$(lib19 libclang-cpp.so.19.1)
LIBS="$LIB_LLVM $LIB_CLANG"
# shellcheck disable=SC2086
ls -lL $LIBS | awk '{ printf "  %s: %.1f MiB\n", $9, $5 / 1048576 }'
CT="-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa-gfx90a"
CI="-input=$LIB_LLVM -input=$LIB_CLANG"
CK="--target=host-x86_64-unknown-linux-gnu-=$LIB_LLVM --target=hip-amdgcn-amd-amdhsa--gfx90a=$LIB_CLANG"
# The compressed input of the unbundling jobs is made first (by LLVM).
# shellcheck disable=SC2086
"$LLVM" -type=bc "$CT" $CI -output=c_in.bc -compress
job c_llvm c_llvm.bc "$LLVM" -type=bc "$CT" $CI -output=c_llvm.bc -compress
job c_dropin c_dropin.bc "$DROPIN" -type=bc "$CT" $CI -output=c_dropin.bc -compress
job c_offkit c_offkit.bc "$OFFKIT" bundle --compress -o c_offkit.bc $CK
job c_threads c_threads.bc "$OFFKIT" bundle --compress --threads 2 -o c_threads.bc $CK
job cu_llvm cu_llvm "$LLVM" -type=bc -unbundle -targets=hip-amdgcn-amd-amdhsa-gfx90a -input=c_in.bc -output=cu_llvm
job cu_dropin cu_dropin "$DROPIN" -type=bc -unbundle -targets=hip-amdgcn-amd-amdhsa-gfx90a -input=c_in.bc -output=cu_dropin
job cu_offkit cu_offkit "$OFFKIT" unbundle c_in.bc --target hip-amdgcn-amd-amdhsa--gfx90a=cu_offkit
run_rounds
cmp c_llvm.bc c_dropin.bc && cmp c_llvm.bc c_offkit.bc && echo "  compressed bundles identical (--threads 2: different bytes, by design)"
cmp cu_llvm cu_dropin && cmp cu_llvm cu_offkit && echo "  decompressed payloads identical"

echo
echo "| job        | tool                       | median ms | peak MiB | speed-up vs LLVM 19 (bundle rows: vs cat) |"
echo "|------------|----------------------------|-----------|----------|------|"
row bundle "cat (reference)" cat cat
row bundle "cat after a $HDR-byte header" cat_hdr cat
row bundle "LLVM 19" b_llvm cat
row bundle "offkit drop-in" b_dropin cat
row bundle "offkit bundle" b_offkit cat
row unbundle "LLVM 19" u_llvm u_llvm
row unbundle "offkit drop-in" u_dropin u_llvm
row unbundle "offkit unbundle" u_offkit u_llvm
row list "LLVM 19" l_llvm l_llvm
row list "offkit drop-in" l_dropin l_llvm
row list "offkit list" l_offkit l_llvm
row compress "LLVM 19" c_llvm c_llvm
row compress "offkit drop-in" c_dropin c_llvm
row compress "offkit bundle" c_offkit c_llvm
row compress "offkit bundle --threads 2" c_threads c_llvm
row "c-unbundle" "LLVM 19" cu_llvm cu_llvm
row "c-unbundle" "offkit drop-in" cu_dropin cu_llvm
row "c-unbundle" "offkit unbundle" cu_offkit cu_llvm
