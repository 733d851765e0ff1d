#!/bin/bash
# Device run 32 (issue 15), commit 9915956: graph cache for every small NTT/RNS launch and DGT calls.
# Full check suite, sanitizers, latency section with the cache and without (POLYMUL_GRAPH_CACHE=0)
# in one call, then the goals section (throughput unchanged?).
set -u
cd "$(dirname "$0")"; gunzip -kf polymul-bench.gz; chmod +x polymul-bench
O=${OUT:-/tmp/out}; R=/tmp/r32; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "commit 9915956"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 300 ./polymul-bench check > $R/check.txt 2>&1; grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
echo "check took $(( $(date +%s) - t0 )) s" | tee -a $S
for tool in memcheck racecheck; do for w in 32 64; do
  r=$(POLYMUL_PROFILE_REPS=4 timeout 60 compute-sanitizer --tool $tool ./polymul-bench profile $w 16 1 auto 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
  echo "sanitizer $tool profile $w 16 1 auto: $r" | tee -a $S
done; done
r=$(timeout 150 compute-sanitizer --tool memcheck ./polymul-bench check --only graphs 2>&1 | grep -E "ERROR SUMMARY|passed" | tail -2 | tr '\n' ' ')
echo "sanitizer memcheck check --only graphs: $r" | tee -a $S
echo "sanitizers done at $(( $(date +%s) - t0 )) s" | tee -a $S
./polymul-bench bench --quick --only latency --out $R/latency > $R/latency.log 2>&1
POLYMUL_GRAPH_CACHE=0 ./polymul-bench bench --quick --only latency --out $R/latency-no-cache > $R/latency-no-cache.log 2>&1
echo "--- cache" | tee -a $S; grep "latency u" $R/latency.log | tee -a $S
echo "--- no cache" | tee -a $S; grep "latency u" $R/latency-no-cache.log | tee -a $S
echo "latency done at $(( $(date +%s) - t0 )) s" | tee -a $S
timeout 200 ./polymul-bench bench --quick --only goals --out $R/goals > $R/goals.log 2>&1
tail -30 $R/goals.log | tee -a $S
echo "all done at $(( $(date +%s) - t0 )) s" | tee -a $S
tar czf $O/r32.tgz -C /tmp r32
