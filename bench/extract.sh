#!/usr/bin/env bash
# Benchmark: `offkit inspect` and `offkit extract` on a HIP shared library as ROCm ships them —
# 128 translation units' bundles in one `.hip_fatbin` (each 4096-aligned, zero padding between,
# one `__hip_fatbin_wrapper` record per bundle in `.hipFatBinSegment`), ~1 GiB of code objects
# (2 × 4 MiB per bundle, gfx90a and gfx1030) — side by side with what a user has today:
# `llvm-objcopy --dump-section` then `clang-offload-bundler -list` / `-unbundle` (which reads
# the first bundle only), and with `cp` of the same bytes.
#
# The library is linked by clang-19 (lld) from an assembly file that `.incbin`s the generated
# bundles, as the linker lays out the objects' `.hip_fatbin` input sections. A second library
# holds 32 compressed (zstd) bundles of the same shape, for extraction by streamed
# decompression.
#
# Goals: inspect ≤ 20 ms and ≤ 16 MiB peak; extract within 1.5× `cp` of the same
# bytes and ≤ 32 MiB peak. Each measurement runs after `sync`, RUNS times (median printed);
# outputs are removed before each run, outside the timing.
#
# Usage: bench/extract.sh [RUNS]   (default 5). Needs ~4 GiB of disk under target/bench.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
llvm=/usr/lib/llvm-19/bin
work=$PWD/target/bench/extract
mkdir -p "$work"
cargo build --release --locked -q -p offkit-cli
offkit=$PWD/target/release/offkit

# gen NAME COUNT COMPRESS: bundles laid out as `.hip_fatbin`, linked into NAME.so.
gen() {
  local name=$1 count=$2 compress=$3
  [ -f "$work/$name.so" ] && return
  echo "generating $name.so ($count bundles)…" >&2
  # Real code objects (clang-19, device only) as the images' heads; each image is padded to
  # 4 MiB with random bytes, which ELF readers ignore.
  printf '#define __global__ __attribute__((global))\n__global__ void k(float *x) { x[0] = 1; }\n' >"$work/k.hip"
  for a in gfx1030 gfx90a; do
    "$llvm/clang" -x hip --offload-arch=$a -nogpulib -nogpuinc --cuda-device-only --no-gpu-bundle-output -c \
      "$work/k.hip" -o "$work/k-$a.co"
  done
  python3 - "$work" "$name" "$count" "$compress" "$offkit" <<'PY'
import os, struct, subprocess, sys
work, name, count, compress, offkit = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
ids = [b"host-x86_64-unknown-linux--", b"hipv4-amdgcn-amd-amdhsa--gfx1030", b"hipv4-amdgcn-amd-amdhsa--gfx90a"]
heads = [open(f"{work}/k-{a}.co", "rb").read() for a in ("gfx1030", "gfx90a")]
noise = os.urandom(4 << 20)
def image(i, k):
    h = heads[k - 1]
    return h + struct.pack("<II", i, k) + noise[: (4 << 20) - len(h) - 8]
def bundle(i):
    payloads = [b""] + [image(i, k) for k in (1, 2)]
    head = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids))
    size = len(head) + sum(24 + len(x) for x in ids)
    offs, off = [], size
    for p in payloads:
        off = (off + 4095) // 4096 * 4096
        offs.append(off); off += len(p)
    for x, o, p in zip(ids, offs, payloads):
        head += struct.pack("<QQQ", o, len(p), len(x)) + x
    out = bytearray(head)
    for o, p in zip(offs, payloads):
        out += b"\0" * (o - len(out)) + p
    return bytes(out)
sec = open(f"{work}/{name}.sec", "wb")
starts, pos = [], 0
for i in range(count):
    b = bundle(i)
    if compress:
        # offkit's writer: LLVM 19's CCOB v2 layout, zstd level 3.
        args = [offkit, "bundle", "--compress", "-o", f"{work}/one.ccob"]
        payloads = [b""] + [image(i, k) for k in (1, 2)]
        for k, (x, p) in enumerate(zip(ids, payloads)):
            open(f"{work}/p{k}", "wb").write(p)
            args.append(f"--target={x.decode()}={work}/p{k}")
        subprocess.run(args, check=True)
        b = open(f"{work}/one.ccob", "rb").read()
    starts.append(pos)
    sec.write(b); pos += len(b)
    pad = (-pos) % 4096
    sec.write(b"\0" * pad); pos += pad
sec.close()
with open(f"{work}/{name}.s", "w") as s:
    s.write('\t.section .hip_fatbin,"a",@progbits\n\t.p2align 12\n__fb:\n')
    s.write(f'\t.incbin "{work}/{name}.sec"\n')
    s.write('\t.section .hipFatBinSegment,"aw",@progbits\n\t.p2align 3\n')
    for o in starts:
        s.write(f"\t.long 0x48495046\n\t.long 1\n\t.quad __fb+{o}\n\t.quad 0\n")
