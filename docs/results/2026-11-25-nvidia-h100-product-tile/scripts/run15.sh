#!/bin/bash
# Device run 15: moderate batches at radix 8 (twice the threads) against the default (auto) and radix 16.
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
prof() { local label=$1; shift; echo "$label: $(env "$@" 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*}//')" | tee -a $S; }
for nb in "32 16 8" "32 16 20" "32 16 32" "32 16 42" "32 16 64" "32 16 128" "32 16 512" "64 16 8" "64 16 20" "64 16 32" "64 16 64" "64 16 256" "32 17 16" "32 15 64"; do
  set -- $nb
  for cfg in auto lazy-r8 lazy-r16; do
    prof "$cfg" timeout 60 ./polymul-bench profile $1 $2 $3 $cfg
  done
done
