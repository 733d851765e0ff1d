#!/bin/bash
# Device run 12 (recreated from the session log): u32 product pass with b's words in a second tile
# (40 registers) against before/ (e67de4d: b in registers, 64); three launches
# (POLYMUL_LAZY_FUSED_MUL=0) vs the fused polymul (=1). Binary: branch exp-fused-polymul (8bddfca's tree).
set -u
cd "$(dirname "$0")"; for f in polymul-bench before/polymul-bench k90.cubin; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
cuobjdump -res-usage k90.cubin 2>&1 | grep -A1 "mul_fus_n16\|mul_row_l8_r4_u32\|mul_row_l14_r4_u32\|mul_row_l12_r4_u32" | grep -o "Function [a-z0-9_]*\|REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*" | paste -s -d' ' | sed 's/Function/\nFunction/g' | tee -a $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for nb in "32 16 512" "32 16 32" "32 16 4" "32 16 1" "32 17 256" "32 15 1024" "32 14 2048" "32 12 8192" "64 16 20"; do
  set -- $nb
  prof "before (e67de4d)" timeout 60 before/polymul-bench profile $1 $2 $3 auto
  prof "three launches  " POLYMUL_LAZY_FUSED_MUL=0 timeout 60 ./polymul-bench profile $1 $2 $3 auto
  prof "fused polymul   " POLYMUL_LAZY_FUSED_MUL=1 timeout 60 ./polymul-bench profile $1 $2 $3 auto
done
timeout 100 before/polymul-bench bench --quick --only goals --out $O/goals-before 2>/dev/null > $O/goals-before.txt
POLYMUL_LAZY_FUSED_MUL=0 timeout 100 ./polymul-bench bench --quick --only goals --out $O/goals-3l 2>/dev/null > $O/goals-3l.txt
POLYMUL_LAZY_FUSED_MUL=1 timeout 100 ./polymul-bench bench --quick --only goals --out $O/goals-fm 2>/dev/null > $O/goals-fm.txt
for f in goals-before goals-3l goals-fm; do echo "== $f"; grep "^| u.*polymul\|^| RNS\|^| batch" $O/$f.txt | cut -d'|' -f2,3,7,8,9 ; done | tee -a $S
POLYMUL_LAZY_FUSED_MUL=0 timeout 170 ./polymul-bench check > $O/check.log 2>&1; echo "check (three launches) exit $?" | tee -a $S
grep -v '^PASS' $O/check.log | tail -3 | tee -a $S
