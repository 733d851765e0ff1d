#!/bin/bash
# Device run 5 (B): sanitizers over the fused and row-block kernels; Nsight Compute of the fused kernel; goals again.
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
for tool in memcheck racecheck; do
  for job in "32 16 128 auto" "32 21 8 lazy-r8" "64 16 4 auto" "32 15 6 auto"; do
    POLYMUL_PROFILE_REPS=1 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 ./polymul-bench profile $job > $O/san.log 2>&1
    echo "$tool profile $job: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san.log | tail -1)" | tee -a $S
    cat $O/san.log >> $O/sanitizer.log
  done
done
rm -f $O/san.log
timeout 120 ncu --set full -k regex:ntt_lazy_fwd_fus -c 1 ./polymul-bench profile 32 16 512 auto > $O/ncu_u32_16_fwd_fused.txt 2>&1
timeout 90 ncu --set full -k regex:ntt_lazy_inv_fus -c 1 ./polymul-bench profile 32 16 512 auto > $O/ncu_u32_16_inv_fused.txt 2>&1
grep -E "Duration|DRAM Through|L2 Cache Through|L1/TEX Cache Through|Issue Slots Busy|Achieved Occ|Compute \(SM\)|No Eligible" $O/ncu_u32_16_*_fused.txt | tee -a $S
timeout 100 ./polymul-bench bench --quick --only goals --out $O/goals 2>/dev/null > $O/goals.txt
grep "^| u32\|^| u64 f" $O/goals.txt | cut -d'|' -f2,8,12,14,15 | tee -a $S
