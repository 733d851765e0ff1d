#!/bin/bash
# polymul GPU bundle: the throughput measurements of issue 14 in one call.
#
#   [SANITIZE=1] bash perf.sh [--no-check] [--no-goals] [--no-ncu] [--ntt] [--sweep] [--batch-sweep] [--ncu-moderate]
#
# 1. nvidia-smi; the shared butterfly floor (butterfly_floor.cu, when nvcc and
#    the file are beside this script), for the same GPU in the same call;
# 2. the GPU check suite (every result bit for bit against the CPU);
# 3. `polymul-bench bench --quick --only goals` (the against-the-goals table,
#    before/after and floors in one run); with --ntt also the NTT table;
# 4. Nsight Compute on the lazy kernels at N = 2^16 (u64 and u32, forward
#    and inverse), at N = 2^14 (forward) and on the u32 product pass, text
#    reports; with --sweep, the duration of every lazy
#    pass kernel at radix 8 and 16, N = 2^10 … 2^17, both words (sweep.csv,
#    boost clocks: --clock-control none); with --batch-sweep, forward,
#    inverse and product at N = 2^16 for batches 1 … 512 at radix 8 and 16
#    (what a moderate batch or an RNS product runs at; batch-sweep.txt);
#    with --ncu-moderate, Nsight Compute (speed of light, occupancy, warp
#    states) on the product's kernels at the RNS rows' batches (u64: 20,
#    u32: 42 polynomials of 2^16 words).
# Everything lands in $OUT (or ./out): perf.tgz plus summary.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
work=$(mktemp -d); mkdir -p "$out"
check=1; ncu_on=1; ntt=0; sweep=0; goals=1; bsweep=0; ncu_mod=0
for a in "$@"; do case "$a" in --no-check) check=0;; --no-ncu) ncu_on=0;; --ntt) ntt=1;; --sweep) sweep=1;; --no-goals) goals=0;; --batch-sweep) bsweep=1;; --ncu-moderate) ncu_mod=1;; esac; done
sum=$work/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } | tee "$sum"
if [ -f "$here/butterfly_floor.cu" ] && command -v nvcc >/dev/null; then
  nvcc -O3 -arch=sm_90 -o "$work/floor" "$here/butterfly_floor.cu" && "$work/floor" | tee "$work/floor.txt" | tee -a "$sum"
fi
if [ "$check" = 1 ]; then
  timeout 300 "$here/polymul-bench" check > "$work/check.log" 2>&1
  echo "check exit $?" | tee -a "$sum"
  grep -v '^PASS' "$work/check.log" | tail -20 | tee -a "$sum"
fi
[ "$goals" = 1 ] && timeout 240 "$here/polymul-bench" bench --quick --only goals --out "$work/goals" 2> "$work/goals.stderr.log" | tail -30 | tee -a "$sum"
# The kernels at N = 2^16 side by side (batch 512, CUDA events, median of 20).
[ "$goals" = 1 ] && for w in 64 32; do
  for cfg in lazy-r8 lazy-r16 cluster auto; do
    timeout 60 "$here/polymul-bench" profile $w 16 512 $cfg 2>&1 | tail -1 | sed "s/^/$cfg: /" | tee -a "$sum"
  done
done
if [ "$bsweep" = 1 ]; then
  for w in 64 32; do
    for batch in 1 8 20 32 42 64 128 512; do
      for cfg in lazy-r8 lazy-r16; do
        timeout 60 "$here/polymul-bench" profile $w 16 $batch $cfg 2>&1 | tail -1 >> "$work/batch-sweep.txt"
      done
    done
  done
  sed -e 's/PlanOptions {[^}]*radix: Some(\([0-9]*\))[^}]*}/radix \1/' "$work/batch-sweep.txt" | tee -a "$sum"
fi
if [ "$ntt" = 1 ]; then
  timeout 300 "$here/polymul-bench" bench --quick --only ntt --out "$work/ntt" 2> "$work/ntt.stderr.log" > /dev/null
  echo "ntt table exit $?" | tee -a "$sum"
