#!/bin/bash
# Device run 44 (main with issues 17 close-out and 19, without 18): quick
# check suites api, graphs, errors, dgt, rns, lazy-fused, words; the CLI
# GPU-vs-CPU comparison.
set -u
B=${1:-bundle/r44}
for v in new cli; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r44; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv; } | tee $S
t0=$(date +%s)
timeout 300 /tmp/new check --quick --only api,graphs,errors,dgt,rns,lazy-fused,words,planner > $R/check.txt 2>&1
echo "check rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -1 $R/check.txt | tee -a $S
grep -m5 FAIL $R/check.txt | tee -a $S
mkdir -p /tmp/clirun; cp xtask/bundle/run.sh /tmp/clirun/; cp /tmp/cli /tmp/clirun/polymul
(cd /tmp/clirun && timeout 90 bash run.sh --cli-only) > $R/cli.txt 2>&1
echo "cli rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -1 $R/cli.txt | tee -a $S
tar czf $O/r44.tgz -C /tmp r44
