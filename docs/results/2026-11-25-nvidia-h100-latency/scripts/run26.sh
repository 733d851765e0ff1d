#!/bin/bash
# Device run 26 (issue 15): the simplified launch path (no kernel change): full check suite,
# memcheck/racecheck at batch 1, latency section and the same with PDL off.
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; R=/tmp/r26; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
timeout 280 ./polymul-bench check > $R/check.txt 2>&1; grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
for tool in memcheck racecheck; do for w in 32 64; do
  r=$(POLYMUL_PROFILE_REPS=3 timeout 60 compute-sanitizer --tool $tool ./polymul-bench profile $w 16 1 auto 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
  echo "sanitizer $tool profile $w 16 1 auto: $r" | tee -a $S
done; done
./polymul-bench bench --quick --only latency --out $R/latency > $R/latency.log 2>&1
POLYMUL_PDL=0 ./polymul-bench bench --quick --only latency --out $R/latency-no-pdl > $R/latency-no-pdl.log 2>&1
grep "latency u" $R/latency.log | grep "2^16" | tee -a $S
tar czf $O/r26.tgz -C /tmp r26
