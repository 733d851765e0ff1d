#!/bin/bash
# polymul GPU bundle (made by `cargo xtask gpu-bundle`): runs on a machine with an
# NVIDIA GPU and driver, no Rust needed. Results go to ./out next to this script;
# if $OUT is set (the device tool's output folder), also packed as $OUT/results.tgz
# with gpu.md and check.log beside it.
#
#   bash run.sh              check suite, then the benchmarks
#   bash run.sh --check-only check suite only
#   bash run.sh --sanitize   also run the quick check suite under compute-sanitizer
#                            (memcheck and initcheck)
# Exit status: non-zero if any check failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out; rm -rf "$out"; mkdir -p "$out"
bench=1; sanitize=0
for a in "$@"; do case "$a" in --check-only) bench=0;; --sanitize) sanitize=1;; esac; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/nvidia-smi.csv" 2>&1
cat "$out/nvidia-smi.csv"
"$here/polymul-bench" check > "$out/check.log" 2>&1; rc=$?
grep -v '^PASS' "$out/check.log"
if [ "$sanitize" = 1 ] && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck initcheck; do
    compute-sanitizer --tool $tool --report-api-errors no "$here/polymul-bench" check --quick > "$out/$tool.log" 2>&1 || rc=1
    echo "$tool: $(grep -E 'passed, .* failed' "$out/$tool.log" | tail -1); $(grep 'ERROR SUMMARY' "$out/$tool.log" | tail -1)"
  done
fi
if [ "$bench" = 1 ]; then
  "$here/polymul-bench" bench --out "$out" 2>"$out/bench.stderr.log" | tail -40
fi
if [ -n "${OUT:-}" ] && [ "$OUT" != "$out" ]; then
  tar czf "$OUT/results.tgz" -C "$out" .
  cp "$out/check.log" "$OUT/" 2>/dev/null; cp "$out/gpu.md" "$OUT/" 2>/dev/null
fi
exit $rc
