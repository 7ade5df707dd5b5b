#!/usr/bin/env bash
# What a store costs in git, whole process: the store's size (graph.db per
# node, the blob files, the largest directory), then for its blobs fanned
# out (objects/ab/cdef…, today's layout) and kept flat (objects/abcdef…,
# as versions before `graphex migrate` kept them; made here by moving the
# same files), `git add -A` + commit of the fresh store, `git status` of the
# clean tree (median of 5), and a clone (`git clone --no-local`: time, and
# the size of its .git and of its work tree).
#
#   scripts/bench_git.sh STORE_DIR [NODES]
#
# STORE_DIR is a store's root (the directory holding .gpp), e.g. one made by
# `graphex gen`; it is copied, never changed. `scripts/bench_bulk.sh` runs
# this on the store of its first run.
set -euo pipefail
store=$(realpath "$1")
nodes=${2:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/graphex-bench-git.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git_q=(git -c user.name=bench -c user.email=bench@example.com -c commit.gpgsign=false)

# Wall seconds of a command (which must succeed).
secs() {
    /usr/bin/time -f "%e" -o "$work/t" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    cat "$work/t"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mb() { du -s --block-size=1M "$1" | cut -f1; }
apparent_mb() { du -s --apparent-size --block-size=1M "$1" | cut -f1; }

db="$store/.gpp/graphex/graph.db"
db_bytes=$(stat -c %s "$db")
blobs=$(find "$store/.gpp/objects" -type f -name '[0-9a-f]*' | wc -l)
echo "== $store: graph.db $((db_bytes / 1048576)) MB${nodes:+, $((db_bytes / nodes)) bytes per node}; $blobs blob files"

for layout in fanned flat; do
    repo="$work/$layout"
    cp -r "$store" "$repo"
    objects="$repo/.gpp/objects"
    if [[ $layout == flat ]]; then
        for sub in "$objects"/??; do
            [[ -d $sub ]] || continue
            p=$(basename "$sub")
            for f in "$sub"/*; do mv "$f" "$objects/$p$(basename "$f")"; done
            rmdir "$sub"
        done
    else
        for f in "$objects"/[0-9a-f]*; do
            [[ -f $f ]] || continue
            n=$(basename "$f")
            mkdir -p "$objects/${n:0:2}"
            mv "$f" "$objects/${n:0:2}/${n:2}"
        done
    fi
    widest=$( { find "$objects" -type d | while read -r d; do find "$d" -mindepth 1 -maxdepth 1 | wc -l; done; } | sort -n | tail -1)
    "${git_q[@]}" -C "$repo" init -q
    sync
    add=$(secs "${git_q[@]}" -C "$repo" add -A)
    commit=$(secs "${git_q[@]}" -C "$repo" commit -q -m store)
    status=$(for _ in 1 2 3 4 5; do secs "${git_q[@]}" -C "$repo" status --porcelain; done | median)
    clone=$(secs "${git_q[@]}" clone -q --no-local "$repo" "$work/clone-$layout")
    printf '  %-7s largest directory %6d entries; git add -A %6.2f s, commit %5.2f s, status %5.2f s (median of 5); clone %6.2f s: .git %5d MB, work tree %5d MB on disk (%d MB apparent)\n' \
        "$layout" "$widest" "$add" "$commit" "$status" "$clone" \
        "$(mb "$work/clone-$layout/.git")" \
        "$(( $(mb "$work/clone-$layout") - $(mb "$work/clone-$layout/.git") ))" \
        "$(( $(apparent_mb "$work/clone-$layout") - $(apparent_mb "$work/clone-$layout/.git") ))"
    rm -rf "$work/clone-$layout" "$repo"
done
