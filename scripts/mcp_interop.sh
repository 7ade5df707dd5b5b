#!/usr/bin/env bash
# Runs scripts/mcp_interop.py (the official Python MCP SDK as an independent
# client) against `graphex mcp` on a fresh demo store. The virtualenv is kept
# in target/ so later runs skip the install.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/mcp-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "mcp==2.3.0"
fi
cargo build --locked --quiet
store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT
export GRAPHEX_TEST_KDF_LOG_N=4
export GRAPHEX_STATE_DIR="$store/state" INTEROP_REVIEWER_PASSPHRASE=graphex-demo
target/debug/graphex demo "$store" --no-console >/dev/null
GRAPHEX_PASSPHRASE=graphex-demo target/debug/graphex --store "$store" keys export-agent "$store/agent.id" >/dev/null 2>&1
"$venv/bin/python" scripts/mcp_interop.py "$PWD/target/debug/graphex" "$store" "$store/agent.id"
