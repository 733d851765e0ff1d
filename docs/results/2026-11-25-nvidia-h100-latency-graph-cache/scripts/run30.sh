#!/bin/bash
# Device run 30 (issue 15): plans replay repeated small calls from a graph they capture (GraphCache):
# full check suite (with the repeated-call checks), sanitizers, latency section with and without
# (POLYMUL_GRAPH_CACHE=0), interleaved twice.
set -u
cd "$(dirname "$0")"; gunzip -kf polymul-bench.gz; chmod +x polymul-bench
O=${OUT:-/tmp/out}; R=/tmp/r30; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 300 ./polymul-bench check > $R/check.txt 2>&1; grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
grep "repeated calls" $R/check.txt | head -3 | tee -a $S
echo "check took $(( $(date +%s) - t0 )) s" | tee -a $S
for tool in memcheck racecheck; do for w in 32 64; do
  r=$(POLYMUL_PROFILE_REPS=4 timeout 60 compute-sanitizer --tool $tool ./polymul-bench profile $w 16 1 auto 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
  echo "sanitizer $tool profile $w 16 1 auto: $r" | tee -a $S
done; done
r=$(timeout 120 compute-sanitizer --tool memcheck ./polymul-bench check --only graphs 2>&1 | grep -E "ERROR SUMMARY|passed" | tail -2 | tr '\n' ' ')
echo "sanitizer memcheck check --only graphs: $r" | tee -a $S
echo "sanitizers done at $(( $(date +%s) - t0 )) s" | tee -a $S
for rep in 1 2; do
  for v in nocache cache; do
    if [ $v = nocache ]; then POLYMUL_GRAPH_CACHE=0 ./polymul-bench bench --quick --only latency --out $R/lat-$v-$rep > $R/lat-$v-$rep.log 2>&1
    else ./polymul-bench bench --quick --only latency --out $R/lat-$v-$rep > $R/lat-$v-$rep.log 2>&1; fi
    echo "--- rep $rep $v" | tee -a $S
    grep "latency u" $R/lat-$v-$rep.log | grep -v DGT | tee -a $S
  done
done
echo "all done at $(( $(date +%s) - t0 )) s" | tee -a $S
tar czf $O/r30.tgz -C /tmp r30
