#!/bin/bash
# Device run 25 (issue 15), final tree: wait-first griddepcontrol, PDL in graphs on, DGT launched
# plainly. Full check suite, sanitizers, latency section now / PDL off in graphs / before, goals,
# batch-1 kernel durations.
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; R=/tmp/r25; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
timeout 280 ./polymul-bench check > $R/check.txt 2>&1; grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
for tool in memcheck racecheck; do
  r=$(timeout 100 compute-sanitizer --tool $tool ./polymul-bench check --quick --only dgt --log-n 10,12 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" | tail -2 | tr '\n' ' ')
  echo "sanitizer $tool check --quick --only dgt --log-n 10,12: $r" | tee -a $S
  for w in 32 64; do
    r=$(POLYMUL_PROFILE_REPS=3 timeout 60 compute-sanitizer --tool $tool ./polymul-bench profile $w 16 1 auto 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|differ" | tail -2 | tr '\n' ' ')
    echo "sanitizer $tool profile $w 16 1 auto: $r" | tee -a $S
  done
done
./polymul-bench bench --quick --only latency --out $R/latency > $R/latency.log 2>&1
POLYMUL_PDL_GRAPH=0 ./polymul-bench bench --quick --only latency --out $R/latency-no-pdl-graph > $R/latency-no-pdl-graph.log 2>&1
POLYMUL_PDL=0 POLYMUL_LATENCY_KERNELS=0 ./polymul-bench bench --quick --only latency --out $R/latency-before > $R/latency-before.log 2>&1
timeout 100 ./polymul-bench bench --quick --only goals --out $R/goals > $R/goals.log 2>&1
export POLYMUL_PROFILE_REPS=3
for w in 32 64; do for l in 12 16; do
  echo "== ncu (--cache-control none --clock-control none) polymul-bench profile $w $l 1 auto" >> $R/ncu-batch1.txt
  timeout 60 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size ./polymul-bench profile $w $l 1 auto > $R/ncu_raw.txt 2>&1
  grep -E "^  [a-z_0-9]+ \(|gpu__time_duration|launch__grid_size|launch__block_size|words differ" $R/ncu_raw.txt >> $R/ncu-batch1.txt
done; done
rm -f $R/ncu_raw.txt
grep "latency u" $R/latency.log | tee -a $S
tar czf $O/r25.tgz -C /tmp r25
