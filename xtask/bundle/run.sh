#!/bin/bash
# Runs the polymul GPU bundle: checks, then benchmarks. Results go to ${OUT:-./out}.
set -u
cd "$(dirname "$0")"
out=${OUT:-./out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/nvidia-smi.csv"
./polymul-bench check 2>&1 | tee "$out/check.log"; rc=${PIPESTATUS[0]}
if [ "${1:-}" != "--check-only" ]; then
  ./polymul-bench bench --out "$out" 2>"$out/bench.stderr.log" | tail -60
fi
exit $rc
