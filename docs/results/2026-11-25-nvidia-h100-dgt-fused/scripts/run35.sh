#!/bin/bash
# Device run 35 (issue 15): compute-sanitizer racecheck and memcheck over the
# DGT kernels of commit 701ee55 (fused pipeline with the twiddle prefetch, and
# Coala's pipeline: the quick DGT suite runs both) at N = 2^4 and 2^10
# (racecheck), 2^4, 2^10, 2^16 (memcheck).
set -u
B=${1:-bundle/r35}
gunzip -c $B/new.gz > /tmp/new; chmod +x /tmp/new
O=${OUT:-/tmp/out}; R=/tmp/r35; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "commit 701ee55"; nvidia-smi --query-gpu=name,driver_version --format=csv; } | tee $S
t0=$(date +%s)
timeout 130 compute-sanitizer --tool racecheck /tmp/new check --quick --only dgt --log-n 4,10 > $R/racecheck.log 2>&1
echo "racecheck rc $?: $(grep -E 'RACECHECK SUMMARY|passed' $R/racecheck.log | tail -2 | tr '\n' ' ')" | tee -a $S
timeout 60 compute-sanitizer --tool memcheck /tmp/new check --quick --only dgt --log-n 4,10,16 > $R/memcheck.log 2>&1
echo "memcheck rc $?: $(grep -E 'ERROR SUMMARY|passed' $R/memcheck.log | tail -2 | tr '\n' ' ')" | tee -a $S
echo "all done at $(( $(date +%s) - t0 )) s" | tee -a $S
tar czf $O/r35.tgz -C /tmp r35