fi
if [ "$ncu_on" = 1 ] && command -v ncu >/dev/null; then
  for w in 64 32; do
    for d in fwd inv; do
      timeout 120 ncu --set full -k regex:ntt_lazy_$d -c 2 "$here/polymul-bench" profile $w 16 512 auto \
        > "$work/ncu_u${w}_16_$d.txt" 2>&1
      echo "ncu u$w $d exit $?" | tee -a "$sum"
    done
  done
fi
if [ "$ncu_on" = 1 ] && command -v ncu >/dev/null; then
  # The other rows that miss their goals: N = 2^14 forward (both kernels)
  # and the u32 product pass at N = 2^16.
  for w in 64 32; do
    timeout 120 ncu --set full -k regex:ntt_lazy_fwd -c 2 "$here/polymul-bench" profile $w 14 2048 auto \
      > "$work/ncu_u${w}_14_fwd.txt" 2>&1
    echo "ncu u$w 2^14 fwd exit $?" | tee -a "$sum"
  done
  timeout 120 ncu --set full -k regex:ntt_lazy_mul -c 1 "$here/polymul-bench" profile 32 16 512 auto \
    > "$work/ncu_u32_16_mul.txt" 2>&1
  echo "ncu u32 mul exit $?" | tee -a "$sum"
fi
if [ "$ncu_mod" = 1 ] && command -v ncu >/dev/null; then
  for wb in "64 20" "32 42"; do
    set -- $wb
    for k in fwd_col mul inv_col; do
      timeout 120 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
        --section SchedulerStats --section MemoryWorkloadAnalysis -k regex:ntt_lazy_$k -c 1 \
        "$here/polymul-bench" profile $1 16 $2 auto > "$work/ncu_moderate_u$1_b$2_$k.txt" 2>&1
      echo "ncu moderate u$1 batch $2 $k exit $?" | tee -a "$sum"
    done
  done
fi
if [ "$sweep" = 1 ] && command -v ncu >/dev/null; then
  for w in 32 64; do
    for ln in 10 12 14 16 17; do
      for r in 8 16; do
        batch=$(( (1 << 25) >> ln ))
        timeout 60 ncu --csv --clock-control none --metrics gpu__time_duration.sum -k regex:ntt_lazy \
          "$here/polymul-bench" profile $w $ln $batch lazy-r$r 2>/dev/null | grep ntt_lazy \
          | sed "s/^/\"u$w\",\"$ln\",\"$batch\",\"r$r\",/" >> "$work/sweep.csv"
      done
    done
  done
  echo "sweep: $(wc -l < "$work/sweep.csv") kernel timings" | tee -a "$sum"
fi
if [ "${SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  # The lazy, product and cluster kernels under memcheck and racecheck: one
  # and two passes, both words (profile runs forward, inverse and a product).
  for tool in memcheck racecheck; do
    jobs=${SANITIZE_JOBS:-"64 16 2 lazy-r8;64 16 2 lazy-r16;32 16 2 lazy-r16;32 16 2 lazy-r8;64 16 2 cluster;32 16 2 cluster;64 12 3 lazy-r16;32 13 3 lazy-r8;64 17 2 auto;32 10 5 auto"}
    IFS=';' read -ra joblist <<< "$jobs"
    for job in "${joblist[@]}"; do
      # shellcheck disable=SC2086
      POLYMUL_PROFILE_REPS=1 timeout "${SANITIZE_TIMEOUT:-100}" compute-sanitizer --tool $tool --error-exitcode 9 \
        "$here/polymul-bench" profile $job \
        > "$work/san.log" 2>&1
      rc=$?
      echo "$tool profile $job: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$work/san.log" | tail -1)" \
        | tee -a "$sum"
      cat "$work/san.log" >> "$work/sanitizer.log"
    done
  done
fi
cp "$sum" "$out/summary.txt"
tar czf "$out/perf.tgz" -C "$work" .
