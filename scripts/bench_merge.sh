#!/usr/bin/env bash
# The merge of two branches of a large store, 1,000 changes each, as
# `graphex merge-driver` runs it (the figure in docs/performance.md).
#
#   scripts/bench_merge.sh [STORE_ROOT] [MASTER_IDENTITY]
#
# Defaults to the 100k-node / 500k-edge store scripts/bench.sh makes in
# target/bench-store. Copies it twice (blob files hard-linked) into
# target/bench-merge, makes the changes on each copy and times the merge
# and the first open of its result (example merge_workload); /usr/bin/time
# adds the whole run's peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
store=${1:-target/bench-store/repo}
identity=${2:-target/bench-store/master.id}
cargo build --release --locked -p graphex-engine --example merge_workload
/usr/bin/time -f "whole run: %e s, peak %M KB" \
  ./target/release/examples/merge_workload "$store" "$identity" target/bench-merge
rm -rf target/bench-merge
