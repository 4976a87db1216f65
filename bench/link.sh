#!/usr/bin/env bash
# Linker wrapper benchmark: links a program of 200 translation units with one OpenMP target
# region each, with LLVM 19's clang-linker-wrapper and with offkit's (through
# `clang-19 -B <offkit shims>`), on the same objects:
#   - offload to x86_64;
#   - offload to x86_64 + amdgcn gfx90a (objects compiled with -nogpulib; the device runtime
#     comes from libomptarget.devicertl.a at link time);
# at --wrapper-jobs=1 and 2. Prints the median wall time of RUNS links, the median CPU time
# (user + system, of the whole process tree: the robust figure when the machine is shared),
# the peak RSS, the ratio offkit/LLVM of wall times, and the share of the time spent in the
# host `ld` (timed on its own with the files --save-temps keeps). Goal: offkit's wall time <=
# LLVM 19's at the same job count.
#
# Usage: bench/link.sh [RUNS]   (default 5; OFFKIT=path/to/offkit overrides the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
N=200
CLANG=clang-19
OFFKIT=${OFFKIT:-}
if [ -z "$OFFKIT" ]; then
  cargo build --release -q -p offkit-cli
  OFFKIT=$PWD/target/release/offkit
fi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$OFFKIT" shims "$W/shims" >/dev/null

gen() {
  mkdir -p "$W/src"
  for i in $(seq 0 $((N - 1))); do
    cat >"$W/src/k$i.c" <<EOF
int k$i(int x) {
  int r = 0;
#pragma omp target map(from: r)
  r = x + $i;
  return r;
}
EOF
  done
  {
    echo '#include <stdio.h>'
    for i in $(seq 0 $((N - 1))); do echo "int k$i(int);"; done
    echo 'int main(void) { long s = 0;'
    for i in $(seq 0 $((N - 1))); do echo "  s += k$i(1);"; done
    echo '  printf("%ld\n", s); return 0; }'
  } >"$W/src/main.c"
}

# compile CONFIG TARGETS EXTRA...: objects in $W/CONFIG/
compile() {
  local cfg=$1 targets=$2
  shift 2
  mkdir -p "$W/$cfg"
  ls "$W/src" | sed 's/\.c$//' | xargs -P "$(nproc)" -I{} \
    "$CLANG" -fopenmp -fopenmp-targets="$targets" "$@" -O2 -c "$W/src/{}.c" -o "$W/$cfg/{}.o"
}

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m}'; }

# link_once WHO CFG TARGETS JOBS LINKFLAGS... : prints "seconds maxrss_kb cpu_seconds"
link_once() {
  local who=$1 cfg=$2 targets=$3 jobs=$4
  shift 4
  local b=()
  [ "$who" = offkit ] && b=(-B "$W/shims")
  sync
  /usr/bin/time -f '%e %M %U %S' -o "$W/time" "$CLANG" "${b[@]}" -fopenmp \
    -fopenmp-targets="$targets" "$@" "$W/$cfg"/*.o -o "$W/$cfg.$who.out" -Wl,--wrapper-jobs="$jobs"
  awk '{print $1, $2, $3 + $4}' "$W/time"
}

# ld_time CFG TARGETS LINKFLAGS...: the host ld of offkit's link, timed alone (median)
ld_time() {
  local cfg=$1 targets=$2
  shift 2
  local d="$W/ld-$cfg"
  rm -rf "$d" && mkdir -p "$d"
  (cd "$d" && "$CLANG" -B "$W/shims" -fopenmp -fopenmp-targets="$targets" "$@" "$W/$cfg"/*.o \
    -o "$d/a.out" -Wl,--save-temps -Wl,--wrapper-verbose 2>"$d/log")
  local cmd
  cmd=$(grep -E '^ "[^"]*/ld" ' "$d/log" | tail -1 | sed -E 's/^ "([^"]*)"/\1/')
  for _ in $(seq "$RUNS"); do
    (cd "$d" && /usr/bin/time -f '%e' -o "$d/t" sh -c "$cmd" >/dev/null 2>&1; cat "$d/t")
  done | median
}

bench() {
  local cfg=$1 targets=$2
  shift 2
  local first=""
  for jobs in 1 2; do
    local line="$cfg jobs=$jobs"
    local t=()
    # The two wrappers alternate, run by run, so that both see the same machine (a shared VM's
    # speed drifts by tens of percent within a minute).
    : >"$W/runs.llvm"
    : >"$W/runs.offkit"
    for _ in $(seq "$RUNS"); do
      for who in llvm offkit; do
        link_once "$who" "$cfg" "$targets" "$jobs" "$@" >>"$W/runs.$who"
      done
    done
    for who in llvm offkit; do
      local med rss cpu
      med=$(awk '{print $1}' "$W/runs.$who" | median)
      rss=$(awk '{print $2}' "$W/runs.$who" | sort -n | tail -1)
      cpu=$(awk '{print $3}' "$W/runs.$who" | median)
      t+=("$med")
      line="$line  $who ${med}s (cpu ${cpu}s) ${rss}KB"
    done
    LD_LIBRARY_PATH=/usr/lib/llvm-19/lib "$W/$cfg.offkit.out" >"$W/out.offkit"
    LD_LIBRARY_PATH=/usr/lib/llvm-19/lib "$W/$cfg.llvm.out" >"$W/out.llvm"
    cmp -s "$W/out.offkit" "$W/out.llvm" || { echo "outputs differ for $cfg" >&2; exit 1; }
    echo "$line  ratio $(awk -v a="${t[1]}" -v b="${t[0]}" 'BEGIN{printf "%.2f", a/b}')"
    [ -n "$first" ] || first="${t[0]} ${t[1]}"
  done
  local ld
  ld=$(ld_time "$cfg" "$targets" "$@")
  set -- $first
  echo "$cfg host ld alone: ${ld}s = $(awk -v l="$ld" -v t="$1" 'BEGIN{printf "%.0f", 100*l/t}')% of LLVM's, $(awk -v l="$ld" -v t="$2" 'BEGIN{printf "%.0f", 100*l/t}')% of offkit's jobs=1 link"
}

gen
echo "compiling $N translation units (x86_64; x86_64 + amdgcn gfx90a)..."
compile x86 x86_64-pc-linux-gnu
AMD=(-Xopenmp-target=amdgcn-amd-amdhsa -march=gfx90a)
compile two x86_64-pc-linux-gnu,amdgcn-amd-amdhsa "${AMD[@]}" -nogpulib
echo "median of $RUNS links (wall, cpu), peak RSS; ratio = offkit / LLVM 19 wall time; load: $(cut -d" " -f1-3 /proc/loadavg)"
bench x86 x86_64-pc-linux-gnu
bench two x86_64-pc-linux-gnu,amdgcn-amd-amdhsa "${AMD[@]}"
