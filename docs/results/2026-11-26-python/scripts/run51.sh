#!/bin/bash
# Device run 51 (main 3d0d7f8: issues 18, 19, 20 merged): the Python
# package's GPU check (bundle/py3: the release wheel built on the CPU
# machine by crates/python/make_bundle.sh, installed on this machine's
# Python 3.12, pytest CPU+GPU, CuPy zero-copy, the demo), then the quick
# check suites of the host code the merges touched, and memcheck on api.
set -u
O=${OUT:-/tmp/out}; R=/tmp/r51; rm -rf $R; mkdir -p $R $O
S=$R/summary.txt
{ date -u; echo "commit $(cat bundle/r51/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv; } | tee $S
t0=$(date +%s)
(cd bundle/py3 && OUT=$R/py timeout 300 bash gpu_check.sh) > $R/py.txt 2>&1
echo "python rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S
grep -E "passed|failed|SKIPPED|FAILED|ERROR|gpu_check:" $R/py.txt | tail -20 | tee -a $S
gunzip -c bundle/r51/new.gz > /tmp/new; chmod +x /tmp/new
timeout 200 /tmp/new check --quick --only api,rns,convert,errors,graphs > $R/check.txt 2>&1
echo "check rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -1 $R/check.txt | tee -a $S; grep -m8 FAIL $R/check.txt | tee -a $S
timeout 150 compute-sanitizer --tool memcheck /tmp/new check --quick --only api > $R/memcheck-api.txt 2>&1
echo "memcheck rc $? at $(( $(date +%s) - t0 )) s" | tee -a $S; tail -2 $R/memcheck-api.txt | tee -a $S
tar czf $O/r51.tgz -C /tmp r51