PY
  "$llvm/clang" -shared -fuse-ld=lld "$work/$name.s" -o "$work/$name.so"
  rm -f "$work/$name.sec" "$work/one.ccob" "$work"/p?
}

# measure PRE -- TOOL ARGS… → "median_us median_rss_kib": PRE (a shell command, untimed) runs
# before each run; the wall time of `/usr/bin/time -f %M TOOL ARGS…` and its peak RSS.
measure() {
  python3 - "$runs" "$work/rss" "$@" <<'PY'
import os, subprocess, sys, time, statistics
runs, rss, pre, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[5:]
ts, ms = [], []
for _ in range(runs):
    subprocess.run(["sh", "-c", pre], check=True)
    os.sync()
    t = time.perf_counter()
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss, *cmd], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append((time.perf_counter() - t) * 1e6)
    ms.append(int(open(rss).read().split()[-1]))
print(int(statistics.median(ts)), int(statistics.median(ms)))
PY
}

line() { # name us kib [extra]
  awk -v n="$1" -v t="$2" -v m="$3" -v x="${4:-}" \
    'BEGIN { printf "  %-46s %10.1f ms %8.1f MiB  %s\n", n, t / 1000, m / 1024, x }'
}

gen plain 128 0
gen ccob 32 1
lib=$work/plain.so
out=$work/out
echo
echo "HIP library: $(du -h "$lib" | cut -f1), $("$offkit" inspect --json --no-entries "$lib" |
  grep -c '"bundle_id"') images in $("$offkit" inspect --json --no-entries "$lib" |
  grep -c '"kind": "bundle"') bundles (median of $runs runs after sync)"
read -r it im < <(measure true -- "$offkit" inspect "$lib")
line "offkit inspect" "$it" "$im"
read -r et em < <(measure "rm -rf $out" -- "$offkit" extract "$lib" -o "$out")
bytes=$(du -cb "$out" | tail -1 | cut -f1)
line "offkit extract (all images)" "$et" "$em" "$((bytes >> 20)) MiB written"
# cp of the same bytes: one file of the images' total size.
head -c "$bytes" "$lib" >"$work/same-bytes"
read -r ct cm < <(measure "rm -f $work/cp-out" -- cp "$work/same-bytes" "$work/cp-out")
line "cp of the same bytes" "$ct" "$cm"
# What a user has today: dump the section, then LLVM 19's bundler on it (first bundle only).
read -r dt dm < <(measure "rm -f $work/sec.bin" -- "$llvm/llvm-objcopy" \
  --dump-section=.hip_fatbin="$work/sec.bin" "$lib" "$work/discard.so")
line "llvm-objcopy --dump-section .hip_fatbin" "$dt" "$dm"
"$llvm/llvm-objcopy" --dump-section=.hip_fatbin="$work/sec.bin" "$lib" "$work/discard.so"
read -r lt lm < <(measure true -- "$llvm/clang-offload-bundler" -list -type=bc -input="$work/sec.bin")
seen=$("$llvm/clang-offload-bundler" -list -type=bc -input="$work/sec.bin" | wc -l)
line "clang-offload-bundler -list" "$lt" "$lm" "sees $seen entries (one bundle)"
read -r ut um < <(measure "rm -f $work/u1 $work/u2" -- "$llvm/clang-offload-bundler" -unbundle \
  -type=bc -input="$work/sec.bin" \
  -targets=hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx1030 \
  -output="$work/u1" -output="$work/u2")
line "clang-offload-bundler -unbundle (2 targets)" "$ut" "$um" "first bundle only"
rm -f "$work/sec.bin" "$work/discard.so" "$work/u1" "$work/u2" "$work/same-bytes" "$work/cp-out"

clib=$work/ccob.so
echo
echo "compressed: $(du -h "$clib" | cut -f1), $("$offkit" inspect --json --no-entries "$clib" |
  grep -c '"kind": "compressed-bundle"') compressed bundles"
read -r cit cim < <(measure true -- "$offkit" inspect "$clib")
line "offkit inspect" "$cit" "$cim"
read -r cet cem < <(measure "rm -rf $out" -- "$offkit" extract "$clib" -o "$out")
cbytes=$(du -cb "$out" | tail -1 | cut -f1)
line "offkit extract (streamed decompression)" "$cet" "$cem" "$((cbytes >> 20)) MiB written"
rm -rf "$out"

echo
ratio=$(awk -v e="$et" -v c="$ct" 'BEGIN { printf "%.2f", e / c }')
ok=1
((it <= 20000 && im <= 16384)) || ok=0
((em <= 32768)) || ok=0
awk -v r="$ratio" 'BEGIN { exit !(r <= 1.5) }' || ok=0
summary="inspect $((it / 1000)).$((it % 1000 / 100)) ms / $((im / 1024)) MiB (≤ 20 ms, ≤ 16 MiB); extract ${ratio}× cp / $((em / 1024)) MiB (≤ 1.5×, ≤ 32 MiB)"
if ((ok)); then echo "goals met: $summary"; else echo "goals MISSED: $summary"; fi
