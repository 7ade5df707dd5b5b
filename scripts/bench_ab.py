#!/usr/bin/env python3
"""Whole-process timings of several shell commands, run in turn, run by run,
so that a noisy machine slows them alike: for each, the median, quartiles and
minimum of the wall time and the median CPU time (user + system).

Usage: bench_ab.py RUNS LABEL 'COMMAND' [LABEL 'COMMAND' ...]

Example (two builds on the same store):
  GRAPHEX_NO_SESSION=1 GRAPHEX_IDENTITY=master.id scripts/bench_ab.py 21 \
    before '/tmp/graphex-before --store repo status' \
    after 'target/release/graphex --store repo status'
"""
import resource
import statistics
import subprocess
import sys
import time



def main(runs, commands):
    wall = {label: [] for label, _ in commands}
    cpu = {label: [] for label, _ in commands}
    for _ in range(runs):
        for label, command in commands:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            wall[label].append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu[label].append(used * 1000)
    for label, _ in commands:
        v = sorted(wall[label])
        print(f"{label:14} median {statistics.median(v):7.1f} ms  p25 {v[len(v) // 4]:7.1f}  "
              f"p75 {v[3 * len(v) // 4]:7.1f}  min {v[0]:7.1f}  cpu {statistics.median(cpu[label]):7.1f} ms")


if __name__ == "__main__":
    if len(sys.argv) < 4 or len(sys.argv) % 2 != 0:
        raise SystemExit(__doc__)
    main(int(sys.argv[1]), list(zip(sys.argv[2::2], sys.argv[3::2])))
