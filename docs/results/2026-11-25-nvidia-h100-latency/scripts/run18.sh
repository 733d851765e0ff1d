#!/bin/bash
# Device run 18 (issue 15, first look): batch-1 latency of the 4b84766 binary.
# Plain-call event timings per configuration, and warm kernel durations (ncu, no cache flush).
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
export POLYMUL_PROFILE_REPS=200
for w in 64 32; do for l in 10 12 14 16; do for c in auto tiled-r4 tiled-r8 2d-r8 cluster; do
  [ $c = cluster ] && [ $l != 16 ] && continue
  ./polymul-bench profile $w $l 1 $c 2>&1 | tee -a $S
done; done; done
export POLYMUL_PROFILE_REPS=2
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__cycles_active.avg
for w in 64 32; do for l in 12 16; do for c in auto tiled-r4; do
  echo "== ncu warm $w $l $c" | tee -a $S
  timeout 100 ncu --cache-control none --clock-control none --metrics $M ./polymul-bench profile $w $l 1 $c > $O/ncu_${w}_${l}_$c.txt 2>&1
  grep -E "^  [a-z_0-9]+ \(|gpu__time_duration|registers_per|cycles_active" $O/ncu_${w}_${l}_$c.txt | tail -64 | tee -a $S
done; done; done
