#!/bin/bash
# Device run 23 (issue 15): DGT kernels as programmatic dependents, the RNS latency row.
# Checks, sanitizers over the DGT suite, latency section now and before (switches off).
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; R=/tmp/r23; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
timeout 280 ./polymul-bench check > $R/check.txt 2>&1; grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
for tool in memcheck racecheck; do
  r=$(timeout 150 compute-sanitizer --tool $tool ./polymul-bench check --quick --only dgt --log-n 10,12 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" | tail -2 | tr '\n' ' ')
  echo "sanitizer $tool check --quick --only dgt --log-n 10,12: $r" | tee -a $S
done
./polymul-bench bench --quick --only latency --out $R/latency > $R/latency.log 2>&1
POLYMUL_PDL=0 POLYMUL_LATENCY_KERNELS=0 ./polymul-bench bench --quick --only latency --out $R/latency-before > $R/latency-before.log 2>&1
grep "latency u" $R/latency.log | tee -a $S
tar czf $O/r23.tgz -C /tmp r23
