#!/bin/bash
# Device run 41 (issue 17 close-out): the throughput table (bench --only
# goals) and the latency table (bench --only latency) of "new"
# (bundle/r41/COMMIT) against the binary of aaf7b7a ("base", before issue
# 17), interleaved base/new three times in one call on one GPU; then the
# quick api, graphs, dgt and rns check suites of new.
set -u
B=${1:-bundle/r41}
for v in base new; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r41; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT), base = commit aaf7b7a"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
for rep in 1 2 3; do for v in base new; do
  timeout 110 /tmp/$v bench --quick --only goals --out $R/goals-$v-$rep > $R/goals-$v-$rep.log 2>&1
  echo "goals $v rep $rep rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
  timeout 80 /tmp/$v bench --quick --only latency --out $R/latency-$v-$rep > $R/latency-$v-$rep.log 2>&1
  echo "latency $v rep $rep rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
done; done
timeout 200 /tmp/new check --quick --only api,graphs,dgt,rns > $R/check.txt 2>&1
echo "check rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
tail -5 $R/check.txt | tee -a $S
tar czf $O/r41.tgz -C /tmp r41
