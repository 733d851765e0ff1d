#!/bin/bash
# Device run 22 (issue 15), binary of f584867: full check suite, latency section (default and
# before: PDL and latency kernels off), goals, warm kernel durations of the batch-1 kernels.
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; R=/tmp/r22; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
timeout 280 ./polymul-bench check > $R/check.txt 2>&1; grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
./polymul-bench bench --quick --only latency --out $R/latency > $R/latency.log 2>&1
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
tar czf $O/r22.tgz -C /tmp r22
