#!/bin/bash
# Device run 6 (final): before (6baf7ba) vs fused at 40 registers (2b7158b) vs this tree (fused forward at 32).
set -u
cd "$(dirname "$0")"; for f in polymul-bench before/polymul-bench cap40/polymul-bench; do [ -f $f ] || gunzip -k $f.gz; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
nvcc -O3 -arch=sm_90 -o /tmp/floor butterfly_floor.cu && /tmp/floor | tee $O/floor.txt | tee -a $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for nb in "32 16 512" "32 17 256" "32 15 1024" "32 16 128"; do
  set -- $nb
  prof "before (6baf7ba)" timeout 60 before/polymul-bench profile $1 $2 $3 auto
  prof "fused, 40 registers (2b7158b)" timeout 60 cap40/polymul-bench profile $1 $2 $3 auto
  prof "now" timeout 60 ./polymul-bench profile $1 $2 $3 auto
done
timeout 100 before/polymul-bench bench --quick --only goals --out $O/goals-before 2>/dev/null > $O/goals-before.txt
timeout 100 ./polymul-bench bench --quick --only goals --out $O/goals 2>/dev/null > $O/goals.txt
tail -22 $O/goals.txt | grep "^| u\|^| RNS" | cut -d'|' -f2,3,7,8,9,14,15,16 | tee -a $S
timeout 170 ./polymul-bench check > $O/check.log 2>&1; echo "check exit $?" | tee -a $S
grep -v '^PASS' $O/check.log | tail -3 | tee -a $S
for tool in memcheck racecheck; do
  for job in "32 16 128 auto" "32 21 8 auto"; do
    POLYMUL_PROFILE_REPS=1 timeout 80 compute-sanitizer --tool $tool --error-exitcode 9 ./polymul-bench profile $job > $O/san.log 2>&1
    echo "$tool profile $job: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san.log | tail -1)" | tee -a $S
  done
done
rm -f $O/san.log
timeout 90 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats -k regex:ntt_lazy_fwd_fus -c 1 ./polymul-bench profile 32 16 512 auto > $O/ncu_u32_16_fwd_fused_cap32.txt 2>&1
grep -E "Duration|DRAM Through|L2 Cache Through|Issue Slots Busy|Achieved Occ|Registers Per|Eligible Warps" $O/ncu_u32_16_fwd_fused_cap32.txt | tee -a $S
