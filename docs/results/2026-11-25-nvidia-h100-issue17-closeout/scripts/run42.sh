#!/bin/bash
# Device run 42 (issue 17 close-out): throughput (bench --only goals) and
# latency (bench --only latency) of three binaries, interleaved twice in one
# call on one GPU: base = aaf7b7a (before issue 17), cur = 09110a3 (run 41's
# new), rw = bundle/r42/COMMIT (argument-block pointers global to LLVM);
# then quick check suites of rw.
set -u
B=${1:-bundle/r42}
for v in base cur rw; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r42; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "rw = commit $(cat $B/COMMIT), cur = 09110a3, base = aaf7b7a"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
for rep in 1 2; do for v in base cur rw; do
  timeout 110 /tmp/$v bench --quick --only goals --out $R/goals-$v-$rep > $R/goals-$v-$rep.log 2>&1
  echo "goals $v rep $rep rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
  timeout 80 /tmp/$v bench --quick --only latency --out $R/latency-$v-$rep > $R/latency-$v-$rep.log 2>&1
  echo "latency $v rep $rep rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
done; done
timeout 150 /tmp/rw check --quick --only dgt,words,lazy-fused,rns,fused > $R/check.txt 2>&1
echo "check rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
tail -2 $R/check.txt | tee -a $S
tar czf $O/r42.tgz -C /tmp r42
