#!/bin/bash
# Device run 27 (issue 15): cooperative one-launch latency kernels (ntt::coop): full check suite,
# memcheck/racecheck/synccheck at batch 1, ncu batch-1 durations, latency section with and without (POLYMUL_COOP=0).
set -u
cd "$(dirname "$0")"; gunzip -kf polymul-bench.gz; chmod +x polymul-bench
O=${OUT:-/tmp/out}; R=/tmp/r27; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 280 ./polymul-bench check > $R/check.txt 2>&1; grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
echo "check took $(( $(date +%s) - t0 )) s" | tee -a $S
for tool in memcheck racecheck synccheck; do for w in 32 64; do
  r=$(POLYMUL_PROFILE_REPS=2 timeout 60 compute-sanitizer --tool $tool ./polymul-bench profile $w 16 1 auto 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
  echo "sanitizer $tool profile $w 16 1 auto: $r" | tee -a $S
done; done
r=$(POLYMUL_PROFILE_REPS=2 timeout 60 compute-sanitizer --tool memcheck ./polymul-bench profile 64 12 3 auto 2>&1 | grep -E "ERROR SUMMARY" | tail -1)
echo "sanitizer memcheck profile 64 12 3 auto: $r" | tee -a $S
echo "sanitizers done at $(( $(date +%s) - t0 )) s" | tee -a $S
for w in 32 64; do
  POLYMUL_PROFILE_REPS=3 timeout 90 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum ./polymul-bench profile $w 16 1 auto > $R/ncu_${w}_16_1.txt 2>&1
  POLYMUL_COOP=0 POLYMUL_PROFILE_REPS=3 timeout 90 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum ./polymul-bench profile $w 16 1 auto > $R/ncu_${w}_16_1_nocoop.txt 2>&1
done
echo "ncu done at $(( $(date +%s) - t0 )) s" | tee -a $S
./polymul-bench bench --quick --only latency --out $R/latency > $R/latency.log 2>&1
POLYMUL_COOP=0 ./polymul-bench bench --quick --only latency --out $R/latency-no-coop > $R/latency-no-coop.log 2>&1
grep "latency u" $R/latency.log | tee -a $S
echo "--- no coop" | tee -a $S
grep "latency u" $R/latency-no-coop.log | tee -a $S
echo "all done at $(( $(date +%s) - t0 )) s" | tee -a $S
tar czf $O/r27.tgz -C /tmp r27
