#!/bin/bash
# Device run 46 (issue 18 with the 32-bit limb-index division, 3e86ac8):
# memcheck and racecheck over the convert checks, the quick checks of the
# suites the branch touches, the rns bench (conversions table), the CLI
# GPU-vs-CPU comparison.
set -u
B=${1:-bundle/r46}
for v in new cli; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r46; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 200 compute-sanitizer --tool memcheck --print-limit 20 /tmp/new check --quick --only convert > $R/memcheck.txt 2>&1
echo "memcheck rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; grep -m3 -A4 "Invalid" $R/memcheck.txt | tee -a $S; tail -3 $R/memcheck.txt | tee -a $S
timeout 200 compute-sanitizer --tool racecheck --print-limit 20 /tmp/new check --quick --only convert > $R/racecheck.txt 2>&1
echo "racecheck rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -3 $R/racecheck.txt | tee -a $S
timeout 200 /tmp/new check --quick --only convert,rns,api,errors,words,dgt > $R/check.txt 2>&1
echo "check rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -2 $R/check.txt | tee -a $S
grep -m8 FAIL $R/check.txt | tee -a $S
timeout 200 /tmp/new bench --only rns --out $R/rns > $R/rns.log 2>&1
echo "rns bench rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
grep -A8 "Big integers" $R/rns/*.md | grep "^.*|" | tee -a $S
tail -3 $R/rns.log | tee -a $S
mkdir -p /tmp/clirun; cp xtask/bundle/run.sh /tmp/clirun/; cp /tmp/cli /tmp/clirun/polymul
(cd /tmp/clirun && timeout 90 bash run.sh --cli-only) > $R/cli.txt 2>&1
echo "cli rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -3 $R/cli.txt | tee -a $S
tar czf $O/r46.tgz -C /tmp r46
