#!/bin/bash
# polymul GPU bundle (made by `cargo xtask gpu-bundle`): runs on a machine with an
# NVIDIA GPU and driver, no Rust needed. Results go to ./out next to this script;
# if $OUT is set (the device tool's output folder), also packed as $OUT/results.tgz
# with gpu.md and check.log beside it.
#
#   bash run.sh              check suite, then the benchmarks
#   bash run.sh --check-only check suite only
#   bash run.sh --sanitize   also run the check suites under compute-sanitizer
#                            (memcheck, racecheck, synccheck, initcheck; or the tools
#                            in $SANITIZE_TOOLS), in parallel jobs: sanitize.sh
#   bash run.sh --cli-only   only the CLI's GPU-vs-CPU file comparison
# Exit status: non-zero if any check failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$here/out; rm -rf "$out"; mkdir -p "$out"
bench=1; sanitize=0; check=1
for a in "$@"; do case "$a" in --check-only) bench=0;; --sanitize) sanitize=1;; --cli-only) bench=0; check=0;; esac; done

# The `polymul` CLI on the GPU against `--cpu`, file for file (.npy inputs
# written with NumPy when it is there).
cli_check() {
  local d="$out/cli" cli="$here/polymul" pass=0 fail=0
  [ -x "$cli" ] || { echo "cli: no polymul binary in the bundle, skipped"; return 0; }
  mkdir -p "$d"
  python3 - "$d" <<'PY' || { echo "cli: python3 with numpy needed for the inputs, skipped"; return 0; }
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
# Below 2^29: reduced for every 30- and 62-bit prime (NTT or DGT).
for n, rows in [(4096, 3), (65536, 2)]:
    for name in ["a", "b"]:
        np.save(f"{d}/{name}{n}.npy", rng.integers(0, 2**29, size=(rows, n), dtype=np.uint64))
        np.save(f"{d}/{name}{n}_32.npy", rng.integers(0, 2**29, size=(rows, n), dtype=np.uint32))
PY
  local i=0
  while read -r args; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    if (cd "$d" && "$cli" $args -o "gpu$i.npy" && "$cli" $args --cpu -o "cpu$i.npy") > "$d/log$i.txt" 2>&1 \
       && cmp -s "$d/gpu$i.npy" "$d/cpu$i.npy"; then
      pass=$((pass + 1)); echo "PASS cli: polymul $args (GPU file == --cpu file)"
    else
      fail=$((fail + 1)); echo "FAIL cli: polymul $args: $(tail -1 "$d/log$i.txt")"
    fi
  done <<'CASES'
ntt a4096.npy --bits 62
intt a4096.npy --bits 62
mul a4096.npy b4096.npy --bits 62
mul a4096.npy b4096.npy --bits 62 --dgt
mul a4096.npy b4096.npy --bits 30 --towers 3
mul a4096_32.npy b4096_32.npy --bits 30
mul a4096_32.npy b4096_32.npy --bits 30 --dgt
mul a65536.npy b65536.npy --bits 62
mul a65536_32.npy b65536_32.npy --bits 30 --dgt
ntt a65536_32.npy --bits 30 --towers 2
CASES
  echo "cli: $pass passed, $fail failed"
  [ "$fail" = 0 ]
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/nvidia-smi.csv" 2>&1
cat "$out/nvidia-smi.csv"
rc=0
if [ "$check" = 1 ]; then
  "$here/polymul-bench" check > "$out/check.log" 2>&1 || rc=1
  grep -v '^PASS' "$out/check.log"
fi
cli_check > "$out/cli.log" 2>&1 || rc=1
grep -v '^PASS' "$out/cli.log"
if [ "$sanitize" = 1 ] && command -v compute-sanitizer >/dev/null; then
  # Every check suite under each tool, split into parallel jobs (sanitize.sh).
  bash "$here/sanitize.sh" "$out/sanitizer" || rc=1
fi
if [ "$bench" = 1 ]; then
  "$here/polymul-bench" bench --out "$out" 2>"$out/bench.stderr.log" | tail -40
fi
if [ -n "${OUT:-}" ] && [ "$OUT" != "$out" ]; then
  tar czf "$OUT/results.tgz" -C "$out" .
  cp "$out/check.log" "$OUT/" 2>/dev/null; cp "$out/gpu.md" "$OUT/" 2>/dev/null; cp "$out/cli.log" "$OUT/" 2>/dev/null
fi
exit $rc
