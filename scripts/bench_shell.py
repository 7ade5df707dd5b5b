#!/usr/bin/env python3
"""Commands from the shell, one process each: graphex without a session,
graphex through an unlock session, and gpp-cli (when `gpp` is on PATH) on the
same graph. For each of N centres: a 2-hop query, `status` and a projection;
prints the median wall time and the median peak memory (RSS, from wait4) of
each as a Markdown table.

Usage: bench_shell.py WORKLOAD_DIR GRAPHEX_STORE GRAPHEX_IDENTITY [N]

WORKLOAD_DIR is what the example traversal_workload writes (nodes.tsv,
edges.tsv, centers.txt); scripts/bench.sh makes it.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_gpp import build_gpp  # noqa: E402

GRAPHEX = os.path.abspath("target/release/graphex")


def spawn(cmd, env):
    """Runs `cmd` with its output discarded; returns its wall milliseconds."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    t = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, env, file_actions=[
        (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, _ = os.wait4(pid, 0)
    wall = (time.perf_counter() - t) * 1e3
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return wall


def measure(cmd, env):
    """Wall milliseconds and peak RSS (MiB) of one process.

    The peak comes from a second run under /usr/bin/time: a process spawned
    from this script inherits the script's own peak in its `ru_maxrss`
    (Linux keeps the larger of the old and new address space's across
    exec), and this script holds the gpp data set. /usr/bin/time is small
    and forks, so its child's peak is the command's own."""
    wall = spawn(cmd, env)
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
        spawn(["/usr/bin/time", "-f", "%M", "-o", out.name] + cmd, env)
        kib = int(out.read().split()[-1])
    return wall, kib / 1024


def commands(store, center):
    base = [GRAPHEX, "--store", store]
    return {
        "query (2 hops)": base + ["--json", "query", f"{center} -> * -> * --depth 2 --limit 100000"],
        "status": base + ["status"],
        "project --node": base + ["project", "--node", center, "--tier", "agent-restricted"],
    }


def gpp_commands(repo, center):
    return {
        "query (2 hops)": ["gpp", "--repo", repo, "graphex", "query", f"{center} -> * -> *",
                           "--depth", "2", "--format", "json"],
        "status": ["gpp", "--repo", repo, "graphex", "status"],
    }


def run_all(centers, make, env):
    walls, peaks = {}, {}
    for c in centers:
        for name, cmd in make(c).items():
            w, m = measure(cmd, env)
            walls.setdefault(name, []).append(w)
            peaks.setdefault(name, []).append(m)
    return {k: (statistics.median(walls[k]), statistics.median(peaks[k])) for k in walls}


def main(work, store, identity, n):
    centers = [c.strip() for c in open(f"{work}/centers.txt") if c.strip()][:n]
    keyed = dict(os.environ, GRAPHEX_IDENTITY=identity)
    keyed.pop("GRAPHEX_NO_SESSION", None)
    bare = {k: v for k, v in keyed.items() if k != "GRAPHEX_IDENTITY"}
    subprocess.run([GRAPHEX, "--store", store, "lock"], env=bare, check=True, capture_output=True)
    cold = run_all(centers, lambda c: commands(store, c), keyed)
    t = time.perf_counter()
    subprocess.run([GRAPHEX, "--store", store, "unlock", "--idle", "10m"], env=keyed, check=True,
                   capture_output=True)
    unlock_s = time.perf_counter() - t
    try:
        warm = run_all(centers, lambda c: commands(store, c), bare)
    finally:
        subprocess.run([GRAPHEX, "--store", store, "lock"], env=bare, check=True, capture_output=True)
    gpp = {}
    if shutil.which("gpp"):
        repo = tempfile.mkdtemp(prefix="gpp-bench-")
        build_gpp(work, repo)
        gpp = run_all(centers, lambda c: gpp_commands(repo, c), dict(os.environ))
    print(f"{len(centers)} centres, one process per command; unlock took {unlock_s:.2f} s\n")
    print("| command | graphex, no session | graphex, session | gpp-cli | session / gpp |")
    print("|---|---|---|---|---|")
    for name in cold:
        fmt = lambda r: f"{r[0]:.1f} ms, {r[1]:.0f} MiB" if r else "n/a"  # noqa: E731
        g = gpp.get(name)
        ratio = f"{warm[name][0] / g[0]:.2f}×" if g else "n/a"
        print(f"| `{name}` | {fmt(cold[name])} | {fmt(warm[name])} | {fmt(g)} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 30)
