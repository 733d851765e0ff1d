#!/bin/bash
# Device run 49 (main cb3017f): on two pinned cores of the GPU host
# (taskset -c 0,1: an idle 2-core slice), the CPU backend's batch scaling
# with the ceiling column (issue 19) and the rns bench, whose CPU columns
# then run on 2 cores (issue 18's CPU goal); then the Python package's
# GPU check (issue 20, bundle/py).
set -u
B=${1:-bundle/r49}
for v in new cli; do gunzip -c $B/$v.gz > /tmp/$v; chmod +x /tmp/$v; done
O=${OUT:-/tmp/out}; R=/tmp/r49; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv; lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\)|Core\(s\)|Socket"; cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list; } | tee $S
t0=$(date +%s)
for i in 1 2; do
timeout 120 taskset -c 0,1 /tmp/new bench --cpu --only cpu-scaling --out $R/scaling-2cores-$i > $R/scaling-$i.log 2>&1
echo "scaling $i rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
grep "^| u" $R/scaling-2cores-$i/cpu.md | tee -a $S
done
timeout 150 taskset -c 0,1 /tmp/new bench --only rns --out $R/rns-2cores > $R/rns-2cores.log 2>&1
echo "rns 2 cores rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
grep -A8 "Big integers" $R/rns-2cores/gpu.md | grep "^| u" | tee -a $S
if [ -d bundle/py ]; then
  (cd bundle/py && OUT=$R/py timeout 240 bash gpu_check.sh) > $R/py.txt 2>&1
  echo "python rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -25 $R/py.txt | tee -a $S
fi
tar czf $O/r49.tgz -C /tmp r49
