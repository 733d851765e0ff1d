#!/bin/bash
# Device run 4 (A): before (6baf7ba) vs this tree: profiles, goals tables, check.
set -u
cd "$(dirname "$0")"; for f in polymul-bench before/polymul-bench; do [ -f $f ] || gunzip -k $f.gz; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
nvcc -O3 -arch=sm_90 -o /tmp/floor butterfly_floor.cu && /tmp/floor | tee $O/floor.txt | tee -a $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for nb in "32 16 512" "32 17 256" "32 15 1024" "32 16 128" "32 16 32" "64 16 512" "64 16 32"; do
  set -- $nb
  prof before timeout 60 before/polymul-bench profile $1 $2 $3 auto
  prof "two launches" POLYMUL_LAZY_FUSED=0 timeout 60 ./polymul-bench profile $1 $2 $3 auto
  [ $1 = 32 ] && prof "fused, one poly per row block" POLYMUL_LAZY_FUSED=one timeout 60 ./polymul-bench profile $1 $2 $3 auto
  prof "default" timeout 60 ./polymul-bench profile $1 $2 $3 auto
done
timeout 100 before/polymul-bench bench --quick --only goals --out $O/goals-before 2>/dev/null > $O/goals-before.txt
timeout 100 ./polymul-bench bench --quick --only goals --out $O/goals 2>/dev/null > $O/goals.txt
grep "^| u\|^| RNS" $O/goals-before.txt | cut -d'|' -f2,8 > /tmp/a; grep "^| u\|^| RNS" $O/goals.txt | cut -d'|' -f8,12,15,16 > /tmp/b
paste -d'|' /tmp/a /tmp/b | tee -a $S
timeout 170 ./polymul-bench check > $O/check.log 2>&1; echo "check exit $?" | tee -a $S
grep -v '^PASS' $O/check.log | tail -4 | tee -a $S
grep "lazy fused" $O/check.log | tee -a $S
