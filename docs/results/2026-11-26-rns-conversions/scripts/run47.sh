#!/bin/bash
# Device run 47 (issue 18: carry-chain accumulators, new = bundle COMMIT,
# base = 3e86ac8): memcheck over the convert checks, the quick checks of
# convert and rns, then the rns bench (RNS products and the conversions
# table) of base and new interleaved, twice each.
set -u
B=${1:-bundle/r47}
for v in base new cli; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r47; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT), base = $(cat $B/BASE)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 200 compute-sanitizer --tool memcheck --print-limit 20 /tmp/new check --quick --only convert > $R/memcheck.txt 2>&1
echo "memcheck rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; grep -m3 -A4 "Invalid" $R/memcheck.txt | tee -a $S; tail -2 $R/memcheck.txt | tee -a $S
timeout 200 /tmp/new check --quick --only convert,rns > $R/check.txt 2>&1
echo "check rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -1 $R/check.txt | tee -a $S; grep -m8 FAIL $R/check.txt | tee -a $S
for i in 1 2; do for v in base new; do
  timeout 150 /tmp/$v bench --only rns --out $R/rns-$v-$i > $R/rns-$v-$i.log 2>&1
  echo "rns $v $i rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
  grep -A8 "Big integers" $R/rns-$v-$i/gpu.md | grep "^| u" | cut -d'|' -f2-16 | tee -a $S
done; done
tar czf $O/r47.tgz -C /tmp r47
