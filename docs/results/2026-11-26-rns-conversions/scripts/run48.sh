#!/bin/bash
# Device run 48 (issue 18: limb copies through pinned staging memory; new =
# bundle COMMIT, base = ac2e0f9): memcheck over the convert and api checks,
# the quick checks of convert, rns, api, errors, the rns bench of base and
# new interleaved (twice each), the CLI GPU-vs-CPU comparison.
set -u
B=${1:-bundle/r48}
for v in base new cli; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r48; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT), base = $(cat $B/BASE)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 200 compute-sanitizer --tool memcheck --print-limit 20 /tmp/new check --quick --only convert > $R/memcheck.txt 2>&1
echo "memcheck rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; grep -m3 -A4 "Invalid" $R/memcheck.txt | tee -a $S; tail -2 $R/memcheck.txt | tee -a $S
timeout 200 /tmp/new check --quick --only convert,rns,api,errors > $R/check.txt 2>&1
echo "check rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -1 $R/check.txt | tee -a $S; grep -m8 FAIL $R/check.txt | tee -a $S
for i in 1 2; do for v in base new; do
  timeout 150 /tmp/$v bench --only rns --out $R/rns-$v-$i > $R/rns-$v-$i.log 2>&1
  echo "rns $v $i rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
  grep -A8 "Big integers" $R/rns-$v-$i/gpu.md | grep "^| u" | cut -d'|' -f2-6,7,10,13- | tee -a $S
done; done
mkdir -p /tmp/clirun; cp xtask/bundle/run.sh /tmp/clirun/; cp /tmp/cli /tmp/clirun/polymul
(cd /tmp/clirun && timeout 90 bash run.sh --cli-only) > $R/cli.txt 2>&1
echo "cli rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -1 $R/cli.txt | tee -a $S
tar czf $O/r48.tgz -C /tmp r48
