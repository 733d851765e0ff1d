#!/bin/bash
# Device run 37 (issue 17): the host library's new shape ("new", commit in
# bundle/r37/COMMIT) on one GPU: the whole check suite (bit-exact against
# the CPU, with the new api suite), the CLI's GPU files against its --cpu
# files (xtask/bundle/run.sh --cli-only), compute-sanitizer memcheck over
# the kernels whose arguments became structs, and racecheck over the api
# suite (out-of-place products, scratch copies); the three examples.
set -u
B=${1:-bundle/r37}
mkdir -p /tmp/b; gunzip -c $B/new.gz > /tmp/b/polymul-bench; gunzip -c $B/cli.gz > /tmp/b/polymul
chmod +x /tmp/b/polymul-bench /tmp/b/polymul; cp xtask/bundle/run.sh /tmp/b/
O=${OUT:-/tmp/out}; R=/tmp/r37; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "new = commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
t0=$(date +%s)
timeout 300 /tmp/b/polymul-bench check > $R/check.txt 2>&1; echo "check rc $?" | tee -a $S
grep -E "^FAIL|passed" $R/check.txt | tail -12 | tee -a $S
grep -E "api u" $R/check.txt | head -20 >> $S
echo "check took $(( $(date +%s) - t0 )) s" | tee -a $S
timeout 120 bash /tmp/b/run.sh --cli-only > $R/cli.txt 2>&1; echo "cli rc $?" | tee -a $S
grep -E "^(PASS|FAIL)|cli:" $R/cli.txt | tee -a $S
for e in polymul rns_polymul choose_kernel; do
  gunzip -c $B/ex-$e.gz > /tmp/b/ex-$e; chmod +x /tmp/b/ex-$e
  timeout 60 /tmp/b/ex-$e > $R/example-$e.txt 2>&1; echo "example $e rc $?: $(tail -1 $R/example-$e.txt)" | tee -a $S
done
for tool in memcheck racecheck; do
  only=words,reductions,tiles,fused,api; [ $tool = racecheck ] && only=api
  r=$(timeout 100 compute-sanitizer --tool $tool /tmp/b/polymul-bench check --quick --only $only --log-n 4,10 2>&1 | tee $R/$tool.log | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" | tail -2 | tr '\n' ' ')
  echo "sanitizer $tool check --quick --only $only --log-n 4,10: $r" | tee -a $S
done
echo "all done at $(( $(date +%s) - t0 )) s" | tee -a $S
tar czf $O/r37.tgz -C /tmp r37
