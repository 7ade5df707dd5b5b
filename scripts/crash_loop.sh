#!/usr/bin/env bash
# Crash loop: `graphex accept` and `graphex keys rotate` killed with SIGKILL
# at random points (needs strace, on the machine image; `apt-get install
# strace` elsewhere), then the store checked. Every index row must still have
# a blob that decrypts, each proposal must be either wholly applied or still
# pending (never half), every rotation either done or not begun (the store
# opens and reads every node after each kill), and the orphan blobs and
# staged key files the kills left must be collectable.
#
#   scripts/crash_loop.sh [ITERATIONS]     (default 200 accepts, then 200 rotations)
#
# Builds the release binary; works in target/crash-loop (a real disk, where
# fsync takes time: on tmpfs the window between blobs and commit is nil).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
cargo build --release --locked -q
bin="$PWD/target/release/graphex"
work="$PWD/target/crash-loop"
rm -rf "$work"
mkdir -p "$work"
store="$work/store"
export GRAPHEX_TEST_KDF_LOG_N=10
GRAPHEX_PASSPHRASE=crash GRAPHEX_HUMAN_PASSPHRASE=crash-human "$bin" init "$store" >/dev/null 2>&1
GRAPHEX_PASSPHRASE=crash "$bin" --store "$store" keys export-master "$work/master.id" >/dev/null
export GRAPHEX_IDENTITY="$work/master.id"
g() { "$bin" --store "$store" "$@"; }
g add --type service --name base -d "the node every proposal touches" >/dev/null
# Content in every tier, with edges, for the rotations below to re-seal.
for t in agent-restricted human-only; do
  for j in $(seq 1 20); do
    GRAPHEX_HUMAN_PASSPHRASE=crash-human g add --type module --name "$t-$j" -d "$t node $j" --tier "$t" >/dev/null
    GRAPHEX_HUMAN_PASSPHRASE=crash-human g link "$t-$j" uses base >/dev/null
  done
done
for i in $(seq 1 "$n"); do
  # Each proposal: a new node, an edge to it, and a change to a shared node,
  # so an accept writes several blobs and rows in one commit.
  printf '{"agent":"crash","trust":95,"session":"loop","rationale":"r","changes":[
    {"op":"add_node","name":"crash-%d","type":"module","description":"node %d","tier":"agent-readable"},
    {"op":"add_edge","from":"base","relation":"uses","to":"crash-%d"},
    {"op":"update_node","name":"base","set":{"properties":{"last":"%d"}}}]}' "$i" "$i" "$i" "$i" > "$work/p.json"
  g propose "$work/p.json" > "$work/id-$i" 2>/dev/null
done
# Each accept is killed with SIGKILL at its K-th file system call (open,
# write, rename, fsync, truncate, unlink), K uniform over about the number an
# accept makes (~110), so the kills land everywhere: before the blobs, between
# the blobs and the index commit, inside SQLite's commit, after it. strace
# delivers the signal; K past the end lets the accept finish.
calls="openat,rename,fsync,fdatasync,pwrite64,write,unlink,ftruncate"
killed=0
for i in $(seq 1 "$n"); do
  id=$(cat "$work/id-$i")
  k=$((RANDOM % 120 + 1))
  # (strace dies by the same signal; the braces keep bash's "Killed" quiet)
  { if ! (strace -f -o /dev/null -e trace="$calls" -e inject="$calls":signal=SIGKILL:when="$k" \
      "$bin" --store "$store" accept "$id" --force >/dev/null 2>&1); then
    killed=$((killed + 1))
  fi; } 2>/dev/null
done
accepted=0; pending=0
for i in $(seq 1 "$n"); do
  id=$(cat "$work/id-$i")
  outcome=$(g --json proposal-status "$id" | python3 -c 'import json,sys; d=json.load(sys.stdin).get("decision"); print(d["outcome"] if d else "pending")')
  if g show "crash-$i" >/dev/null 2>&1; then present=1; else present=0; fi
  case "$outcome/$present" in
    accepted/1) accepted=$((accepted + 1)) ;;
    pending/0) pending=$((pending + 1)) ;;
    *) echo "proposal $i: $outcome but node present=$present: half applied" >&2; exit 1 ;;
  esac
