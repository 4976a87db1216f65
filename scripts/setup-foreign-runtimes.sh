#!/usr/bin/env bash
# Unpacks Debian's LLVM 19 OpenMP runtime (libomp, libomptarget with its host plugin, and the
# libraries they load) for arm64 and ppc64el into /opt/offkit/<arch>-libomp-19 without
# installing it, so that the tests can run aarch64 and ppc64le OpenMP programs under qemu-user.
# The packages are fetched by name with `apt-get download` (the architecture is added to dpkg
# for that) and extracted with `dpkg-deb -x`. Does nothing for a runtime that is already there.
set -euo pipefail

packages=(libomp5-19 libllvm19 libffi8 libedit2 libz3-4 zlib1g libzstd1 libxml2 libtinfo6 libbsd0
  libicu72 liblzma5 libmd0)
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
for arch in arm64 ppc64el; do
  dest=/opt/offkit/$arch-libomp-19
  [ -e "$dest/usr/lib/llvm-19/lib/libomptarget.so.19.1" ] && continue
  if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    "${sudo[@]}" dpkg --add-architecture "$arch"
    "$(dirname "$0")/apt-update.sh"
  fi
  work=$(mktemp -d)
  chmod a+rwx "$work" # apt-get download fetches as the _apt user
  # A download that fails (the architecture was added by a run whose update failed, or the
  # index is stale) is tried once more after a fresh update.
  if ! (cd "$work" && apt-get download "${packages[@]/%/:$arch}" >/dev/null); then
    "$(dirname "$0")/apt-update.sh"
    (cd "$work" && apt-get download "${packages[@]/%/:$arch}" >/dev/null)
  fi
  "${sudo[@]}" rm -rf "$dest.tmp"
  "${sudo[@]}" mkdir -p "$dest.tmp"
  for deb in "$work"/*.deb; do
    "${sudo[@]}" dpkg-deb -x "$deb" "$dest.tmp"
  done
  rm -rf "$work"
  "${sudo[@]}" rm -rf "$dest"
  "${sudo[@]}" mv "$dest.tmp" "$dest"
  echo "offkit setup: $arch OpenMP runtime in $dest" >&2
done
