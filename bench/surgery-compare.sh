#!/usr/bin/env bash
# Two offkit builds side by side on bench/surgery.sh's 1 GiB / 128-bundle HIP library, runs
# interleaved (old, new, old, new, …) so that the load of a shared machine falls on both alike:
#
#   bench/surgery-compare.sh OLD_OFFKIT NEW_OFFKIT [RUNS]   (default 5)
#
# Cases: `compress LIB -o OUT`; `prune LIB --keep gfx1030 -o P1` (the first prune); then on the
# pruned P1 (its freed bytes holes): `prune P1 --keep gfx1030 --dry-run` and `-o P2` (a second
# run). Prints the median wall time and peak RSS (/usr/bin/time) of each, and new/old ratios.
# Each run follows `sync`; the inputs stay in the page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1") new=$(realpath "$2") runs=${3:-5}
work=$PWD/target/bench/inspect
bench/gen-hip-library.sh "$work/hip"
lib=$work/hip/libhip.so
out=$(mktemp -d "$work/compare.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$new" prune "$lib" --keep gfx1030 -o "$out/p1.so" > /dev/null
cases=(
  "compress|compress $lib -o $out/c.so"
  "prune (first run)|prune $lib --keep gfx1030 -o $out/p.so"
  "prune of the pruned, --dry-run|prune $out/p1.so --keep gfx1030 --dry-run"
  "prune of the pruned, -o|prune $out/p1.so --keep gfx1030 -o $out/p2.so"
)
printf '%-34s %9s %9s %7s %9s %9s\n' case "old s" "new s" new/old "old MiB" "new MiB"
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  python3 - "$runs" "$old" "$new" "$name" $args <<'PY'
import os, subprocess, sys, time, statistics, tempfile
runs, old, new, name, args = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
res = {old: ([], []), new: ([], [])}
rss = tempfile.mktemp()
for _ in range(runs):
    for tool in (old, new):
        os.sync()
        t = time.perf_counter()
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss, tool, *args],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        res[tool][0].append(time.perf_counter() - t)
        res[tool][1].append(int(open(rss).read().split()[-1]) / 1024)
os.unlink(rss)
ot, om = statistics.median(res[old][0]), statistics.median(res[old][1])
nt, nm = statistics.median(res[new][0]), statistics.median(res[new][1])
print(f"{name:34} {ot:9.2f} {nt:9.2f} {nt/ot:6.2f}x {om:9.1f} {nm:9.1f}")
PY
done
echo "(median of $runs interleaved runs; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
