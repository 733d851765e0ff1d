#!/bin/bash
# Device run 45 (issue 18 branch merged with main, 803b4e8): find the
# conversion kernels' illegal access with compute-sanitizer memcheck, then
# the convert/rns/api checks, and the CPU backend's batch scaling on two
# pinned cores of the idle GPU host (issue 19).
set -u
B=${1:-bundle/r45}
for v in new cli; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r45; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\)"; } | tee $S
t0=$(date +%s)
timeout 150 compute-sanitizer --tool memcheck --print-limit 20 /tmp/new check --quick --only convert > $R/memcheck.txt 2>&1
echo "memcheck rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
grep -m3 -A12 "Invalid\|Error" $R/memcheck.txt | head -60 | tee -a $S
tail -3 $R/memcheck.txt | tee -a $S
timeout 120 /tmp/new check --quick --only convert,rns,api > $R/check.txt 2>&1
echo "check rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -2 $R/check.txt | tee -a $S
grep -m8 FAIL $R/check.txt | tee -a $S
timeout 60 taskset -c 0,1 /tmp/new bench --cpu --only cpu-scaling --out $R/scaling-2cores > $R/scaling.log 2>&1
echo "scaling rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
grep "^|" $R/scaling-2cores/cpu.md | tee -a $S
tar czf $O/r45.tgz -C /tmp r45
