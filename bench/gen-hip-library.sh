#!/usr/bin/env bash
# Generates a HIP shared library laid out as a real multi-translation-unit one, for the inspect
# and check benchmarks:
#
#   bench/gen-hip-library.sh DIR [BUNDLES] [ENTRY_MIB]   → DIR/libhip.so (kept if present)
#
# Four real AMD GPU code objects (clang-19, gfx90a:xnack+, gfx90a:xnack-, gfx1030, gfx1100),
# each padded to ENTRY_MIB MiB (default 2; trailing bytes after an ELF file keep it valid), are
# bundled by LLVM 19's clang-offload-bundler as HIP's driver does (`-type=o`, host input
# /dev/null). Each of BUNDLES (default 128) translation units is an object whose `.hip_fatbin`
# section (4096-aligned, as clang emits it) holds that bundle, and whose `.hipFatBinSegment`
# holds the 24-byte `__hip_fatbin_wrapper` record pointing at it through a relocation. ld.lld-19
# links them into one shared library: BUNDLES bundles, one after the other at 4096-byte
# boundaries with zero padding between them, each repeating the same entry IDs — the layout of
# ROCm's libraries. With the defaults: 128 bundles, 512 images, 1 GiB of code objects.
set -euo pipefail
dir=$1
bundles=${2:-128}
mib=${3:-2}
llvm=/usr/lib/llvm-19/bin
out=$dir/libhip.so
[ -f "$out" ] && exit 0
mkdir -p "$dir"
gen=$(mktemp -d "$dir/gen.XXXXXX")
trap 'rm -rf "$gen"' EXIT
echo "generating $out: $bundles bundles of 4 × $mib MiB…" >&2
cat >"$gen/k.hip" <<'EOF'
#define __global__ __attribute__((global))
__global__ void kern(int *p) { p[0] = 1; }
__global__ void scale(float *x, float a) { x[0] *= a; }
EOF
targets=host-x86_64-unknown-linux-gnu
inputs=(-input=/dev/null)
for arch in gfx90a:xnack+ gfx90a:xnack- gfx1030 gfx1100; do
  co=$gen/co-${arch//:/_}.o
  "$llvm/clang" -x hip --offload-arch="$arch" -nogpulib -nogpuinc --offload-device-only \
    --no-gpu-bundle-output -c "$gen/k.hip" -o "$co"
  truncate -s "${mib}M" "$co"
  targets+=,hipv4-amdgcn-amd-amdhsa--$arch
  inputs+=("-input=$co")
done
"$llvm/clang-offload-bundler" -type=o -bundle-align=4096 -targets="$targets" "${inputs[@]}" -output="$gen/bundle.bin"
rm -f "$gen"/co-*.o
for i in $(seq 1 "$bundles"); do
  cat >"$gen/tu$i.s" <<EOF
	.section .hip_fatbin,"a",@progbits
	.p2align 12
__hip_fatbin_$i:
	.incbin "$gen/bundle.bin"
	.section .hipFatBinSegment,"aw",@progbits
	.p2align 3
__hip_fatbin_wrapper_$i:
	.long 0x48495046
	.long 1
	.quad __hip_fatbin_$i
	.quad 0
EOF
  "$llvm/clang" -c "$gen/tu$i.s" -o "$gen/tu$i.o"
  rm -f "$gen/tu$i.s"
done
"$llvm/ld.lld" -shared "$gen"/tu*.o -o "$out.tmp"
mv "$out.tmp" "$out"
