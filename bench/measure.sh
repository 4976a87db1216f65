# Sourced by bench/inspect.sh and bench/check.sh (from the repository root, with $runs set):
# sets `llvm` (LLVM 19's bin directory), `work` (target/bench/inspect, shared: both use the
# generated HIP library), builds offkit in release mode as `offkit`, and defines
# `measure TOOL ARGS…`, which prints "median_us median_rss_kib" over $runs
# runs: the wall time of `/usr/bin/time -f %M TOOL ARGS…` (python's perf_counter around it,
# finer than time's own 10 ms; it includes time's fork and exec, well under a millisecond) and
# the peak RSS time reports (for a shell running several tools, the largest of them). Each run
# follows `sync`; the inputs stay in the page cache. A non-zero exit status is not an error
# (`offkit check` exits 1 when a device is missing).
llvm=/usr/lib/llvm-19/bin
work=$PWD/target/bench/inspect
mkdir -p "$work"
cargo build --release --locked -q -p offkit-cli
offkit=$PWD/target/release/offkit

measure() {
  python3 - "$runs" "$work/rss" "$@" <<'PY'
import os, subprocess, sys, time, statistics
runs, rss, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
ts, ms = [], []
for _ in range(runs):
    os.sync()
    t = time.perf_counter()
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss, *cmd],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append((time.perf_counter() - t) * 1e6)
    ms.append(int(open(rss).read().split()[-1]))
print(int(statistics.median(ts)), int(statistics.median(ms)))
PY
}
