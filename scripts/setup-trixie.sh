#!/usr/bin/env bash
# Sets up the LLVM 22 oracle: a Debian 13 (trixie) root under /opt/offkit/trixie with Debian's
# clang-22, clang-tools-22, lld-22, llvm-22, llvm-22-tools (FileCheck for LLVM's lit tests) and
# libomp-22-dev (22.1.x), made with debootstrap.
# The tests run LLVM 22's tools there with `chroot`, beside offkit's faces on the same inputs
# (files under the root's /tmp are seen by both). Does nothing when the root is complete.
# Override the location with OFFKIT_TRIXIE_ROOT.
set -euo pipefail

root=${OFFKIT_TRIXIE_ROOT:-/opt/offkit/trixie}
packages=(clang-22 clang-tools-22 lld-22 llvm-22 llvm-22-tools libomp-22-dev)
stamp=$root/.offkit-complete
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
# Programs in the root need /proc (offkit finds itself through /proc/self/exe, its runtime
# loads images from /proc/self/fd, bash's <(…) uses /dev/fd): mounted after every boot.
mount_proc() {
  [ -e "$root/proc/self" ] || "${sudo[@]}" mount -t proc proc "$root/proc"
}
if [ -e "$stamp" ] && [ "$(cat "$stamp")" = "${packages[*]}" ]; then
  mount_proc
  exit 0
fi
if ! command -v debootstrap >/dev/null; then
  "$(dirname "$0")/apt-update.sh"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends debootstrap
fi
if [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "offkit setup: making the Debian 13 root $root (debootstrap, about a minute)" >&2
  "${sudo[@]}" rm -rf "$root.tmp"
  "${sudo[@]}" mkdir -p "$(dirname "$root")"
  # A mirror mid-sync fails a run now and then: try again.
  for try in 1 2 3; do
    "${sudo[@]}" debootstrap --variant=minbase trixie "$root.tmp" http://deb.debian.org/debian >/dev/null && break
    echo "offkit setup: debootstrap failed (try $try of 3)" >&2
    [ "$try" -lt 3 ] || exit 1
    "${sudo[@]}" rm -rf "$root.tmp"
    sleep $((try * 20))
  done
  "${sudo[@]}" rm -rf "$root"
  "${sudo[@]}" mv "$root.tmp" "$root"
fi
echo "offkit setup: installing ${packages[*]} in $root" >&2
for try in 1 2 3; do
  if "${sudo[@]}" chroot "$root" sh -c "apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y --no-install-recommends ${packages[*]} >/dev/null"; then
    break
  fi
  echo "offkit setup: installing in the Debian 13 root failed (try $try of 3)" >&2
  [ "$try" -lt 3 ] || exit 1
  sleep $((try * 20))
done
"${sudo[@]}" chroot "$root" apt-get clean
"${sudo[@]}" chmod 1777 "$root/tmp"
mount_proc
echo "${packages[*]}" | "${sudo[@]}" tee "$stamp" >/dev/null
