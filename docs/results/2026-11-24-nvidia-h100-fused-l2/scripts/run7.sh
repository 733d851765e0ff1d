#!/bin/bash
# Device run 7: the fused forward at 40 registers (2b7158b) against 32 (bcbc950), same call.
set -u
cd "$(dirname "$0")"; for f in polymul-bench cap40/polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for rep in 1 2; do
for nb in "32 16 512" "32 17 256" "32 15 1024" "32 16 128"; do
  set -- $nb
  prof "fused, 40 registers (2b7158b)" timeout 60 cap40/polymul-bench profile $1 $2 $3 auto
  prof "fused, 32 registers (bcbc950)" timeout 60 ./polymul-bench profile $1 $2 $3 auto
done
done
