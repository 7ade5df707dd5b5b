#!/bin/bash
# Whole-process cost of one master commit (`graphex add`), alternating
# binaries run after run on the same store, medians printed per binary.
#
#   scripts/bench_commit.sh STORE_ROOT MASTER_IDENTITY RUNS BIN [BIN...]
#
# The store comes from `graphex gen` (see scripts/bench.sh); each run adds
# one node, so the store grows by RUNS x BINs nodes. The state directory is
# a private one under /tmp, so your own freshness records are untouched.
set -euo pipefail
root=$1 identity=$2 runs=$3
shift 3
export XDG_STATE_HOME=${XDG_STATE_HOME:-/tmp/graphex-bench-state} GRAPHEX_IDENTITY=$identity
for bin in "$@"; do "$bin" --store "$root" status >/dev/null; done
for i in $(seq 1 "$runs"); do
  for bin in "$@"; do
    s=$(date +%s%N)
    "$bin" --store "$root" add --name "bench-$(basename "$bin")-$i-$RANDOM" --type convention \
      --tier agent-readable --description "bench node" >/dev/null
    e=$(date +%s%N)
    echo "$bin $(((e - s) / 1000000))"
  done
done | sort -k1,1 -k2,2n | awk '
  { t[$1] = t[$1] " " $2; n[$1]++; v[$1, n[$1]] = $2 }
  END { for (b in n) printf "%s: median %d ms (runs:%s)\n", b, v[b, int((n[b] + 1) / 2)], t[b] }'
