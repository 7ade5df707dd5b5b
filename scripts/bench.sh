#!/usr/bin/env bash
# Benchmarks of the store on a generated 100k-node / 500k-edge graph.
#
#   scripts/bench.sh [NODES] [EDGES]
#
# 1. builds the release binary,
# 2. times `graphex gen` (bulk insert; the passphrase KDF of init is outside
#    the figure it prints),
# 3. exports a master identity and runs the criterion benchmarks of
#    src/engine/benches/{store,query,project,proposal}.rs against that store (medians in the
#    output and in target/criterion/),
# 4. compares traversals with NetworkX on the same graph and the same
#    workload (example `traversal_workload` + scripts/bench_networkx.py; it
#    installs networkx into target/bench-venv),
# 5. sends 1,000 proposals from 4 concurrent MCP clients (example mcp_load,
#    each client with its own `graphex mcp` on stdio) to a fresh demo store,
# 6. times the console (scripts/bench_console.sh: criterion in process, and
#    the real binary in a pseudo-terminal),
# 7. times key rotations (agent-readable, then public) on a copy of the store,
# 8. times a git merge of two branches of the store, 1,000 changes each
#    (scripts/bench_merge.sh),
# 9. compares one-shot CLI queries with `gpp graphex query` (crates.io gpp-cli,
#    installed into target/gpp-cli when missing) via scripts/bench_gpp.py, and
#    one-shot projections of the demo graph via scripts/bench_gpp_project.py.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-100000}
edges=${2:-500000}
work=$(realpath -m "${BENCH_DIR:-target/bench-store}")

cargo build --release --locked
rm -rf "$work"
mkdir -p "$work"
echo "== bulk insert: $nodes nodes, $edges edges"
./target/release/graphex gen --nodes "$nodes" --edges "$edges" "$work/repo"
identity="$work/master.id"  # the name scripts/bench_console.sh reuses
GRAPHEX_PASSPHRASE=graphex-gen ./target/release/graphex --store "$work/repo" keys export-master "$identity" >/dev/null
du -sh "$work/repo/.gpp/objects" "$work/repo/.gpp/graphex/graph.db"

echo "== whole-process open (status, master identity), 5 runs"
for _ in 1 2 3 4 5; do
  /usr/bin/time -f "%e s, %M KB" env GRAPHEX_IDENTITY="$identity" ./target/release/graphex --store "$work/repo" status >/dev/null
done

echo "== criterion"
GRAPHEX_BENCH_STORE="$work/repo" GRAPHEX_BENCH_IDENTITY="$identity" \
  cargo bench --locked -p graphex-engine --bench store --bench query --bench project --bench proposal

echo "== traversal workload: graphex vs NetworkX (same graph, centres and pairs)"
cargo run --release --locked -q -p graphex-engine --example traversal_workload -- \
  "$work/repo" "$identity" "$work/workload"
if [ ! -x target/bench-venv/bin/python ]; then
  python3 -m venv target/bench-venv
  target/bench-venv/bin/pip install -q networkx
fi
target/bench-venv/bin/python scripts/bench_networkx.py "$work/workload"

echo "== MCP: 1,000 proposals from 4 concurrent clients"
./target/release/graphex demo "$work/mcp-demo" --no-console >/dev/null
GRAPHEX_PASSPHRASE=graphex-demo ./target/release/graphex --store "$work/mcp-demo" keys export-agent "$work/agent.id" >/dev/null
cargo run --release --locked -q --example mcp_load -- "$work/mcp-demo" "$work/agent.id" 4 250

scripts/bench_console.sh "$work"

echo "== key rotation on a copy of the 100k store"
rm -rf "$work/rotate"
cp -a "$work/repo" "$work/rotate"
sync
for tier in agent-readable public; do
  /usr/bin/time -f "%e s, %M KB" env GRAPHEX_IDENTITY="$identity" ./target/release/graphex --store "$work/rotate" keys rotate --tier "$tier" | head -1
done
rm -rf "$work/rotate"

echo "== git merge of two branches, 1,000 changes each"
scripts/bench_merge.sh "$work/repo" "$identity"

echo "== one-shot CLI queries: graphex vs gpp graphex query (crates.io gpp-cli)"
if ! command -v gpp >/dev/null; then
  cargo install --locked --root target/gpp-cli gpp-cli
  export PATH="$PWD/target/gpp-cli/bin:$PATH"
fi
python3 scripts/bench_gpp.py "$work/workload" "$work/repo" "$identity" 30

echo "== from the shell: no session, through an unlock session, gpp-cli (one process per command)"
python3 scripts/bench_shell.py "$work/workload" "$work/repo" "$identity" 30

echo "== one-shot projections on the demo graph: graphex vs gpp graphex project"
python3 scripts/bench_gpp_project.py 20
