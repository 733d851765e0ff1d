#!/bin/bash
# Device run 19 (issue 15): latency kernels + programmatic dependent launch + graphs.
# Checks, then the latency section three ways in one call (same binary, env switches).
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
timeout 200 ./polymul-bench check --only graphs,words,lazy-fused,concurrency 2>&1 | tail -25 > $O/check.txt; grep -E "FAIL|passed" $O/check.txt | tail -12 | tee -a $S
for v in new:: nopdl:POLYMUL_PDL=0: before:POLYMUL_PDL=0:POLYMUL_LATENCY_KERNELS=0; do
  name=${v%%:*}; envs=$(echo ${v#*:} | tr ':' ' ')
  echo "== latency $name ($envs)" | tee -a $S
  env $envs timeout 150 ./polymul-bench bench --quick --only latency --out $O/lat-$name > $O/lat-$name.log 2>&1
  grep "latency u" $O/lat-$name.log | tee -a $S
done
