#!/bin/bash
# Device run 11 (recreated from the session log; binary: branch exp-fused-polymul before its
# product-tile change, i.e. the fused polymul with b held in registers, 64 registers; the run printed no
# cuobjdump lines: the cubin is embedded with include_bytes, not as a fatbin).
set -u
cd "$(dirname "$0")"; for f in polymul-bench before/polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
timeout 150 ./polymul-bench check --only lazy-fused > $O/check-fused.log 2>&1; echo "check lazy-fused exit $?" | tee -a $S
grep -v '^PASS' $O/check-fused.log | tail -5 | tee -a $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for nb in "32 16 512" "32 16 32" "32 16 4" "32 16 1" "64 16 256" "64 16 20" "64 16 1" "32 17 256" "32 15 8"; do
  set -- $nb
  prof "three launches" POLYMUL_LAZY_FUSED_MUL=0 timeout 60 ./polymul-bench profile $1 $2 $3 auto
  prof "fused polymul " POLYMUL_LAZY_FUSED_MUL=1 timeout 60 ./polymul-bench profile $1 $2 $3 auto
done
POLYMUL_LAZY_FUSED_MUL=0 timeout 120 ./polymul-bench bench --quick --only goals --out $O/goals-3l 2>/dev/null > $O/goals-3l.txt
POLYMUL_LAZY_FUSED_MUL=1 timeout 120 ./polymul-bench bench --quick --only goals --out $O/goals 2>/dev/null > $O/goals.txt
for f in goals-3l goals; do echo "== $f"; grep "^| u.*polymul\|^| RNS" $O/$f.txt | cut -d'|' -f2,3,7,8,9 ; done | tee -a $S
for tool in memcheck racecheck; do
  for job in "32 16 4 auto" "64 15 3 auto"; do
    POLYMUL_LAZY_FUSED_MUL=1 POLYMUL_PROFILE_REPS=1 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./polymul-bench profile $job > $O/san.log 2>&1
    echo "$tool profile $job: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san.log | tail -1)" | tee -a $S
  done
done
rm -f $O/san.log
