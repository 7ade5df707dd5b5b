#!/usr/bin/env python3
"""How fast an unlock session picks up another process's commit: unlocks
STORE with IDENTITY, then N times makes a commit in a process of its own
(`add`, GRAPHEX_NO_SESSION=1) and runs `status` through the session twice
(after the commit, and again); prints the medians in milliseconds.

Usage (from the repository, after `cargo build --release`):
    bench_foreign.py STORE IDENTITY [N]
"""
import os, subprocess, sys, time, statistics, uuid
G = os.path.abspath("target/release/graphex")
store, ident = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 9
keyed = dict(os.environ, GRAPHEX_IDENTITY=ident, GRAPHEX_NO_SESSION="1")
bare = {k: v for k, v in os.environ.items() if k not in ("GRAPHEX_IDENTITY", "GRAPHEX_NO_SESSION")}
def t(cmd, env):
    s = time.perf_counter(); subprocess.run(cmd, env=env, check=True, capture_output=True); return (time.perf_counter() - s) * 1e3
subprocess.run([G, "--store", store, "lock"], env=bare, capture_output=True)
print("unlock ms", t([G, "--store", store, "unlock", "--idle", "10m"], keyed))
t([G, "--store", store, "status"], bare)
after, same, write = [], [], []
try:
    for i in range(n):
        write.append(t([G, "--store", store, "add", "-t", "service", "--name", f"foreign-{uuid.uuid4().hex[:10]}", "--description", "a foreign commit"], keyed))
        after.append(t([G, "--store", store, "status"], bare))
        same.append(t([G, "--store", store, "status"], bare))
finally:
    subprocess.run([G, "--store", store, "lock"], env=bare, capture_output=True)
print("foreign add (own process) median ms", statistics.median(write))
print("status after a foreign commit, median ms", statistics.median(after), sorted(after))
print("status again, median ms", statistics.median(same))
