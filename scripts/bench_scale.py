#!/usr/bin/env python3
"""The scaling table, measured in one run: for each size, `graphex gen` (five
edges a node), the store's size, an unlock session on it (the time to open
and verify, the session's peak and resident memory), then `status`, a 2-hop
`query --json` and `project --node` through the session, each 15 times
(whole process, medians).

Usage (from the repository): scripts/bench_scale.py [NODES ...] [--binary PATH]
Default sizes: 10000 100000 1000000; default binary target/release/graphex
(built first). Stores go under target/bench-scale/ (BENCH_DIR to change it) and
are kept until the end (see scripts/bench_bulk.sh on ext4 and deleted files).
The 1M store takes about 7.5 GB on disk, and its session's backup copy of
graph.db another 3.3 GB in $XDG_STATE_HOME/graphex.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

RUNS = 15


def main():
    args = sys.argv[1:]
    binary = None
    if "--binary" in args:
        i = args.index("--binary")
        binary = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    sizes = [int(a) for a in args] or [10_000, 100_000, 1_000_000]
    if binary is None:
        subprocess.run(["cargo", "build", "--release", "--locked"], check=True)
        binary = os.path.abspath("target/release/graphex")
    work = os.path.abspath(os.environ.get("BENCH_DIR", "target/bench-scale"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rows = [measure(binary, work, n) for n in sizes]
    print()
    print("| store | `gen` | `graph.db` (per node) | `unlock` | session peak / resident "
          "| `status` | 2-hop `query --json` | `project --node` |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['label']} | {r['gen_s']:.1f} s, {r['gen_mb']:,.0f} MB | "
              f"{r['db_mb']:,.0f} MB ({r['db_per_node']:,.0f} B) | {r['unlock_s']:.2f} s | "
              f"{r['peak_mib']:,.0f} / {r['rss_mib']:,.0f} MiB | {r['status']:.1f} ms | "
              f"{r['query']:.1f} ms | {r['project']:.1f} ms |")
    if not os.environ.get("BENCH_KEEP"):
        shutil.rmtree(work, ignore_errors=True)


def timed(cmd, env=None):
    """Wall seconds and peak memory (MB) of one process under /usr/bin/time."""
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, env=env,
                         capture_output=True, text=True, check=True)
    secs, kib = out.stderr.strip().splitlines()[-1].split()
    return float(secs), int(kib) * 1024 / 1e6


def median_ms(cmd, env):
    walls = []
    for _ in range(RUNS):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        walls.append((time.perf_counter() - t) * 1e3)
    return statistics.median(walls)


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise SystemExit(f"no {field} for process {pid}")


def measure(binary, work, nodes):
    edges = nodes * 5
    label = f"{nodes // 1000}k / {edges // 1000}k" if nodes < 1_000_000 else f"{nodes // 1_000_000}M / {edges // 1_000_000}M"
    repo = os.path.join(work, str(nodes))
    print(f"== {label}", flush=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHEX_")}
    gen_s, gen_mb = timed([binary, "gen", "--nodes", str(nodes), "--edges", str(edges), repo], env)
    db = os.path.join(repo, ".gpp", "graphex", "graph.db")
    db_bytes = os.path.getsize(db)
    identity = os.path.join(work, f"{nodes}.id")
    keyed = dict(env, GRAPHEX_PASSPHRASE="graphex-gen")
    subprocess.run([binary, "--store", repo, "keys", "export-master", identity],
                   env=keyed, check=True, capture_output=True)
    base = [binary, "--store", repo]
    subprocess.run(base + ["lock"], env=env, capture_output=True)
    t = time.perf_counter()
    out = subprocess.run(base + ["unlock", "--any-terminal", "--idle", "30m"],
                         env=dict(env, GRAPHEX_IDENTITY=identity), check=True, capture_output=True, text=True)
    unlock_s = time.perf_counter() - t
    pid = int(re.search(r"session process (\d+)", out.stdout + out.stderr).group(1))
    peak, rss = status_kib(pid, "VmHWM"), status_kib(pid, "VmRSS")
    try:
        listed = subprocess.run(base + ["list", "--type", "decision", "--tier", "agent-restricted"],
                                env=env, check=True, capture_output=True, text=True).stdout
        center = listed.splitlines()[1].split()[0]
        row = {
            "status": median_ms(base + ["status"], env),
            "query": median_ms(base + ["--json", "query", f"{center} -> * -> * --depth 2 --limit 100000"], env),
            "project": median_ms(base + ["project", "--node", center, "--tier", "agent-restricted"], env),
        }
    finally:
        subprocess.run(base + ["lock"], env=env, capture_output=True)
    row.update(label=label, gen_s=gen_s, gen_mb=gen_mb, db_mb=db_bytes / 1e6, db_per_node=db_bytes / nodes,
               unlock_s=unlock_s, peak_mib=peak / 1024, rss_mib=rss / 1024)
    print(row, flush=True)
    return row


if __name__ == "__main__":
    main()
