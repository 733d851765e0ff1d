#!/bin/bash
# compute-sanitizer over the GPU check suite, split into jobs that run as
# parallel processes (spread over the GPUs when there are several), with a
# summary table. Part of the GPU bundle (`cargo xtask gpu-bundle`).
#
#   bash sanitize.sh OUTDIR [JOB ...]     default: every job below
#
# Environment:
#   SANITIZE_TOOLS    tools to run (default: memcheck racecheck synccheck initcheck)
#   SANITIZE_PAR      processes at a time (default 6)
#   SANITIZE_TIMEOUT  seconds per process before it is stopped and marked
#                     incomplete (default 520)
#   SANITIZE_SEED     the check suite's seed (default 20261122)
#   SANITIZE_BUDGET   seconds for the whole run (default: none): no process
#                     starts later than that, and each one's limit shrinks
#                     so that all end in time
#
# Writes OUTDIR/TOOL-JOB.log per process and OUTDIR/summary.md (one row per
# process: checks passed/failed, the sanitizer's own summary line, seconds,
# complete or stopped at the time limit). Exit status: 0 when every process
# completed with 0 failed checks and 0 errors/hazards; 1 when any reported
# an error, a hazard or a failed check; 2 when some only ran out of time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/polymul-bench
summarize_only=0
if [ "${1:-}" = --summarize ]; then summarize_only=1; shift; fi
outdir=${1:?usage: sanitize.sh [--summarize] OUTDIR [JOB ...]}
shift
mkdir -p "$outdir"
seed=${SANITIZE_SEED:-20261122}
par=${SANITIZE_PAR:-6}
limit=${SANITIZE_TIMEOUT:-520}
start=$(date +%s)
end=$(( start + ${SANITIZE_BUDGET:-999999} ))

# name|check arguments[|alone]. `alone`: runs after the others, by itself
# (the error suite fills the card to test out-of-memory paths). Together: every kernel (each NTT configuration x
# reduction x word, tiles, fused, RNS towers, DGT passes and codecs, the
# pointwise kernels) at small and large N, single and batched; the dgt-all
# jobs run every DGT configuration the search can choose (u32, one tower).
jobs_table() {
  cat <<'JOBS'
words-10|--quick --only words --log-n 10
words-12|--quick --only words --log-n 12
words-13|--quick --only words --log-n 13
words-14|--quick --only words --log-n 14
words-16|--quick --only words --log-n 16
words-17|--quick --only words --log-n 17
reductions|--quick --only reductions
tiles|--quick --only tiles
fused|--quick --only fused
rns|--quick --only rns
dgt|--quick --only dgt
dgt-all-2-12|--only dgt --log-n 2,3,4,5,6,7,8,9,10,11,12
dgt-all-13-14|--only dgt --log-n 13,14
dgt-all-15|--only dgt --log-n 15
dgt-all-16|--only dgt --log-n 16
dgt-all-17|--only dgt --log-n 17
planner|--quick --only planner
props|--only props --cases 40
concurrency|--quick --only concurrency
errors|--quick --only errors|alone
JOBS
}

want=" $* "
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${ngpu:-0}" -ge 1 ] || ngpu=1
i=0
run_one() { # tool name args gpu
  local tool=$1 name=$2 args=$3 gpu=$4 log="$outdir/$1-$2.log" t0 rc lim
  t0=$(date +%s)
  lim=$(( end - t0 < limit ? end - t0 : limit ))
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=$gpu timeout -k 15 "$lim" compute-sanitizer --tool "$tool" \
    --report-api-errors no --print-limit 200 "$bench" check --seed "$seed" $args > "$log" 2>&1
  rc=$?
  echo "$rc $(( $(date +%s) - t0 )) gpu$gpu $(date -u +%Y-%m-%dT%H:%MZ)" > "$log.status"
}
alone=()
[ "$summarize_only" = 1 ] || for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
  while IFS='|' read -r name args mode; do
    [ "$want" = "  " ] || [[ "$want" == *" $name "* ]] || continue
    if [ "$mode" = alone ]; then alone+=("$tool|$name|$args"); continue; fi
    while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n; done
    if [ $(( end - $(date +%s) )) -lt 30 ]; then
      echo "$tool $name: not started (SANITIZE_BUDGET spent)" >&2; continue
    fi
    run_one "$tool" "$name" "$args" $((i % ngpu)) &
    i=$((i + 1))
  done < <(jobs_table)
done
wait
# The jobs that need a GPU to themselves: one at a time, on GPU 0, after
# every other process has ended.
for job in "${alone[@]}"; do
  IFS='|' read -r tool name args <<< "$job"
  if [ $(( end - $(date +%s) )) -lt 30 ]; then
    echo "$tool $name: not started (SANITIZE_BUDGET spent)" >&2; continue
  fi
  run_one "$tool" "$name" "$args" 0
done

# Summary.
status=0
{
  echo "# compute-sanitizer over the check suite"
  echo
  first=$(ls "$outdir"/*.log 2>/dev/null | head -1)
  echo "- device: $(grep -m1 '^device:' "${first:-/dev/null}" | sed 's/^device: //')"
  if [ "$summarize_only" = 0 ]; then
    echo "- $(compute-sanitizer --version 2>/dev/null | grep -i version | head -1)"
    echo "- seed $seed; $par processes at a time over $ngpu GPU(s); time limit ${limit} s per process"
    echo "- command: \`SANITIZE_TOOLS='${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}' bash sanitize.sh OUT $*\`"
  else
    echo "- summary of the logs in this folder (\`bash sanitize.sh --summarize DIR\`)"
  fi
  echo
  echo "| tool | job | checks passed | failed | sanitizer summary | seconds | finished (UTC) | state |"
  echo "| --- | --- | ---: | ---: | --- | ---: | --- | --- |"
  for st in "$outdir"/*.log.status; do
    [ -e "$st" ] || continue
    log=${st%.status}; base=$(basename "$log" .log); tool=${base%%-*}; job=${base#*-}
    when=
    read -r rc secs _ when < "$st"
    [ -n "$when" ] || when=$(date -u -r "$st" +%Y-%m-%dT%H:%MZ)
    counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
    passed=$(grep -c '^PASS' "$log"); failed=$(grep -c '^FAIL' "$log")
    summ=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -1 | sed 's/^=* *//')
    if [ -n "$counts" ] && [ -n "$summ" ]; then state=complete; else state="stopped at its time limit (rc $rc)"; fi
    errs=$(printf '%s' "$summ" | grep -oE '[0-9]+ (errors|hazards)' | head -1 | cut -d' ' -f1)
    if [ "$failed" != 0 ] || [ "${errs:-0}" != 0 ] || grep -q '========= \(Invalid\|Race\|Barrier\|Uninitialized\|Error\|Warning\)' "$log"; then
      status=1
    elif [ "$state" != complete ] && [ "$status" = 0 ]; then
      status=2
    fi
    echo "| $tool | $job | $passed | $failed | ${summ:-none (stopped)} | $secs | $when | $state |"
  done
} > "$outdir/summary.md"
cat "$outdir/summary.md"
exit $status
