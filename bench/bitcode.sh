#!/usr/bin/env bash
# Bitcode reader speed and memory against LLVM 19 on the same generated inputs:
#   1. extracting a 64 MiB image embedded in an -flto host object
#      (offkit: bitcode::embedded_objects + binary::parse_all, image written to a file;
#       LLVM: clang-offload-packager extraction)
#   2. reading the symbol table of a 40k-symbol bitcode module
#      (offkit: bitcode::symbol_table, names printed; LLVM: llvm-nm --no-sort)
# Prints the median wall time of 5 runs (after sync), the peak RSS, and offkit/LLVM ratios.
#   bench/bitcode.sh [image MiB]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mib=${1:-64}
bin=/usr/lib/llvm-19/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A small driver over the library, built in release mode against this checkout.
mkdir -p "$work/driver/src"
cat > "$work/driver/Cargo.toml" <<EOF
[package]
name = "bitcode-bench"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
offkit-format = { path = "$root/crates/offkit-format" }
offkit-llvm = { path = "$root/crates/offkit-llvm" }
[workspace]
EOF
cat > "$work/driver/src/main.rs" <<'EOF'
use std::io::Write;
use offkit_format::binary;
use offkit_llvm::bitcode;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data = std::fs::read(&args[2]).expect("read input");
    match args[1].as_str() {
        "embedded" => {
            let objs = bitcode::embedded_objects(&data, 0).expect("embedded objects");
            for e in &objs {
                for b in binary::parse_all(&e.data, e.offset) {
                    let b = b.expect("offload binary");
                    std::fs::write(&args[3], &b.entries[0].image).expect("write image");
                }
            }
        }
        "symbols" => {
            let t = bitcode::symbol_table(&data, 0).expect("symbol table");
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for s in &t.symbols {
                out.write_all(s.name).unwrap();
                out.write_all(b"\n").unwrap();
            }
        }
        _ => panic!("embedded FILE OUT | symbols FILE"),
    }
}
EOF
echo "building the driver (release)..."
CARGO_TARGET_DIR="$root/target/bench-bitcode" cargo build -q --release \
  --manifest-path "$work/driver/Cargo.toml"
drv="$root/target/bench-bitcode/release/bitcode-bench"

echo "generating inputs..."
head -c $((mib << 20)) /dev/urandom > "$work/image"
"$bin/clang-offload-packager" -o "$work/image.out" \
  --image=file="$work/image",triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp
echo 'int main(void) { return 0; }' > "$work/main.c"
"$bin/clang" -flto -c "$work/main.c" -o "$work/big.o" \
  -Xclang -fembed-offload-object="$work/image.out"
python3 - "$work/sym.c" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(20000):
        f.write(f"int g{i} = {i};\n")
        f.write(f"int f{i}(int x) {{ return x + g{i}; }}\n")
EOF
"$bin/clang" -flto -c "$work/sym.c" -o "$work/sym.bc"
ls -l "$work/big.o" "$work/sym.bc" | awk '{print "  " $5 " bytes  " $9}'

# median wall seconds and peak RSS (KiB) of 5 runs of "$@"
measure() {
  local times=() rss=0
  for _ in 1 2 3 4 5; do
    sync
    local t0 t1 r
    t0=$(date +%s.%N)
    /usr/bin/time -f %M -o "$work/rss" "$@" > /dev/null 2>&1
    t1=$(date +%s.%N)
    r=$(tail -1 "$work/rss")
    times+=("$(echo "$t1 - $t0" | bc)")
    (( r > rss )) && rss=$r
  done
  local med
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
  echo "$med $rss"
}

report() {
  local name=$1 ours=$2 theirs=$3
  read -r ot orss <<< "$ours"
  read -r lt lrss <<< "$theirs"
  printf '%-22s offkit %8.3fs %8d KiB | LLVM 19 %8.3fs %8d KiB | time x%.2f  rss x%.2f\n' \
    "$name" "$ot" "$orss" "$lt" "$lrss" "$(echo "$ot / $lt" | bc -l)" \
    "$(echo "$orss / $lrss" | bc -l)"
}

# Both write the extracted image; check they agree once.
"$drv" embedded "$work/big.o" "$work/ours.img"
"$bin/clang-offload-packager" "$work/big.o" \
  --image=file="$work/theirs.img",triple=x86_64-pc-linux-gnu
cmp "$work/ours.img" "$work/image"
cmp "$work/theirs.img" "$work/image"

ours=$(measure "$drv" embedded "$work/big.o" "$work/ours.img")
theirs=$(measure "$bin/clang-offload-packager" "$work/big.o" \
  --image=file="$work/theirs.img",triple=x86_64-pc-linux-gnu)
report "extract ${mib} MiB image" "$ours" "$theirs"

ours=$(measure "$drv" symbols "$work/sym.bc")
theirs=$(measure "$bin/llvm-nm" --no-sort "$work/sym.bc")
report "symbols (40k)" "$ours" "$theirs"
