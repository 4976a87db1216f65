#!/usr/bin/env bash
# Unpacks Debian's arm64 LLVM 19 OpenMP runtime (libomp, libomptarget with its host plugin, and
# the libraries they load) into /opt/offkit/arm64-libomp-19 without installing it, so that the
# tests can run aarch64 OpenMP programs under qemu-user. The packages are fetched by name with
# `apt-get download` (the arm64 architecture is added to dpkg for that) and extracted with
# `dpkg-deb -x`. Does nothing when the runtime is already there.
set -euo pipefail

dest=/opt/offkit/arm64-libomp-19
[ -e "$dest/usr/lib/llvm-19/lib/libomptarget.so.19.1" ] && exit 0

packages=(libomp5-19 libllvm19 libffi8 libedit2 libz3-4 zlib1g libzstd1 libxml2 libtinfo6 libbsd0
  libicu72 liblzma5 libmd0)
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${sudo[@]}" dpkg --add-architecture arm64
  "${sudo[@]}" apt-get update
fi
work=$(mktemp -d)
chmod a+rwx "$work" # apt-get download fetches as the _apt user
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "${packages[@]/%/:arm64}" >/dev/null)
"${sudo[@]}" mkdir -p "$dest.tmp"
for deb in "$work"/*.deb; do
  "${sudo[@]}" dpkg-deb -x "$deb" "$dest.tmp"
done
"${sudo[@]}" rm -rf "$dest"
"${sudo[@]}" mv "$dest.tmp" "$dest"
echo "offkit setup: arm64 OpenMP runtime in $dest" >&2
