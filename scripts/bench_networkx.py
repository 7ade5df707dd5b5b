#!/usr/bin/env python3
"""Times NetworkX on the traversal workload that the graphex example
`traversal_workload` wrote (same graph, same centres, same pairs), so the two
can be compared as ratios. Usage: bench_networkx.py OUT_DIR"""
import json
import statistics
import sys
import time

import networkx as nx


def main(out):
    t = time.perf_counter()
    g = nx.DiGraph()
    with open(f"{out}/edges.tsv") as f:
        for line in f:
            a, rel, b = line.rstrip("\n").split("\t")
            g.add_edge(a, b, relation=rel)
    u = g.to_undirected(as_view=True)
    load_ms = (time.perf_counter() - t) * 1e3
    centers = [c.strip() for c in open(f"{out}/centers.txt") if c.strip()]
    pairs = [tuple(l.rstrip("\n").split("\t")) for l in open(f"{out}/pairs.tsv") if l.strip()]
    hood = []
    for c in centers:
        t = time.perf_counter()
        if c in u:
            nx.single_source_shortest_path_length(u, c, cutoff=2)
        hood.append((time.perf_counter() - t) * 1e6)
    paths, found = [], 0
    for a, b in pairs:
        t = time.perf_counter()
        try:
            nx.shortest_path(u, a, b)
            found += 1
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            pass
        paths.append((time.perf_counter() - t) * 1e6)
    print(json.dumps({
        "tool": "networkx " + nx.__version__,
        "nodes": g.number_of_nodes(),
        "edges": g.number_of_edges(),
        "load_ms": round(load_ms, 1),
        "two_hop_median_us": round(statistics.median(hood), 1),
        "path_median_us": round(statistics.median(paths), 1),
        "paths_found": found,
    }))


if __name__ == "__main__":
    main(sys.argv[1])
