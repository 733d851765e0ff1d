#!/bin/bash
# Device run 34 (issue 15): the fused DGT with the twiddle prefetch and the
# sm_90 register caps (commit 701ee55, "new") against e012e19 ("base",
# Coala's pipeline only), in one call on one GPU: the DGT and error check
# suites, racecheck over the DGT kernels, the latency section of both, the
# DGT section's configuration search at N = 2^10 of both (batched rates).
set -u
B=${1:-bundle/r34}
for v in base new; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r34; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit 701ee55, base = commit e012e19"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 130 /tmp/new check --only dgt,errors > $R/check.txt 2>&1; grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
echo "check took $(( $(date +%s) - t0 )) s" | tee -a $S
for v in base new; do
  timeout 80 /tmp/$v bench --quick --only latency --out $R/latency-$v > $R/latency-$v.log 2>&1
  echo "--- latency $v" | tee -a $S; grep -E "latency (u|—)" $R/latency-$v.log | grep -E "DGT|empty|2\^16 (forward|polymul)" | tee -a $S
done
echo "latency done at $(( $(date +%s) - t0 )) s" | tee -a $S
for v in new base; do
  timeout 50 /tmp/$v bench --quick --only dgt --log-n 10 --out $R/dgt-$v > $R/dgt-$v.log 2>&1
  echo "--- dgt section N=2^10 $v (rc $?)" | tee -a $S; grep "dgt " $R/dgt-$v.log | tee -a $S
done
r=$(timeout 60 compute-sanitizer --tool racecheck /tmp/new check --quick --only dgt --log-n 10,16 2>&1 | grep -E "RACECHECK SUMMARY|passed" | tail -2 | tr '\n' ' ')
echo "sanitizer racecheck check --quick --only dgt --log-n 10,16: $r" | tee -a $S
echo "all done at $(( $(date +%s) - t0 )) s" | tee -a $S
tar czf $O/r34.tgz -C /tmp r34
