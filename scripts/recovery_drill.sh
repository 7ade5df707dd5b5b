#!/usr/bin/env bash
# Recovery drill: open every tier-key file of a store with the `age`
# command-line tool (Debian: `apt-get install age`), no Graphex involved
# beyond exporting the master identity.
#
#   scripts/recovery_drill.sh [STORE_ROOT]
#
# Without STORE_ROOT it makes a throwaway store with known passphrases.
# With one, it asks for the passphrases as age does (GRAPHEX_PASSPHRASE is
# used to export the master identity if set). Says which tier keys opened;
# it prints no key material.
set -euo pipefail
command -v age >/dev/null || { echo "the age tool is not installed (apt-get install age)" >&2; exit 1; }
bin=${GRAPHEX_BIN:-$(dirname "$0")/../target/debug/graphex}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=${1:-}
if [ -z "$root" ]; then
  root="$work/store"
  GRAPHEX_PASSPHRASE=drill-master GRAPHEX_HUMAN_PASSPHRASE=drill-human GRAPHEX_TEST_KDF_LOG_N=10 \
    "$bin" init "$root" >/dev/null 2>&1
  export GRAPHEX_PASSPHRASE=drill-master
fi
keys="$root/.gpp/graphex/keys"
# Reads a tier-key file's text on stdin: the header, the tier, a 256-bit key.
opened() {
  local text; text=$(cat)
  if [ "$(sed -n 1p <<<"$text")" = "graphex tier key v1" ] && [ "$(sed -n 2p <<<"$text")" = "tier: $1" ] \
     && grep -Eq '^key: [0-9a-f]{64}$' <<<"$text"; then
    echo "$1: opened with age"
  else
    echo "$1: NOT a tier key" >&2; exit 1
  fi
}
"$bin" --store "$root" keys export-master "$work/master.id" >/dev/null
for tier in agent-readable agent-restricted; do
  age -d -i "$work/master.id" "$keys/$tier.age" | opened "$tier"
done
age -d -i "$work/master.id" "$keys/human-only.age" > "$work/human-only.inner.age"
if [ -z "${1:-}" ]; then
  # age reads a passphrase from the terminal only; feed it through one.
  script -qc "age -d -o $work/human.txt $work/human-only.inner.age" /dev/null <<< "drill-human" >/dev/null
  opened human-only < "$work/human.txt"
else
  age -d "$work/human-only.inner.age" | opened human-only
fi
opened public < "$keys/public.key"
