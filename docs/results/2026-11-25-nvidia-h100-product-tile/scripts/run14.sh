#!/bin/bash
# Device run 14: the product pass with b in a second tile (this commit) against before/ (e67de4d):
# goals in one call, the whole check suite, sanitizers over the product pass, Nsight Compute of it.
set -u
cd "$(dirname "$0")"; for f in polymul-bench before/polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
nvcc -O3 -arch=sm_90 -o /tmp/floor butterfly_floor.cu && /tmp/floor > $O/floor.txt 2>&1; tail -4 $O/floor.txt | tee -a $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for nb in "32 16 512" "32 17 256" "32 14 2048" "32 16 32"; do
  set -- $nb
  prof "before (e67de4d)" timeout 60 before/polymul-bench profile $1 $2 $3 auto
  prof "now" timeout 60 ./polymul-bench profile $1 $2 $3 auto
done
timeout 100 before/polymul-bench bench --quick --only goals --out $O/goals-before 2>/dev/null > $O/goals-before.txt
timeout 100 ./polymul-bench bench --quick --only goals --out $O/goals 2>/dev/null > $O/goals.txt
for f in goals-before goals; do echo "== $f"; grep "^| u\|^| RNS\|^| batch" $O/$f.txt | cut -d'|' -f2,3,7,8,9 ; done | tee -a $S
timeout 180 ./polymul-bench check > $O/check.log 2>&1; echo "check exit $?" | tee -a $S
grep -v '^PASS' $O/check.log | tail -3 | tee -a $S
for tool in memcheck racecheck; do
  for job in "32 16 4 auto" "32 14 2 auto" "32 12 3 auto"; do
    POLYMUL_PROFILE_REPS=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./polymul-bench profile $job > $O/san.log 2>&1
    echo "$tool profile $job: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san.log | tail -1)" | tee -a $S
  done
done
rm -f $O/san.log
for pair in "before before/polymul-bench" "now ./polymul-bench"; do
  set -- $pair
  timeout 60 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats -k regex:ntt_lazy_mul_row_l8 -c 1 $2 profile 32 16 512 auto > $O/ncu_mul_$1.txt 2>&1
  echo "ncu product pass ($1):" | tee -a $S
  grep -E "Duration|DRAM Through|Memory Through|Compute \(SM\) Through|Registers Per|Achieved Occ|Theoretical Occ|Eligible Warps|Dynamic Shared" $O/ncu_mul_$1.txt | tee -a $S
done
