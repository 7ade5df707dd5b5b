#!/usr/bin/env python3
"""One-shot CLI queries, graphex against `gpp graphex query` (crates.io
gpp-cli), on the same graph.

gpp has no bulk import, so its index is filled directly in SQLite in its own
schema (its query reads only the index: names, types and relations are
plaintext there, nothing is decrypted). Both tools then answer
`X -> * -> * --depth 2` for the same centres, one process per query, and the
median wall time of each is printed.

Usage: bench_gpp.py WORKLOAD_DIR GRAPHEX_STORE GRAPHEX_IDENTITY [N]
"""
import base64
import hashlib
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

GPP_TYPES = {"service", "module", "concept", "convention", "external-system", "person",
             "policy", "schema", "glossary", "decision"}


def h(text):
    return base64.b32encode(hashlib.sha256(text.encode()).digest()).decode().lower().rstrip("=")


def build_gpp(work, repo):
    subprocess.run(["gpp", "init", "--graphex", "--no-timeline", repo], check=True, capture_output=True)
    # Opening the store once creates its schema.
    subprocess.run(["gpp", "--repo", repo, "graphex", "status"], check=True, capture_output=True)
    db = sqlite3.connect(os.path.join(repo, ".gpp", "graphex", "graph.db"))
    types = {}
    with open(f"{work}/nodes.tsv") as f:
        rows = []
        for line in f:
            name, ty = line.rstrip("\n").split("\t")
            ty = ty if ty in GPP_TYPES else "concept"
            types[name] = ty
            rows.append((h(f"{ty}:{name}"), ty, name, "public", 0, 0, 1.0, "active", h(name)))
    db.executemany("INSERT INTO graph_nodes VALUES (?,?,?,?,?,?,?,?,?)", rows)
    with open(f"{work}/edges.tsv") as f:
        rows = []
        for line in f:
            a, rel, b = line.rstrip("\n").split("\t")
            fa, tb = h(f"{types[a]}:{a}"), h(f"{types[b]}:{b}")
            rows.append((h(f"{fa}|{rel}|{tb}"), fa, tb, rel, 0, 0, 1.0, None))
    db.executemany("INSERT OR IGNORE INTO graph_edges VALUES (?,?,?,?,?,?,?,?)", rows)
    db.commit()
    db.close()


def timed(cmd, env=None):
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, env=env)
    return (time.perf_counter() - t) * 1e3, out.stdout


def main(work, store, identity, n):
    centers = [c.strip() for c in open(f"{work}/centers.txt") if c.strip()][:n]
    repo = tempfile.mkdtemp(prefix="gpp-bench-")
    build_gpp(work, repo)
    env = dict(os.environ, GRAPHEX_IDENTITY=identity)
    ours, theirs, ours_paths, their_paths = [], [], 0, 0
    for c in centers:
        ms, out = timed(["target/release/graphex", "--store", store, "--json", "query",
                         f"{c} -> * -> * --depth 2 --limit 100000"], env)
        ours.append(ms)
        ours_paths += json.loads(out)["total_results"]
        ms, out = timed(["gpp", "--repo", repo, "graphex", "query", f"{c} -> * -> *", "--depth", "2",
                         "--format", "json"])
        theirs.append(ms)
        their_paths += len(json.loads(out) or [])
    print(json.dumps({
        "queries": len(centers),
        "graphex_cli_median_ms": round(statistics.median(ours), 1),
        "gpp_cli_median_ms": round(statistics.median(theirs), 1),
        "graphex_paths": ours_paths,
        "gpp_paths": their_paths,
    }))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 50)
