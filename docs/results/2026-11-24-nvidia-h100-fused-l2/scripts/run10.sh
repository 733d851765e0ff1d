#!/bin/bash
# Device run 10: the final commit's check suite (every GPU result against the CPU) and the fused cases.
set -u
cd "$(dirname "$0")"; [ -f polymul-bench ] || gunzip -k polymul-bench.gz; chmod +x polymul-bench
O=${OUT:-/tmp/out}; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $O/summary.txt
timeout 200 ./polymul-bench check > $O/check.log 2>&1; echo "check exit $?" | tee -a $O/summary.txt
grep -v '^PASS' $O/check.log | tail -3 | tee -a $O/summary.txt
grep "lazy fused" $O/check.log | tee -a $O/summary.txt
timeout 60 ./polymul-bench profile 32 16 512 auto 2>&1 | tail -1 | tee -a $O/summary.txt
