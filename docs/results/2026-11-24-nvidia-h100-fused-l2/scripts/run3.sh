#!/bin/bash
# Device run 3: before (6baf7ba) vs fused two-pass kernels (+ row blocks of 4 polynomials).
set -u
cd "$(dirname "$0")"; for f in polymul-bench before/polymul-bench; do [ -f $f ] || gunzip -k $f.gz; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for w in 32 64; do
  for nb in "16 512" "16 32" "17 256" "15 1024"; do
    set -- $nb
    prof before timeout 60 before/polymul-bench profile $w $1 $2 auto
    prof "fused0" POLYMUL_LAZY_FUSED=0 timeout 60 ./polymul-bench profile $w $1 $2 auto
    prof "fused1" timeout 60 ./polymul-bench profile $w $1 $2 auto
  done
  for lag in 4 12 24 48; do
    prof "fused1 lag $lag" POLYMUL_FUSED_LAG=$lag timeout 60 ./polymul-bench profile $w 16 512 auto
  done
done
timeout 150 ./polymul-bench check > $O/check.log 2>&1; echo "check exit $?" | tee -a $S
grep -v '^PASS' $O/check.log | tail -4 | tee -a $S
for tool in memcheck racecheck; do
  for job in "32 16 2 auto" "64 17 3 auto"; do
    POLYMUL_PROFILE_REPS=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./polymul-bench profile $job > $O/san-$tool.log 2>&1
    echo "$tool $job: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san-$tool.log | tail -1)" | tee -a $S
  done
done
timeout 90 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed -k regex:ntt_lazy -c 6 ./polymul-bench profile 32 16 512 auto > $O/ncu_fused_u32.txt 2>&1
grep -E "ntt_lazy|duration|bytes|throughput" $O/ncu_fused_u32.txt | head -40 | tee -a $S
