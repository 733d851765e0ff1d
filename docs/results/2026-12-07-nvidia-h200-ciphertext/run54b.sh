#!/bin/bash
# Issue 54, second call: suites (tensor, reduced, options incl. LazyFused::Always), memcheck, the ciphertext section with the fused column, the Python device path.
set -u
cd "$(dirname "$0")"
T0=$(date +%s); left() { echo $(( 570 - ($(date +%s) - T0) )); }
R=/tmp/r; mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; echo "new: $(cat new.commit)"; echo "commands: run54b.sh"; } | tee $R/summary.txt
step() { local name=$1 lim=$2; shift 2; local l=$(left); [ $l -lt 15 ] && { echo "SKIP $name (time)" | tee -a $R/summary.txt; return; }; [ $lim -gt $l ] && lim=$l; local t=$(date +%s); timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? in $(( $(date +%s) - t )) s" | tee -a $R/summary.txt; }
step check 150 new/polymul-bench check --only tensor,reduced,options --seed 57
grep -E "^FAIL|^suite " $R/check.log | tee -a $R/summary.txt
step memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 9 new/polymul-bench check --only tensor,reduced --seed 58
grep -E "ERROR SUMMARY|^suite |^FAIL" $R/memcheck.log | tail -4 | tee -a $R/summary.txt
step bench-ct 200 new/polymul-bench bench --quick --only ciphertext --out $R/ct
grep -E "^\| u" $R/ct/gpu.md | cut -c1-250 | tee -a $R/summary.txt
# Python: the wheel into a folder of its own, the machine's NumPy and CuPy.
mkdir -p /tmp/pyl && python3 -m pip install --quiet --no-deps --target /tmp/pyl py/polymul-*.whl > $R/pip.log 2>&1; echo "pip rc=$?" | tee -a $R/summary.txt
export PYTHONPATH=/tmp/pyl
step py-bench 120 python3 ../crates/python/benches/device_calls.py
cat $R/py-bench.log | tail -12 | tee -a $R/summary.txt
if python3 -c "import pytest" 2>/dev/null; then
  step pytest 150 python3 -m pytest -q -x ../crates/python/tests/test_gpu_arrays.py ../crates/python/tests/test_products.py -k "tensor or device_errors or cupy" -p no:cacheprovider
  tail -5 $R/pytest.log | tee -a $R/summary.txt
else echo "no pytest on the machine" | tee -a $R/summary.txt; fi
step ncu-fused 90 env POLYMUL_LAZY_FUSED=always ncu --set full -k regex:fus --launch-skip 4 --launch-count 2 new/polymul-bench profile-ciphertext 32 16 32 forward
grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Waves Per SM|Theoretical Occupancy" $R/ncu-fused.log | cut -c1-160 | head -30
tar cJf $OUT/r54b.tar.xz -C /tmp r
cp $R/summary.txt $OUT/; cp $R/ct/gpu.md $OUT/ct-gpu.md 2>/dev/null; cp $R/py-bench.log $OUT/python-device.md 2>/dev/null
