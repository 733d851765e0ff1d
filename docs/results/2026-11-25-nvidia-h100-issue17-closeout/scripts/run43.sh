#!/bin/bash
# Device run 43 (merged main: issues 17 close-out, 18, 19): the quick check
# suites convert (issue 18's kernels), api, dgt, rns, lazy-fused; the rns
# bench section (conversions table); the CLI GPU-vs-CPU comparison; and the
# throughput and latency tables of new against aaf7b7a (base), interleaved.
set -u
B=${1:-bundle/r43}
for v in base new cli; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r43; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT), base = aaf7b7a"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 200 /tmp/new check --quick --only convert,api,dgt,rns,lazy-fused > $R/check.txt 2>&1
echo "check rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -2 $R/check.txt | tee -a $S
grep -m5 FAIL $R/check.txt | tee -a $S
timeout 120 /tmp/new bench --quick --only rns --out $R/rns > $R/rns.log 2>&1
echo "rns bench rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
for v in base new; do
  timeout 100 /tmp/$v bench --quick --only goals --out $R/goals-$v-1 > $R/goals-$v-1.log 2>&1
  echo "goals $v rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
  timeout 60 /tmp/$v bench --quick --only latency --out $R/latency-$v-1 > $R/latency-$v-1.log 2>&1
  echo "latency $v rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
done
mkdir -p /tmp/clirun; cp xtask/bundle/run.sh /tmp/clirun/; cp /tmp/cli /tmp/clirun/polymul
(cd /tmp/clirun && timeout 90 bash run.sh --cli-only) > $R/cli.txt 2>&1
echo "cli rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -3 $R/cli.txt | tee -a $S
tar czf $O/r43.tgz -C /tmp r43
