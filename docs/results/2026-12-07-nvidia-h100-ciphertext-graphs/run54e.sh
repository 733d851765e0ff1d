#!/bin/bash
# Issue 54, session 3, first call: goals base/new, the ciphertext section (graph replay, paired tensor forwards), GPU suites, Python device path, memcheck.
set -u
cd "$(dirname "$0")"
T0=$(date +%s); left() { echo $(( 580 - ($(date +%s) - T0) )); }
R=/tmp/r; mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; echo "base: $(cat base.commit), new: $(cat new.commit), wheel: $(cat py.commit)"; echo "commands: run54e.sh"; } | tee $R/summary.txt
step() { local name=$1 lim=$2; shift 2; local l=$(left); [ $l -lt 15 ] && { echo "SKIP $name (time)" | tee -a $R/summary.txt; return; }; [ $lim -gt $l ] && lim=$l; local t=$(date +%s); timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? in $(( $(date +%s) - t )) s" | tee -a $R/summary.txt; }
step check 120 new/polymul-bench check --only graphs,tensor,reduced --seed 61
grep -E "^FAIL|^suite |passed" $R/check.log | tail -6 | tee -a $R/summary.txt
step goals-base 60 base/polymul-bench bench --quick --only goals --out $R/goals-base
step goals-new 60 new/polymul-bench bench --quick --only goals --out $R/goals-new
step bench-ct 240 new/polymul-bench bench --quick --only ciphertext --out $R/ct
grep -E "^\| u" $R/ct/gpu.md | cut -c1-330 | tee -a $R/summary.txt
mkdir -p /tmp/pyl && python3 -m pip install --quiet --no-deps --target /tmp/pyl py/polymul-*.whl > $R/pip.log 2>&1; echo "pip rc=$?" | tee -a $R/summary.txt
export PYTHONPATH=/tmp/pyl
step pytest 90 python3 -m pytest -q -x ../crates/python/tests/test_gpu_arrays.py ../crates/python/tests/test_products.py -p no:cacheprovider
tail -4 $R/pytest.log | tee -a $R/summary.txt
step py-bench 80 python3 ../crates/python/benches/device_calls.py
tail -14 $R/py-bench.log | tee -a $R/summary.txt
step memcheck 100 compute-sanitizer --tool memcheck --error-exitcode 9 new/polymul-bench check --only tensor,reduced --seed 62
grep -E "ERROR SUMMARY|^suite |^FAIL" $R/memcheck.log | tail -4 | tee -a $R/summary.txt
tar cJf $OUT/r54e.tar.xz -C /tmp r
cp $R/summary.txt $OUT/; cp $R/ct/gpu.md $OUT/ct-gpu.md 2>/dev/null; cp $R/py-bench.log $OUT/python-device.md 2>/dev/null
