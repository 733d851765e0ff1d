#!/bin/bash
# Device run 29 (issue 15): cooperative kernels (barrier variant 2) launched cooperatively or as plain
# programmatic dependents (POLYMUL_COOP_ATTR=0, experiment), against separate launches; interleaved twice.
set -u
cd "$(dirname "$0")"; gunzip -kf polymul-bench.gz; chmod +x polymul-bench
O=${OUT:-/tmp/out}; R=/tmp/r29; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
export POLYMUL_COOP_BARRIER=2
POLYMUL_COOP_ATTR=0 timeout 100 ./polymul-bench check --only words,graphs --log-n 12,16 > $R/check-noattr.txt 2>&1
echo "no attr: $(grep -E "passed" $R/check-noattr.txt | tail -1)" | tee -a $S
for rep in 1 2; do
  for v in none coop noattr; do
    case $v in
      none) POLYMUL_COOP=0 ./polymul-bench bench --quick --only latency --out $R/lat-$v-$rep > $R/lat-$v-$rep.log 2>&1 ;;
      coop) ./polymul-bench bench --quick --only latency --out $R/lat-$v-$rep > $R/lat-$v-$rep.log 2>&1 ;;
      noattr) POLYMUL_COOP_ATTR=0 ./polymul-bench bench --quick --only latency --out $R/lat-$v-$rep > $R/lat-$v-$rep.log 2>&1 ;;
    esac
    echo "--- rep $rep $v" | tee -a $S
    grep "latency u" $R/lat-$v-$rep.log | grep -v DGT | grep "2^12\|2^16" | tee -a $S
  done
done
echo "all done at $(( $(date +%s) - t0 )) s" | tee -a $S
tar czf $O/r29.tgz -C /tmp r29
