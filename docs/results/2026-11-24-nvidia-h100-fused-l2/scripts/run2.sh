#!/bin/bash
# Device run 2: before (6baf7ba) vs streamed passes / row blocks of several polynomials.
set -u
cd "$(dirname "$0")"
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
prof() { # label env... -- args
  local label=$1; shift
  echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S
}
for w in 32 64; do
  for b in 512 32; do
    prof before timeout 60 before/polymul-bench profile $w 16 $b auto
    prof "st0 p0" POLYMUL_LAZY_STREAM=0 POLYMUL_ROW_POLYS_LOG_MAX=0 timeout 60 ./polymul-bench profile $w 16 $b auto
    prof "st0 p2" POLYMUL_LAZY_STREAM=0 POLYMUL_ROW_POLYS_LOG_MAX=2 timeout 60 ./polymul-bench profile $w 16 $b auto
    prof "st1 p0" POLYMUL_LAZY_STREAM=1 POLYMUL_ROW_POLYS_LOG_MAX=0 timeout 60 ./polymul-bench profile $w 16 $b auto
    prof "st1 p2" POLYMUL_LAZY_STREAM=1 POLYMUL_ROW_POLYS_LOG_MAX=2 timeout 60 ./polymul-bench profile $w 16 $b auto
    prof "st1 p5" POLYMUL_LAZY_STREAM=1 POLYMUL_ROW_POLYS_LOG_MAX=5 timeout 60 ./polymul-bench profile $w 16 $b auto
  done
  prof "st1 p0 r8" POLYMUL_LAZY_STREAM=1 POLYMUL_ROW_POLYS_LOG_MAX=0 timeout 60 ./polymul-bench profile $w 16 512 lazy-r8
  prof "st1 p0 r16" POLYMUL_LAZY_STREAM=1 POLYMUL_ROW_POLYS_LOG_MAX=0 timeout 60 ./polymul-bench profile $w 16 512 lazy-r16
  prof "before r16" timeout 60 before/polymul-bench profile $w 16 512 lazy-r16
  prof "before 2^17" timeout 60 before/polymul-bench profile $w 17 256 auto
  prof "st1 p0 2^17" POLYMUL_LAZY_STREAM=1 POLYMUL_ROW_POLYS_LOG_MAX=0 timeout 60 ./polymul-bench profile $w 17 256 auto
  prof "before 2^14" timeout 60 before/polymul-bench profile $w 14 2048 auto
  prof "st1 p0 2^14" POLYMUL_LAZY_STREAM=1 POLYMUL_ROW_POLYS_LOG_MAX=0 timeout 60 ./polymul-bench profile $w 14 2048 auto
done
POLYMUL_ROW_POLYS_LOG_MAX=0 timeout 150 ./polymul-bench check > $O/check.log 2>&1; echo "check (st1 p0) exit $?" | tee -a $S
grep -v '^PASS' $O/check.log | tail -4 | tee -a $S
for tool in memcheck racecheck; do
  for job in "32 16 2 auto" "64 17 2 auto" "64 14 3 lazy-r8"; do
    POLYMUL_PROFILE_REPS=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./polymul-bench profile $job > $O/san.log 2>&1
    echo "$tool $job: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san.log | tail -1)" | tee -a $S
  done
done
