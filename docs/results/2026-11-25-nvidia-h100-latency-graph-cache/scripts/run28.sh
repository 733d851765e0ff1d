#!/bin/bash
# Device run 28 (issue 15): cooperative kernels, three grid-barrier variants (POLYMUL_COOP_BARRIER 0/1/2)
# against the separate launches (POLYMUL_COOP=0): latency section twice, interleaved; ncu; checks.
set -u
cd "$(dirname "$0")"; gunzip -kf polymul-bench.gz; chmod +x polymul-bench
O=${OUT:-/tmp/out}; R=/tmp/r28; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
for v in 1 2; do
  POLYMUL_COOP_BARRIER=$v timeout 120 ./polymul-bench check --only words,rns,graphs --log-n 12,13,14,15,16 > $R/check-v$v.txt 2>&1
  echo "barrier $v: $(grep -E "passed" $R/check-v$v.txt | tail -1)" | tee -a $S
  grep "^FAIL" $R/check-v$v.txt | head -5 | tee -a $S
done
echo "checks done at $(( $(date +%s) - t0 )) s" | tee -a $S
for v in 0 1 2; do
  POLYMUL_COOP_BARRIER=$v POLYMUL_PROFILE_REPS=3 timeout 90 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum ./polymul-bench profile 64 16 1 auto > $R/ncu_64_16_1_v$v.txt 2>&1
  echo "ncu v$v: $(grep -E '^  ntt_|duration' $R/ncu_64_16_1_v$v.txt | paste - - | awk '{print $1, $NF}' | sort | awk '{a[$1]=a[$1]" "$2} END{for(k in a) print k, a[k]}' | tr '\n' ';')" | tee -a $S
done
for rep in 1 2; do
  for v in none 0 1 2; do
    if [ $v = none ]; then POLYMUL_COOP=0 ./polymul-bench bench --quick --only latency --out $R/lat-$v-$rep > $R/lat-$v-$rep.log 2>&1
    else POLYMUL_COOP_BARRIER=$v ./polymul-bench bench --quick --only latency --out $R/lat-$v-$rep > $R/lat-$v-$rep.log 2>&1; fi
    echo "--- rep $rep barrier $v" | tee -a $S
    grep "latency u" $R/lat-$v-$rep.log | grep -v DGT | grep "2^12\|2^16" | tee -a $S
  done
done
echo "all done at $(( $(date +%s) - t0 )) s" | tee -a $S
tar czf $O/r28.tgz -C /tmp r28
