#!/usr/bin/env bash
# Bulk work, whole process: `graphex gen`, `export --format jsonl` of the
# generated store, and `import` of that export into a fresh store.
#
#   scripts/bench_bulk.sh [NODES] [EDGES] [RUNS] [BINARY]
#
# Defaults: 100000 nodes, 500000 edges, 3 runs, target/release/graphex (built
# when it is the default). Prints each run's wall time and peak resident set
# (`/usr/bin/time`), then the medians. The figures include process start and
# the passphrase KDFs: gen's `init` seals two passphrase files (two scrypts,
# run together) and its open unlocks both (two more); export runs with a
# master identity file (no KDF); import unlocks with the master passphrase
# (one scrypt).
#
# Then `scripts/bench_git.sh` on the first run's store: its size, and what
# git costs with its blobs fanned out and kept flat.
#
# Stores are kept until the end and removed together: ext4 without a journal
# skips inodes freed in the last minutes when it allocates new ones, so
# deleting a 100k-blob store just before a run makes that run's blob writes
# several times slower (set BENCH_KEEP=1 to keep them).
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-100000}
edges=${2:-500000}
runs=${3:-3}
bin=${4:-}
if [[ -z "$bin" ]]; then
    cargo build --release --locked
    bin=target/release/graphex
fi
bin=$(realpath "$bin")
work=$(realpath -m "${BENCH_DIR:-target/bench-bulk}")
rm -rf "$work"
mkdir -p "$work"
results="$work/results.tsv"
: >"$results"

# Runs a command under /usr/bin/time and appends "WHAT SECONDS KB" to results.
timed() {
    local what=$1
    shift
    /usr/bin/time -f "%e %M" -o "$work/time.out" "$@" >/dev/null 2>&1
    read -r secs kb <"$work/time.out"
    printf '%s\t%s\t%s\n' "$what" "$secs" "$kb" >>"$results"
    printf '  %-8s %6.2f s  %5d MB\n' "$what" "$secs" "$((kb / 1024))"
}

nproc_line="$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== bulk work: $nodes nodes, $edges edges, $runs runs ($nproc_line)"
for run in $(seq 1 "$runs"); do
    echo "run $run"
    dir="$work/run$run"
    mkdir -p "$dir"
    timed gen "$bin" gen --nodes "$nodes" --edges "$edges" "$dir/repo"
    GRAPHEX_PASSPHRASE=graphex-gen "$bin" --store "$dir/repo" keys export-master "$dir/master.id" >/dev/null
    GRAPHEX_IDENTITY="$dir/master.id" timed export \
        "$bin" --store "$dir/repo" export --format jsonl -o "$dir/export.jsonl"
    GRAPHEX_PASSPHRASE=bench GRAPHEX_HUMAN_PASSPHRASE=bench-human "$bin" init "$dir/fresh" >/dev/null
    GRAPHEX_PASSPHRASE=bench timed import \
        "$bin" --store "$dir/fresh" import --format json "$dir/export.jsonl"
done

echo "== medians of $runs runs"
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for what in gen export import; do
    secs=$(awk -F'\t' -v w="$what" '$1 == w { print $2 }' "$results" | median)
    kb=$(awk -F'\t' -v w="$what" '$1 == w { print $3 }' "$results" | median)
    printf '  %-8s %6.2f s  %5d MB (peak memory)\n' "$what" "$secs" "$((kb / 1024))"
done
echo
scripts/bench_git.sh "$work/run1/repo" "$nodes"
if [[ -z "${BENCH_KEEP:-}" ]]; then
    rm -rf "$work"/run*
fi
