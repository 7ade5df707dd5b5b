#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) and prints, per target,
# the executions, coverage, corpus size and crashes libFuzzer reported.
#
#   scripts/fuzz_all.sh [SECONDS]
#
# Needs the nightly toolchain and cargo-fuzz (cargo install cargo-fuzz).
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
targets=$(sed -n 's/^name = "\(.*\)"/\1/p' fuzz/Cargo.toml | grep -v -e graphex-fuzz -e write_seeds)
cargo +nightly fuzz build >/dev/null 2>&1 || { echo "build failed: run cargo +nightly fuzz build" >&2; exit 1; }
for t in $targets; do
  mkdir -p "fuzz/corpus/$t"
  log="fuzz/target/$t.log"
  cargo +nightly fuzz run "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- -max_total_time="$secs" >"$log" 2>&1
  code=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.*corp: \([0-9]*\).*/\1/p' <<<"$last")
  crashes=$(ls "fuzz/artifacts/$t" 2>/dev/null | wc -l)
  echo "$t: ${execs:-?} execs in ${secs}s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, crashes ${crashes} (exit $code)"
done
