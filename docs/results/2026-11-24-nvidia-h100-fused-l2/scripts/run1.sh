#!/bin/bash
# Device run 1: before (HEAD 6baf7ba) vs A1 (row blocks of several polynomials).
set -u
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $O/summary.txt
for w in 32 64; do
  for b in before/polymul-bench ./polymul-bench; do
    for cfg in auto; do
      echo "$b: $(timeout 60 $b profile $w 16 512 $cfg 2>&1 | tail -1)" | tee -a $O/summary.txt
      echo "$b: $(timeout 60 $b profile $w 16 32 $cfg 2>&1 | tail -1)" | tee -a $O/summary.txt
    done
  done
done
timeout 200 ./polymul-bench check > $O/check.log 2>&1; echo "check exit $?" | tee -a $O/summary.txt
grep -v '^PASS' $O/check.log | tail -5 | tee -a $O/summary.txt
timeout 120 before/polymul-bench bench --quick --only goals --out $O/goals-before 2>/dev/null > $O/goals-before.txt
timeout 120 ./polymul-bench bench --quick --only goals --out $O/goals 2>/dev/null > $O/goals.txt
grep "^| u\|^| RNS" $O/goals-before.txt | cut -d'|' -f2,7,8 > /tmp/a; grep "^| u\|^| RNS" $O/goals.txt | cut -d'|' -f2,8,16 > /tmp/b
paste -d'|' /tmp/a /tmp/b | tee -a $O/summary.txt
for w in 32; do
  timeout 120 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis -k regex:ntt_lazy_fwd_row -c 1 ./polymul-bench profile $w 16 512 auto > $O/ncu_u${w}_fwd_row.txt 2>&1
  grep -E "Duration|DRAM Through|L2 Cache Through|L1/TEX Cache|Issue Slots" $O/ncu_u${w}_fwd_row.txt | tee -a $O/summary.txt
done