done
# Each rotation (of the four tiers in turn) is killed at the K-th call of one
# of these file system calls, K uniform over what a rotation makes, so
# kills land while staging the key files, while rewrapping blobs, inside the
# commit, and between the commit and the renames. After each, any command
# must open the store (finishing a committed rotation) and read every node.
export GRAPHEX_HUMAN_PASSPHRASE=crash-human
nodes=$(g --json list --all | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
tiers="public agent-readable agent-restricted human-only"
declare -A span
for tier in $tiers; do
  strace -f -c -o "$work/count" -e trace="$calls" "$bin" --store "$store" keys rotate --tier "$tier" >/dev/null 2>&1
  # strace counts invocations per system call and per thread: K is drawn up
  # to the most frequent call's count, so kills spread over the whole run.
  span[$tier]=$(awk '$NF != "total" && $NF != "syscall" && $4 ~ /^[0-9]+$/ { if ($4 > m) m = $4 } END { print m }' "$work/count")
done
rot_killed=0
for i in $(seq 1 "$n"); do
  tier=$(echo $tiers | cut -d' ' -f$((i % 4 + 1)))
  s=${span[$tier]}
  k=$(( (RANDOM * 32768 + RANDOM) % (s + s / 10) + 1 ))
  { if ! (strace -f -o /dev/null -e trace="$calls" -e inject="$calls":signal=SIGKILL:when="$k" \
      "$bin" --store "$store" keys rotate --tier "$tier" >/dev/null 2>&1); then
    rot_killed=$((rot_killed + 1))
  fi; } 2>/dev/null
  seen=$(g --json list --all 2>"$work/err" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' || true)
  if [ "$seen" != "$nodes" ]; then
    echo "rotation $i ($tier, killed at call $k): the store reads $seen of $nodes nodes: $(cat "$work/err")" >&2
    exit 1
  fi
  # Every blob decrypts, the manifest and keyring verify; orphans and staged
  # files of a killed rotation are expected until collected.
  g --json doctor > "$work/doctor-$i.json" 2>/dev/null || true
  if ! python3 - "$work/doctor-$i.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = [c for c in r["checks"] if c["outcome"] != "ok" and c["name"] not in ("passphrase KDF", "orphan blobs", "key rotation")]
sys.exit(1 if bad else 0)
PY
  then
    echo "rotation $i ($tier, killed at call $k): doctor: $(cat "$work/doctor-$i.json")" >&2
    exit 1
  fi
  rm -f "$work/doctor-$i.json"
done
versions=$(g --json doctor 2>/dev/null | python3 -c 'import json,sys; print([c["detail"] for c in json.load(sys.stdin)["checks"] if c["name"]=="key rotation"][0])' || true)
# Versions gained beyond the four counting runs: rotations that committed.
committed=$(echo "$versions" | grep -o ' v[0-9]*' | tr -d ' v' | awk '{ s += $1 } END { print s - 8 }')
late=$((committed - (n - rot_killed)))
echo "$n rotations (calls of the most frequent traced system call: $(for t in $tiers; do printf '%s %s, ' "$t" "${span[$t]}"; done)each killed at a uniform K up to 110% of that), $rot_killed killed, $late of them after the commit (finished by the next command); after each the store opened and read all $nodes nodes; $versions"
before=$(ls "$store/.gpp/objects" | wc -l)
g --json doctor --collect-orphans --grace 0 > "$work/doctor.json" || true
python3 - "$work/doctor.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = [c for c in r["checks"] if c["outcome"] == "finding" and c["name"] not in ("passphrase KDF",)]
for c in r["checks"]:
    print(f'  {c["outcome"]:8} {c["name"]}: {c["detail"]}')
print(f'  orphans collected: {r["collected"]}')
sys.exit(1 if bad else 0)
PY
after=$(ls "$store/.gpp/objects" | wc -l)
echo "$n accepts, $killed killed, $accepted applied whole, $pending still pending, none half applied; orphan blob files: $((before - after)) collected ($before files before, $after after)"
