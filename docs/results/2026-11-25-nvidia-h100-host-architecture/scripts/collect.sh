#!/bin/bash
# Gathers the device outputs of runs 37-40 (fetched under /work/.device/N by
# the device tool) into this folder and writes the comparisons.
set -eu
D=$(cd "$(dirname "$0")/.." && pwd); S=$D/scripts; T=$(mktemp -d)
tar xzf /work/.device/1/r37.tgz -C $T; tar xzf /work/.device/3/r38.tgz -C $T
mkdir -p $D/run37 $D/run38 $D/run39 $D/run40
cp $T/r37/{summary.txt,check.txt,cli.txt,memcheck.log,racecheck.log,example-*.txt} $D/run37/
cp $T/r38/summary.txt $T/r38/*.log $D/run38/
for x in goals latency; do for v in base new; do for r in 1 2; do cp $T/r38/$x-$v-$r/gpu.md $D/run38/$x-$v-$r.md; done; done; done
for v in base new; do cp $T/r38/fused-$v/gpu.md $D/run38/fused-$v.md; done
cp /work/.device/3/full-check.txt $D/run38/check-5acb568-timeout150.txt
cp /work/.device/6/check.txt $D/run39/check.txt; cp /work/.device/6/racecheck.txt $D/run39/racecheck-api.txt
cp /work/.device/7/r40/*.log /work/.device/7/r40/check-dgt.txt $D/run40/
python3 $S/compare.py $T/r38 > $D/run38/comparison.md
python3 $S/r40_compare.py $D/run40 > $D/run40/dgt-latency.md
rm -rf $T
