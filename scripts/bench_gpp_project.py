#!/usr/bin/env python3
"""Projections, graphex against `gpp graphex project` (crates.io gpp-cli), on
the same content: the demo graph (assets/demo/graph.json), loaded into a gpp
repository through its CLI (Active nodes only: neither tool projects others)
and into a graphex demo store. Both are timed as one-shot CLI calls around
orders-service, at agent-readable, with a 4000-token budget.

Usage: bench_gpp_project.py [RUNS]   (run from the repository root, after a release build)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

GPP_TYPES = {"service", "module", "concept", "convention", "external-system", "person",
             "policy", "schema", "glossary", "decision"}


def run(cmd, env=None):
    return subprocess.run(cmd, check=True, capture_output=True, env=env, text=True)


def timed(cmd, env=None, n=20):
    samples, out = [], None
    for _ in range(n):
        t = time.perf_counter()
        out = run(cmd, env).stdout
        samples.append((time.perf_counter() - t) * 1e3)
    return statistics.median(samples), out


def main(n):
    graph = json.load(open("assets/demo/graph.json"))
    work = tempfile.mkdtemp(prefix="graphex-vs-gpp-")
    gpp_repo = os.path.join(work, "gpp")
    env = dict(os.environ)
    env.pop("GPP_GRAPHEX_PASSPHRASE", None)
    run(["gpp", "init", "--graphex", "--no-timeline", gpp_repo], env)
    active = {x["name"] for x in graph["nodes"] if x.get("status", "active") == "active"}
    for x in graph["nodes"]:
        if x["name"] not in active:
            continue
        ty = x["type"] if x["type"] in GPP_TYPES else "concept"
        cmd = ["gpp", "--repo", gpp_repo, "graphex", "add", "--type", ty, "--name", x["name"],
               "-d", x["description"], "--tier", x.get("tier", "public")]
        for k, v in x.get("properties", {}).items():
            cmd += ["-p", f"{k}={v}"]
        run(cmd, env)
    for e in graph["edges"]:
        if e["from"] in active and e["to"] in active:
            run(["gpp", "--repo", gpp_repo, "graphex", "link", e["from"], "--relation", e["relation"], "--to", e["to"]], env)

    ours = os.path.join(work, "graphex")
    run(["target/release/graphex", "demo", ours, "--no-console"])
    identity = os.path.join(work, "master.id")
    run(["target/release/graphex", "--store", ours, "keys", "export-master", identity],
        dict(os.environ, GRAPHEX_PASSPHRASE="graphex-demo"))
    genv = dict(os.environ, GRAPHEX_IDENTITY=identity)
    genv.pop("GRAPHEX_PASSPHRASE", None)

    gpp_ms, gpp_out = timed(["gpp", "--repo", gpp_repo, "graphex", "project", "orders-service -> * -> *",
                             "--tier", "agent-readable", "--budget", "4000"], env, n)
    our_ms, our_out = timed(["target/release/graphex", "--store", ours, "project", "--node", "orders-service",
                             "--depth", "3", "--tier", "agent-readable", "--budget", "4000",
                             "--agent", "bench"], genv, n)
    print(json.dumps({
        "runs": n,
        "gpp_project_median_ms": round(gpp_ms, 1),
        "graphex_project_median_ms": round(our_ms, 1),
        "gpp_output_chars": len(gpp_out),
        "graphex_output_chars": len(our_out),
    }))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
