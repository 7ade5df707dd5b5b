#!/usr/bin/env bash
# Console benchmarks (run by scripts/bench.sh, or alone):
#
#   scripts/bench_console.sh [WORK_DIR]
#
# Uses WORK_DIR/repo (a `graphex gen` 100k-node / 500k-edge store) and
# WORK_DIR/master.id, generating them when missing, then:
# 1. criterion, in process on ratatui's TestBackend (benches/console/):
#    the first frame (the shell), the first queue frame on the demo and the
#    100k store, key to frame (j/k through update and draw), and the Graph
#    pane on the 100k store: recentre key to frame (enter, the worker's
#    neighbourhood, the reply, the frame) on a node with 50 nodes at depth
#    2, the fuzzy jump on the worker per keystroke (a name's prefixes, then
#    words only descriptions hold), and the jump dialog's keystroke on the
#    UI thread; and the Query pane on the 100k store: the editor's
#    keystroke to its highlighted frame, completion per keystroke on the
#    worker (a name's prefixes, a relation, a flag's value) and keystroke to
#    the list drawn, 2-hop results on the worker and keystroke to the table
#    drawn (group "query 100k"; alone:
#    `cargo bench --locked --bench console -- "query 100k"` with the two
#    variables below set); and the Projection pane on the 100k store: the
#    worker's previews of the three agent tiers of a node's 200-node
#    neighbourhood after a change, with the texts recorded already and with
#    new texts appended to the audit log, and the trust slider's step (`.`)
#    to frame on a 160x44 terminal (group "projection 100k"; alone:
#    `cargo bench --locked --bench console -- "projection 100k"`, likewise);
# 2. the real release binary in a pseudo-terminal (example console_timing):
#    start to first frame, start to queue frame, start to lints shown, and
#    key to redrawn card, on the demo store (as `graphex demo` opens it, and
#    with a master identity) and on the 100k store.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-${BENCH_DIR:-target/bench-store}}")
bin="$PWD/target/release/graphex"

cargo build --release --locked
mkdir -p "$work"
if [ ! -f "$work/master.id" ]; then
  rm -rf "$work/repo"
  "$bin" gen --nodes 100000 --edges 500000 "$work/repo"
  GRAPHEX_PASSPHRASE=graphex-gen "$bin" --store "$work/repo" keys export-master "$work/master.id" >/dev/null
fi

echo "== console: criterion (in process, TestBackend)"
GRAPHEX_BENCH_STORE="$work/repo" GRAPHEX_BENCH_IDENTITY="$work/master.id" \
  cargo bench --locked --bench console

echo "== console: the real binary in a pseudo-terminal"
rm -rf "$work/console-demo" "$work/demo-master.id"
"$bin" demo "$work/console-demo" --no-console >/dev/null
GRAPHEX_PASSPHRASE=graphex-demo "$bin" --store "$work/console-demo" keys export-master "$work/demo-master.id" >/dev/null
echo "-- demo store as \`graphex demo\` opens it (master passphrase, the demo's light KDF)"
cargo run --release --locked -q --example console_timing -- 10 "$bin" demo "$work/console-demo"
echo "-- demo store, master identity"
GRAPHEX_IDENTITY="$work/demo-master.id" \
  cargo run --release --locked -q --example console_timing -- 10 "$bin" --store "$work/console-demo"
echo "-- 100k store, master identity"
GRAPHEX_IDENTITY="$work/master.id" \
  cargo run --release --locked -q --example console_timing -- 5 "$bin" --store "$work/repo"
