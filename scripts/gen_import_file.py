#!/usr/bin/env python3
"""A synthetic import file for measuring `graphex import`'s memory.

Usage: gen_import_file.py FORMAT OUT [NODES] [EDGES]

FORMAT is node-link (one JSON document), ash-jsonl (OUT is a directory:
people.jsonl, memories.jsonl, edges.jsonl) or json (our own export format,
whole JSON). Defaults: 200,000 nodes with 400-character descriptions and
400,000 edges, about 130 MB. Deterministic: the same arguments give the same
bytes.
"""
import json
import os
import sys


def words(i, n=400):
    base = f"node {i} serves the orders flow and talks to the ledger; "
    text = (base * (n // len(base) + 1))[:n]
    return text


def node_link(out, nodes, edges):
    with open(out, "w") as f:
        f.write('{"directed":true,"multigraph":false,"graph":{},"nodes":[')
        for i in range(nodes):
            if i:
                f.write(",")
            f.write(json.dumps({"id": f"node-{i:07d}", "type": "Service", "description": words(i), "owner": f"team-{i % 17}"}))
        f.write('],"links":[')
        for j in range(edges):
            if j:
                f.write(",")
            a, b = j % nodes, (j * 7 + 1) % nodes
            f.write(json.dumps({"source": f"node-{a:07d}", "target": f"node-{b:07d}", "relation": f"rel_{j // nodes}", "weight": 1.0}))
        f.write("]}\n")


def ash(out, nodes, edges):
    os.makedirs(out, exist_ok=True)
    half = nodes // 2
    with open(os.path.join(out, "people.jsonl"), "w") as f:
        for i in range(half):
            f.write(json.dumps({"id": f"p{i}", "name": f"Person {i}", "bio": words(i)}) + "\n")
    with open(os.path.join(out, "memories.jsonl"), "w") as f:
        for i in range(nodes - half):
            f.write(json.dumps({"id": f"m{i}", "content": words(i)}) + "\n")
    with open(os.path.join(out, "edges.jsonl"), "w") as f:
        for j in range(edges):
            m, p = j % (nodes - half), (j * 7 + 1) % half
            f.write(json.dumps({"id": f"e{j}", "edge_type": f"ABOUT_{j // (nodes - half)}", "source_id": f"m{m}", "target_id": f"p{p}"}) + "\n")


def native(out, nodes, edges):
    prov = {"kind": "human"}
    with open(out, "w") as f:
        f.write('{"format":"graphex-export","version":1,"exported_at":"2026-01-01T00:00:00Z","tier_cap":"agent-restricted","nodes":[')
        for i in range(nodes):
            if i:
                f.write(",")
            f.write(json.dumps({"name": f"node-{i:07d}", "type": "service", "description": words(i), "properties": {"owner": f"team-{i % 17}"},
                                "tier": "agent-restricted", "status": "active", "confidence": 1.0, "provenance": prov,
                                "created": 1767225600000, "updated": 1767225600000, "version": 1}))
        f.write('],"edges":[')
        for j in range(edges):
            if j:
                f.write(",")
            a, b = j % nodes, (j * 7 + 1) % nodes
            f.write(json.dumps({"from": f"node-{a:07d}", "relation": f"rel-{j // nodes}", "to": f"node-{b:07d}", "tier": "agent-restricted",
                                "declared_tier": "public", "confidence": 1.0, "weight": 1.0, "bidirectional": False,
                                "provenance": prov, "created": 1767225600000}))
        f.write("]}\n")


def main():
    fmt, out = sys.argv[1], sys.argv[2]
    nodes = int(sys.argv[3]) if len(sys.argv) > 3 else 200_000
    edges = int(sys.argv[4]) if len(sys.argv) > 4 else 400_000
    {"node-link": node_link, "ash-jsonl": ash, "json": native}[fmt](out, nodes, edges)


if __name__ == "__main__":
    main()
