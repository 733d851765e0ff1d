#!/bin/bash
# Issue 53's final tree: soundness + graphs checks, memcheck of the soundness suite and of outlive-gpu, goals before/after.
set -u
cd "$(dirname "$0")"
T0=$(date +%s); left() { echo $(( 540 - ($(date +%s) - T0) )); }
mkdir -p /tmp/r
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; echo "base: ad6f970, new: $(cat new.commit)"; echo "commands: see run53.sh"; } | tee /tmp/r/summary.txt
step() { local name=$1 lim=$2; shift 2; local l=$(left); [ $l -lt 20 ] && { echo "SKIP $name (time)"; return; }; [ $lim -gt $l ] && lim=$l; local t=$(date +%s); timeout $lim "$@" > /tmp/r/$name.log 2>&1; echo "$name rc=$? in $(( $(date +%s) - t )) s" | tee -a /tmp/r/summary.txt; }
step check-soundness 120 new/polymul-bench check --only soundness,graphs --seed 53
grep -E "^FAIL|^suite |passed, " /tmp/r/check-soundness.log | tee -a /tmp/r/summary.txt
step memcheck-soundness 150 compute-sanitizer --tool memcheck --error-exitcode 9 new/polymul-bench check --only soundness --seed 54
grep -E "ERROR SUMMARY|passed, |^FAIL" /tmp/r/memcheck-soundness.log | tail -4 | tee -a /tmp/r/summary.txt
step memcheck-outlive 60 compute-sanitizer --tool memcheck --error-exitcode 9 new/polymul-bench outlive-gpu
grep -E "ERROR SUMMARY|PASS|FAIL|ok" /tmp/r/memcheck-outlive.log | tail -3 | tee -a /tmp/r/summary.txt
for i in 1; do for v in base new; do
  step goals-$v-$i 60 $v/polymul-bench bench --quick --only goals --out /tmp/r/goals-$v-$i
done; done
python3 ../scripts/compare_runs.py /tmp/r /tmp/r/goals-before-after.md "issue 53 (soundness, round two), final tree" base new; echo "compare rc=$?"
tar cJf $OUT/r53.tar.xz -C /tmp r
cp /tmp/r/goals-before-after.md /tmp/r/summary.txt $OUT/ 2>/dev/null
grep -E "^\|" /tmp/r/goals-before-after.md | cut -c1-160 | head -30
