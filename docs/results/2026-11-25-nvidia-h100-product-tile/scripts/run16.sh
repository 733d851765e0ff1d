#!/bin/bash
# Device run 16: u32 forward column passes at radix 16 (4b84766) against prev/ (0d00667) and before/ (e67de4d):
# goals of all three in one call, profiles, the check suite.
set -u
cd "$(dirname "$0")"; for f in polymul-bench prev/polymul-bench before/polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for nb in "32 16 512" "32 16 42" "32 16 32" "32 16 8" "32 17 128" "32 15 64" "32 18 16"; do
  set -- $nb
  prof "prev (0d00667)" timeout 60 prev/polymul-bench profile $1 $2 $3 auto
  prof "now (4b84766) " timeout 60 ./polymul-bench profile $1 $2 $3 auto
done
timeout 100 before/polymul-bench bench --quick --only goals --out $O/goals-before 2>/dev/null > $O/goals-before.txt
timeout 100 prev/polymul-bench bench --quick --only goals --out $O/goals-prev 2>/dev/null > $O/goals-prev.txt
timeout 100 ./polymul-bench bench --quick --only goals --out $O/goals 2>/dev/null > $O/goals.txt
for f in goals-before goals-prev goals; do echo "== $f"; grep "^| u\|^| RNS\|^| batch" $O/$f.txt | cut -d'|' -f2,3,7,8,9 ; done | tee -a $S
timeout 180 ./polymul-bench check > $O/check.log 2>&1; echo "check exit $?" | tee -a $S
grep -v '^PASS' $O/check.log | tail -3 | tee -a $S
