#!/usr/bin/env bash
# Runtime latency against LLVM 19's libomptarget on the host offload target: the same clang-19
# program (bench/runtime.c) runs on /usr/lib/llvm-19/lib/libomptarget.so.19.1 and on offkit's
# (target/release/libomptarget.so.19.1), and its clang-22 build (made and run in the Debian 13
# root of scripts/setup-trixie.sh, $OFFKIT_TRIXIE_ROOT, default /opt/offkit/trixie) runs on
# offkit's libomptarget.so.22.1 (there is no LLVM 22 runtime to compare with). Each figure is the
# median over 51 rounds of 2000 operations, after a warm-up; the runtimes alternate, RUNS times
# each (default 5), and the median of each one's RUNS medians is shown, with its ratio to LLVM
# 19's.
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
runs=${1:-5}
work=$(mktemp -d)
root=${OFFKIT_TRIXIE_ROOT:-/opt/offkit/trixie}
work22=$(mktemp -d "$root/tmp/offkit-bench-XXXXXX")
trap 'rm -rf "$work" "$work22"' EXIT
inner22=${work22#"$root"}
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/lib/llvm-22/bin:/usr/bin:/bin "$@"; }

echo "building offkit-rt (release)..." >&2
cargo build -q --release -p offkit-rt
ours=$PWD/target/release
llvm=/usr/lib/llvm-19/lib
clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu bench/runtime.c -o "$work/bench"
# The clang-22 build links offkit's 22 runtime as a clang-22 user does (-L, rpath).
cp "$ours/deps/libomptarget.so.22.1" "$work22/"
ln -s libomptarget.so.22.1 "$work22/libomptarget.so"
cp bench/runtime.c "$work22/"
in_root clang -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu "$inner22/runtime.c" \
  -L"$inner22" -Wl,-rpath,"$inner22" -o "$inner22/bench"

columns() { # the median of each column
  awk '{for (i = 1; i <= NF; i++) v[i, NR] = $i} END {
    for (i = 1; i <= NF; i++) {
      n = 0; for (r = 1; r <= NR; r++) a[++n] = v[i, r]
      for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
      printf "%s%s", a[int((n + 1) / 2)], (i < NF ? " " : "\n")
    }
  }'
}
: > "$work/llvm"
: > "$work/ours"
: > "$work/ours22"
for _ in $(seq "$runs"); do
  LD_LIBRARY_PATH=$llvm "$work/bench" >> "$work/llvm"
  LD_LIBRARY_PATH=$ours:$llvm "$work/bench" >> "$work/ours"
  in_root "$inner22/bench" >> "$work/ours22"
done
read -r le lp lx < <(columns < "$work/llvm")
read -r oe op ox < <(columns < "$work/ours")
read -r te tp tx < <(columns < "$work/ours22")
printf '%-12s %10s %10s %8s %12s %8s\n' "ns/op" "LLVM 19" "offkit 19" "ratio" "offkit 22" "ratio"
for row in "empty $le $oe $te" "present $lp $op $tp" "enter+exit $lx $ox $tx"; do
  set -- $row
  awk -v n="$1" -v l="$2" -v o="$3" -v t="$4" \
    'BEGIN { printf "%-12s %10s %10s %8.3f %12s %8.3f\n", n, l, o, o / l, t, t / l }'
done
echo "(ratio: offkit's time / LLVM 19's; clang-22 build on offkit's libomptarget.so.22.1)"

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
cp "$work/startup.c" "$work22/"
in_root clang -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu "$inner22/startup.c" \
  -L"$inner22" -Wl,-rpath,"$inner22" -o "$inner22/startup"
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
: > "$work/s-llvm"
: > "$work/s-ours"
: > "$work/s-ours22"
for _ in $(seq 11); do
  LD_LIBRARY_PATH=$llvm "$work/startup" >> "$work/s-llvm"
  LD_LIBRARY_PATH=$ours:$llvm "$work/startup" >> "$work/s-ours"
  in_root "$inner22/startup" >> "$work/s-ours22"
done
field() { cut -d' ' -f"$1" < "$work/$2" | median; }
echo
printf '%-22s %10s %10s %10s\n' "100 kernels" "LLVM 19" "offkit 19" "offkit 22"
printf '%-22s %10s %10s %10s\n' "first region (us)" "$(field 1 s-llvm)" "$(field 1 s-ours)" "$(field 1 s-ours22)"
printf '%-22s %10s %10s %10s\n' "peak RSS (KiB)" "$(field 2 s-llvm)" "$(field 2 s-ours)" "$(field 2 s-ours22)"
