#!/bin/bash
# Device run 20 (issue 15): latency fused kernels (one launch per transform), PDL, graphs.
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
timeout 220 ./polymul-bench check --only graphs,words,lazy-fused,concurrency > $O/check.txt 2>&1; grep -E "^FAIL|passed" $O/check.txt | tail -12 | tee -a $S
for v in new:: twolaunch:POLYMUL_LATENCY_FUSED=0: pdlgraph:POLYMUL_PDL_GRAPH=1: before:POLYMUL_PDL=0:POLYMUL_LATENCY_KERNELS=0; do
  name=${v%%:*}; envs=$(echo ${v#*:} | tr ':' ' ')
  echo "== latency $name ($envs)" | tee -a $S
  env $envs timeout 150 ./polymul-bench bench --quick --only latency --out $O/lat-$name > $O/lat-$name.log 2>&1
  grep "latency u" $O/lat-$name.log | tee -a $S
done
export POLYMUL_PROFILE_REPS=3
for w in 32 64; do
  echo "== ncu warm $w 16 1 auto" | tee -a $S
  timeout 60 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread ./polymul-bench profile $w 16 1 auto > $O/ncu_$w.txt 2>&1
  grep -E "^  [a-z_0-9]+ \(|gpu__time_duration" $O/ncu_$w.txt | paste - - | awk '{print $1, $2, $3, $NF}' | tee -a $S
done
