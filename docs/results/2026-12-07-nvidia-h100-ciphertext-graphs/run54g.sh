#!/bin/bash
# Issue 54, session 3, third call: the tensor-source inverse row kernel. Suites, memcheck and racecheck; ciphertext section mid (graph replay + paired forwards) then new (+ tensor-source pass); goals base/new; Nsight Compute of the u32 L=32 forward (tables, computed) and of the tensor product.
set -u
cd "$(dirname "$0")"
T0=$(date +%s); left() { echo $(( 210 - ($(date +%s) - T0) )); }
R=/tmp/r; mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; echo "base: $(cat base.commit), mid: $(cat mid.commit), new: $(cat new.commit)"; echo "commands: run54g.sh"; } | tee $R/summary.txt
step() { local name=$1 lim=$2; shift 2; local l=$(left); [ $l -lt 15 ] && { echo "SKIP $name (time)" | tee -a $R/summary.txt; return; }; [ $lim -gt $l ] && lim=$l; local t=$(date +%s); timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? in $(( $(date +%s) - t )) s" | tee -a $R/summary.txt; cp $R/summary.txt $OUT/ 2>/dev/null; }
step check 40 new/polymul-bench check --only tensor,reduced --seed 63
grep -E "^FAIL|^suite |passed" $R/check.log | tail -6 | tee -a $R/summary.txt
step memcheck 30 compute-sanitizer --tool memcheck --error-exitcode 9 new/polymul-bench check --only tensor,reduced --seed 64
grep -E "ERROR SUMMARY|^suite |^FAIL" $R/memcheck.log | tail -4 | tee -a $R/summary.txt
step ct-mid 50 mid/polymul-bench bench --quick --only ciphertext --out $R/ct-mid
step ct-new 50 new/polymul-bench bench --quick --only ciphertext --out $R/ct-new
grep -E "^\| u" $R/ct-new/gpu.md | cut -c1-420 | tee -a $R/summary.txt
grep -E "tensor" $R/ct-mid/gpu.md | cut -c1-200 | sed 's/^/mid: /' | tee -a $R/summary.txt
cp $R/ct-new/gpu.md $OUT/ct-new.md 2>/dev/null; cp $R/ct-mid/gpu.md $OUT/ct-mid.md 2>/dev/null; cp $R/summary.txt $OUT/
step racecheck 40 compute-sanitizer --tool racecheck --error-exitcode 9 new/polymul-bench check --only tensor,reduced --seed 65
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^suite |^FAIL" $R/racecheck.log | tail -4 | tee -a $R/summary.txt
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats"
step ncu-tensor 40 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy -k regex:"ntt_lazy|tensor" --launch-skip 4 --launch-count 4 new/polymul-bench profile-ciphertext 32 16 32 tensor 1
step ncu-fwd 35 ncu $SEC -k regex:ntt_lazy --launch-skip 2 --launch-count 2 new/polymul-bench profile-ciphertext 32 16 32 forward 1
for f in ncu-tensor ncu-fwd; do echo "== $f" | tee -a $R/summary.txt; grep -E "^  [a-z_0-9]+.*\(|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit Rate|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Waves Per SM|Theoretical Occupancy|No Eligible|Max Bandwidth" $R/$f.log | cut -c1-150 | tee -a $R/summary.txt; done
tar cJf $OUT/r54g.tar.xz -C /tmp r
cp $R/summary.txt $OUT/
