#!/usr/bin/env bash
# `apt-get update`, tried up to three times: a Debian mirror in the middle of a sync answers
# with an index of the wrong size ("File has unexpected size ... Mirror sync in progress?") for
# a minute or so, and one such answer must not fail a fresh CI machine's set-up. When every try
# fails, apt keeps the indexes it did fetch; the install or download that follows says what is
# still missing, so this warns and goes on.
set -uo pipefail

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
for try in 1 2 3; do
  "${sudo[@]}" apt-get update && exit 0
  echo "offkit setup: apt-get update failed (try $try of 3)" >&2
  [ "$try" -lt 3 ] && sleep $((try * 20))
done
echo "offkit setup: apt-get update failed three times; going on with the indexes apt has" >&2
exit 0
