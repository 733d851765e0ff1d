#!/bin/bash
# Device run 13 (recreated from the session log): the fused polymul's lag (POLYMUL_LAZY_FUSED_MUL_LAG;
# "auto" = unset rule, 3/4 of the resident blocks in polynomials) against the three launches.
# Binary: branch exp-fused-polymul, 8bddfca.
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
timeout 100 ./polymul-bench check --only lazy-fused > $O/check-fused.log 2>&1; echo "check lazy-fused exit $?" | tee -a $S
grep -v '^PASS' $O/check-fused.log | tail -3 | tee -a $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for nb in "32 16 512" "32 17 256" "64 16 256" "32 16 64"; do
  set -- $nb
  prof "three launches" timeout 60 ./polymul-bench profile $1 $2 $3 auto
  for lag in 4 8 12 18 24 auto; do
    prof "fused lag $lag" POLYMUL_LAZY_FUSED_MUL=1 POLYMUL_LAZY_FUSED_MUL_LAG=$lag timeout 60 ./polymul-bench profile $1 $2 $3 auto
  done
done
