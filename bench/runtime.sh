#!/usr/bin/env bash
# Runtime latency against LLVM 19's libomptarget on the host offload target: the same clang-19
# program (bench/runtime.c) runs on /usr/lib/llvm-19/lib/libomptarget.so.19.1 and on offkit's
# (target/release/libomptarget.so.19.1). Each figure is the median over 51 rounds of 2000
# operations, after a warm-up; the two runtimes alternate, RUNS times each (default 3), and the
# best median of each is shown.
#   empty      `#pragma omp target` with no data
#   present    a launch with `map(present, tofrom: buf)` of data already mapped
#   enter+exit `target enter data map(to: buf)` + `target exit data map(release: buf)`, 4 KiB
#
# Then start-up and memory: a program with 100 kernels (generated), the time of its first
# target region (which loads the image) and the process's peak RSS, medians of 11 runs each.
#
#   bench/runtime.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building offkit-rt (release)..." >&2
cargo build -q --release -p offkit-rt
ours=$PWD/target/release
llvm=/usr/lib/llvm-19/lib
clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu bench/runtime.c -o "$work/bench"

best() { # best (lowest) of the medians per column
  awk '{for (i = 1; i <= NF; i++) if (NR == 1 || $i < m[i]) m[i] = $i} END {print m[1], m[2], m[3]}'
}
: > "$work/llvm"
: > "$work/ours"
for _ in $(seq "$runs"); do
  LD_LIBRARY_PATH=$llvm "$work/bench" >> "$work/llvm"
  LD_LIBRARY_PATH=$ours:$llvm "$work/bench" >> "$work/ours"
done
read -r le lp lx < <(best < "$work/llvm")
read -r oe op ox < <(best < "$work/ours")
printf '%-12s %10s %10s %8s\n' "ns/op" "LLVM 19" "offkit" "speedup"
for row in "empty $le $oe" "present $lp $op" "enter+exit $lx $ox"; do
  set -- $row
  awk -v n="$1" -v l="$2" -v o="$3" 'BEGIN { printf "%-12s %10s %10s %7.1fx\n", n, l, o, l / o }'
done

# Start-up: 100 kernels, the first region loads the image on device 0.
{
  echo '#include <omp.h>'
  echo '#include <stdio.h>'
  echo '#include <time.h>'
  echo '#include <sys/resource.h>'
  echo 'static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }'
  for i in $(seq 100); do
    echo "int k$i(int x) { int r = 0;"
    echo "#pragma omp target map(from: r)"
    echo "  r = x * $i + !omp_is_initial_device();"
    echo "  return r; }"
  done
  echo 'int main(void) { double t0 = now(); int s = k1(1); double t1 = now();'
  for i in $(seq 2 100); do echo "  s += k$i(1);"; done
  echo '  struct rusage u; getrusage(RUSAGE_SELF, &u);'
  echo '  printf("%.0f %ld %d\n", t1 - t0, u.ru_maxrss, s); return 0; }'
} > "$work/startup.c"
clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu "$work/startup.c" -o "$work/startup"
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
: > "$work/s-llvm"
: > "$work/s-ours"
for _ in $(seq 11); do
  LD_LIBRARY_PATH=$llvm "$work/startup" >> "$work/s-llvm"
  LD_LIBRARY_PATH=$ours:$llvm "$work/startup" >> "$work/s-ours"
done
lt=$(cut -d' ' -f1 < "$work/s-llvm" | median)
ot=$(cut -d' ' -f1 < "$work/s-ours" | median)
lm=$(cut -d' ' -f2 < "$work/s-llvm" | median)
om=$(cut -d' ' -f2 < "$work/s-ours" | median)
echo
printf '%-22s %10s %10s\n' "100 kernels" "LLVM 19" "offkit"
printf '%-22s %10s %10s\n' "first region (us)" "$lt" "$ot"
printf '%-22s %10s %10s\n' "peak RSS (KiB)" "$lm" "$om"
