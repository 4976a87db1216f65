#!/usr/bin/env bash
# Registration-object speed and memory against LLVM 19 on the same generated images:
#   1. OpenMP: one amdgcn (gfx90a) image of N MiB
#      (offkit: `offkit wrap --kind openmp`; LLVM: `clang-linker-wrapper --override-image=openmp=`,
#       which builds the wrapper module and compiles it with its backend; its host link is
#       /bin/true)
#   2. HIP: the same image bundled and registered
#      (offkit: `offkit wrap --kind hip`; LLVM: `--override-image=hip=`, which also runs
#       clang-offload-bundler)
# Prints the median wall time of 5 runs (after sync), the peak RSS, and offkit/LLVM ratios.
# offkit streams the image from a memory map: its peak RSS is the image's mapped pages (page
# cache, no copy on the heap); LLVM holds the image as an IR constant and the object in memory.
# Measured here (64 MiB): OpenMP 0.19 s / 69 MiB vs LLVM 1.16 s / 327 MiB; HIP 0.23 s / 69 MiB vs
# 1.44 s / 264 MiB.
#
#   bench/wrap.sh [image MiB, default 256]
#   LLVM_LAYOUT_GB=1 bench/wrap.sh   also shows that GNU ld cannot link LLVM's layout with a
#                                    2 GiB + 16 MiB image (needs ~5 GB of disk, minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mib=${1:-256}
bin=/usr/lib/llvm-19/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building offkit (release)..."
cargo build -q --release -p offkit-cli
offkit="$root/target/release/offkit"

echo "generating a ${mib} MiB gfx90a image..."
cat > "$work/img.yaml" <<'EOF'
--- !ELF
FileHeader:
  Class: ELFCLASS64
  Data: ELFDATA2LSB
  OSABI: 64
  ABIVersion: 2
  Type: ET_DYN
  Machine: EM_AMDGPU
Sections:
  - Name: .text
    Type: SHT_PROGBITS
    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]
    Content: "00112233"
EOF
"$bin/yaml2obj" "$work/img.yaml" -o "$work/img"
# e_flags = EF_AMDGPU_MACH_AMDGCN_GFX90A, then random contents (not sparse: real I/O).
printf '\x3f' | dd of="$work/img" bs=1 seek=48 conv=notrunc status=none
head -c $((mib << 20)) /dev/urandom >> "$work/img"

# median wall seconds and peak RSS (KiB) of 5 runs of "$@", run in $work/run
measure() {
  local times=() rss=() i
  for i in 1 2 3 4 5; do
    rm -rf "$work/run" && mkdir "$work/run"
    sync
    /usr/bin/time -f '%e %M' -o "$work/time" bash -c 'cd "$0" && "$@" >/dev/null 2>&1' \
      "$work/run" "$@"
    read -r t m < <(tail -n 1 "$work/time")
    times+=("$t")
    rss+=("$m")
  done
  local mt mr
  mt=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
  mr=$(printf '%s\n' "${rss[@]}" | sort -n | sed -n 3p)
  echo "$mt $mr"
}

report() {
  local name=$1 o=$2 l=$3
  read -r ot om <<<"$o"
  read -r lt lm <<<"$l"
  printf '%-8s offkit %6.2fs %8d KiB | LLVM 19 %6.2fs %8d KiB | time %5.2fx  RSS %5.2fx\n' \
    "$name" "$ot" "$om" "$lt" "$lm" \
    "$(echo "$ot / ($lt + 0.001)" | bc -l)" "$(echo "$om / $lm" | bc -l)"
}

host=x86_64-pc-linux-gnu
for kind in openmp hip; do
  o=$(measure "$offkit" wrap --host-triple "$host" --kind "$kind" -o w.o \
      --image "file=$work/img,triple=amdgcn-amd-amdhsa,arch=gfx90a")
  l=$(measure "$bin/clang-linker-wrapper" --host-triple="$host" \
      --override-image="$kind=$work/img" --linker-path=/bin/true -o a.out)
  report "$kind" "$o" "$l"
done

if [ "${LLVM_LAYOUT_GB:-}" = 1 ]; then
  echo "LLVM's layout with a 2 GiB + 16 MiB image, linked by GNU ld (expect a failure):"
  truncate -s $(((2 << 30) + (16 << 20))) "$work/img"
  echo 'int main(void) { return 0; }' > "$work/main.c"
  "$bin/clang" -c "$work/main.c" -o "$work/main.o"
  "$offkit" wrap --host-triple "$host" --kind openmp --large never -o "$work/llvm-layout.o" \
    --image "file=$work/img,triple=amdgcn-amd-amdhsa,arch=gfx90a"
  if "$bin/clang" -fuse-ld=bfd "$work/main.o" "$work/llvm-layout.o" -o "$work/a.out" \
      -L/usr/lib/llvm-19/lib -lomptarget 2>"$work/ld.err"; then
    echo "  GNU ld linked it"
  else
    grep -m1 'truncated' "$work/ld.err" | sed 's/^/  /'
  fi
  rm -f "$work/llvm-layout.o" "$work/a.out"
  "$offkit" wrap --host-triple "$host" --kind openmp -o "$work/large.o" \
    --image "file=$work/img,triple=amdgcn-amd-amdhsa,arch=gfx90a"
  "$bin/clang" -fuse-ld=bfd "$work/main.o" "$work/large.o" -o "$work/a.out" \
    -L/usr/lib/llvm-19/lib -lomptarget && echo "  offkit's .lrodata layout: linked"
fi
