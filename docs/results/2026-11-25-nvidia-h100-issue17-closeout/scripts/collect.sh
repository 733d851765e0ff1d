#!/bin/bash
# Gathers the device outputs of runs 41-42 (fetched under /work/.device/N by
# the device tool) into this folder and writes the comparisons.
set -eu
D=$(cd "$(dirname "$0")/.." && pwd); S=$D/scripts; T=$(mktemp -d)
tar xzf /work/.device/1/r41.tgz -C $T; tar xzf /work/.device/2/r42.tgz -C $T
for r in r41 r42; do
  mkdir -p $D/run${r#r}
  cp $T/$r/summary.txt $T/$r/check.txt $D/run${r#r}/
  for f in $T/$r/*-*-[0-9]; do cp $f/gpu.md $D/run${r#r}/$(basename $f).md; done
done
python3 $S/compare.py $T/r41 base new > $D/run41/comparison.md
python3 $S/compare.py $T/r42 base cur > $D/run42/comparison-cur.md
python3 $S/compare.py $T/r42 base rw > $D/run42/comparison-rw.md
python3 $S/compare.py $T/r42 cur rw > $D/run42/comparison-rw-vs-cur.md
rm -rf $T
# Runs 43 (the issue 18 merge, taken back) and 44 (main without it).
T=$(mktemp -d); tar xzf /work/.device/3/r43.tgz -C $T; tar xzf /work/.device/4/r44.tgz -C $T
mkdir -p $D/run43 $D/run44
cp $T/r43/summary.txt $T/r43/check.txt $T/r43/cli.txt $T/r43/rns.log $D/run43/
for f in $T/r43/*-*-[0-9]; do cp $f/gpu.md $D/run43/$(basename $f).md; done
python3 $S/compare.py $T/r43 base new > $D/run43/comparison.md
cp $T/r44/summary.txt $T/r44/check.txt $T/r44/cli.txt $D/run44/
rm -rf $T
