#!/usr/bin/env bash
# Whole-process timings of two graphex binaries on copies of the same store,
# alternating, to compare a change (a restructuring, say) with the version
# before it on what users feel: open (`status`), one durable change
# (`update`), a projection with its audit write, and accepting a one-node
# proposal. Medians are left to the reader (seven runs each by default).
#
#   scripts/bench_shape.sh BEFORE_BIN AFTER_BIN STORE_ROOT MASTER_IDENTITY [RUNS]
#
# STORE_ROOT is a repository root made by `graphex gen` (copied twice, never
# changed); MASTER_IDENTITY an exported master identity of it.
set -euo pipefail
before=$1 after=$2 store=$3 identity=$4 runs=${5:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GRAPHEX_STATE_DIR=$work/state GRAPHEX_IDENTITY=$identity
cp -r "$store" "$work/b"
cp -r "$store" "$work/a"
name=$("$after" --store "$work/a" --json list | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['name'])")
t() { /usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -1; }
for side in b a; do
  bin=$before; [ "$side" = a ] && bin=$after
  "$bin" --store "$work/$side" status >/dev/null 2>&1
done
for i in $(seq "$runs"); do
  for side in b a; do
    bin=$before; [ "$side" = a ] && bin=$after
    s=$(t "$bin" --store "$work/$side" status)
    u=$(t "$bin" --store "$work/$side" update "$name" -d "bench $i $side")
    p=$(t "$bin" --store "$work/$side" project --node "$name" --trust 94.2 --agent bench)
    printf '{"agent":"bench","trust":95,"changes":[{"op":"add_node","name":"bench-%s%s","type":"convention","description":"bench"}]}' \
      "$i" "$side" > "$work/p.json"
    id=$(GRAPHEX_IDENTITY= "$bin" --store "$work/$side" --json propose "$work/p.json" 2>/dev/null |
      python3 -c "import json,sys; print(json.load(sys.stdin)['id'])")
    c=$(t "$bin" --store "$work/$side" accept "$id")
    echo "$([ "$side" = b ] && echo before || echo after) run$i status=$s update=$u project=$p accept=$c"
  done
done
