#!/bin/bash
# Device run 36 (issue 15): Nsight Compute on the fused DGT pass kernels of
# commit 701ee55 at N = 2^16 (one 30-bit tower, batch 2, default
# configuration: the first launches of the quick DGT check suite): duration,
# speed of light, occupancy, warp stall reasons.
set -u
B=${1:-bundle/r35}
gunzip -c $B/new.gz > /tmp/new; chmod +x /tmp/new
O=${OUT:-/tmp/out}; mkdir -p $O
{ date -u; echo "commit 701ee55"; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/ncu-dgt.txt
timeout 80 ncu --kernel-name regex:'dgt_(forward|inverse|polymul)_u32' --launch-count 5 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  /tmp/new check --quick --only dgt --log-n 16 >> $O/ncu-dgt.txt 2>&1
echo "rc $?" >> $O/ncu-dgt.txt
grep -E "dgt_|Duration|Achieved Occupancy|Registers Per|Block Size|Grid Size|Stall|Memory Throughput|Compute \(SM\)" $O/ncu-dgt.txt | head -80
