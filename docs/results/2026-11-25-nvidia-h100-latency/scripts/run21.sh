#!/bin/bash
# Device run 21 (issue 15): latency passes at radix 4 / 8 / 16, PDL, graphs; goals with and
# without PDL; sanitizers and warm kernel durations of the latency kernels.
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
timeout 200 ./polymul-bench check --only graphs,words,concurrency > $O/check.txt 2>&1; grep -E "^FAIL|passed" $O/check.txt | tail -12 | tee -a $S
for v in r4:: r16:POLYMUL_LATENCY_RADIX=16: r8:POLYMUL_LATENCY_RADIX=8: before:POLYMUL_PDL=0:POLYMUL_LATENCY_KERNELS=0; do
  name=${v%%:*}; envs=$(echo ${v#*:} | tr ':' ' ')
  echo "== latency $name ($envs)" | tee -a $S
  env $envs timeout 120 ./polymul-bench bench --quick --only latency --out $O/lat-$name > $O/lat-$name.log 2>&1
  grep "latency u" $O/lat-$name.log | grep -v DGT | tee -a $S
done
for v in pdl:: nopdl:POLYMUL_PDL=0:; do
  name=${v%%:*}; envs=$(echo ${v#*:} | tr ':' ' ')
  echo "== goals $name ($envs)" | tee -a $S
  env $envs timeout 100 ./polymul-bench bench --quick --only goals --out $O/goals-$name > $O/goals-$name.log 2>&1
  grep -E "^\|" $O/goals-$name/gpu.md | head -30 | cut -c1-200 | tee -a $S
done
export POLYMUL_PROFILE_REPS=3
for w in 32 64; do
  echo "== ncu warm $w 16 1 auto" | tee -a $S
  timeout 60 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum ./polymul-bench profile $w 16 1 auto > $O/ncu_$w.txt 2>&1
  grep -E "^  [a-z_0-9]+ \(|gpu__time_duration" $O/ncu_$w.txt | paste - - | awk '{print $1, $2, $3, $NF}' | tail -8 | tee -a $S
done
for w in 32 64; do for l in 12 16; do for b in 1; do
  for tool in memcheck racecheck; do
    r=$(timeout 60 compute-sanitizer --tool $tool ./polymul-bench profile $w $l $b auto 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
    echo "sanitizer $tool u$w 2^$l batch $b: $r" | tee -a $S
  done
done; done; done
