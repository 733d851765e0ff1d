#!/bin/bash
# Device run 33 (issue 15): the fused DGT pipeline (commit 55dc597) against the
# binary of e012e19 (Coala's pipeline only), in one call on one GPU.
# Check suite (DGT, graphs, then everything), sanitizers over the DGT kernels,
# the latency section of both binaries interleaved twice, the DGT section
# (configuration search, batched and single) of both.
set -u
B=${1:-bundle/r33}
for v in base new; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r33; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit 55dc597, base = commit e012e19"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 280 /tmp/new check > $R/check.txt 2>&1; grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
echo "check took $(( $(date +%s) - t0 )) s" | tee -a $S
for rep in 1 2; do for v in base new; do
  timeout 120 /tmp/$v bench --quick --only latency --out $R/latency-$v-$rep > $R/latency-$v-$rep.log 2>&1
  echo "--- latency $v rep $rep" | tee -a $S; grep -E "latency (u|—)" $R/latency-$v-$rep.log | grep -E "DGT|empty|2\^16 (forward|polymul)" | tee -a $S
done; done
echo "latency done at $(( $(date +%s) - t0 )) s" | tee -a $S
for tool in memcheck racecheck synccheck; do
  r=$(timeout 75 compute-sanitizer --tool $tool /tmp/new check --quick --only dgt --log-n 4,10,11,16 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" | tail -2 | tr '\n' ' ')
  echo "sanitizer $tool check --quick --only dgt --log-n 4,10,11,16: $r" | tee -a $S
done
echo "sanitizers done at $(( $(date +%s) - t0 )) s" | tee -a $S
for v in new base; do
  timeout 70 /tmp/$v bench --quick --only dgt --out $R/dgt-$v > $R/dgt-$v.log 2>&1
  echo "--- dgt section $v (rc $?)" | tee -a $S; grep -A12 "DGT against the NTT" $R/dgt-$v/gpu.md | tee -a $S
done
echo "all done at $(( $(date +%s) - t0 )) s" | tee -a $S
tar czf $O/r33.tgz -C /tmp r33
