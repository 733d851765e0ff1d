#!/bin/bash
# Device run 38 (issue 17): the throughput table (bench --only goals) and the
# latency table (bench --only latency) of the host library's new shape
# ("new", bundle/r37/COMMIT) against the binary of aaf7b7a ("base", before
# issue 17's changes), interleaved base/new twice, in one call on one GPU.
set -u
B=${1:-bundle/r37}
for v in base new; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r38; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT), base = commit aaf7b7a"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
for rep in 1 2; do for v in base new; do
  timeout 110 /tmp/$v bench --quick --only goals --out $R/goals-$v-$rep > $R/goals-$v-$rep.log 2>&1
  echo "goals $v rep $rep rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
  timeout 80 /tmp/$v bench --quick --only latency --out $R/latency-$v-$rep > $R/latency-$v-$rep.log 2>&1
  echo "latency $v rep $rep rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
done; done
for v in base new; do
  timeout 90 /tmp/$v bench --quick --only fused --out $R/fused-$v > $R/fused-$v.log 2>&1
  echo "fused $v rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
done
tar czf $O/r38.tgz -C /tmp r38
