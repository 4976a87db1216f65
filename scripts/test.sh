#!/usr/bin/env bash
# Runs every offkit test: installs what is missing (scripts/setup.sh), checks formatting, lints
# and the API docs, then runs the whole workspace's tests, including the conformance tests that
# compare offkit byte for byte with LLVM 19's tools.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
# The public API of each library crate, as committed in api/ (an API change shows in review).
python3 scripts/public-api.py --check
# The runtime builds offkit-format without its default features (no zlib, zstd, MD5, object).
cargo check -p offkit-rt --locked
cargo test --workspace --locked
scripts/test-python.sh
