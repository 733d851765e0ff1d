#!/bin/bash
# Register-cap experiment (docs/ntt.md, "Register caps"): the goals table and
# `profile` lines with the embedded kernels (base) and with capped cubins.
# Needs beside it: polymul-bench, k.ptx (the embedded PTX, from
# target/release/build/polymul-*/out/), ptx_regcap.py and capA.json /
# capB.json (entry -> .maxnreg); ptxas on the PATH.
set -u
cd "$(dirname "$0")"
out=${OUT:-out}; mkdir -p "$out"
PTXAS=$(command -v ptxas)
for v in capA capB; do
  (python3 ptx_regcap.py k.ptx $v.ptx $v.json && $PTXAS -arch=sm_90 -O3 -v -o $v.cubin $v.ptx 2> $out/ptxas_$v.txt; echo "ptxas $v exit $?") &
done
wait
for v in capA capB; do echo "$v spills:"; grep -B4 "[1-9][0-9]* bytes spill stores" $out/ptxas_$v.txt | grep -o "entry function '[a-z_0-9]*'\|[0-9]* bytes spill stores" | paste - - | head -30; done
for v in base capA capB; do
  img=""; [ $v != base ] && img=$PWD/$v.cubin
  env ${img:+POLYMUL_KERNEL_IMAGE=$img} timeout 200 ./polymul-bench bench --quick --only goals --out $out/goals-$v 2>$out/goals-$v.err | grep -E "^\| (u|R)" | cut -d'|' -f2,8 | sed "s/^/$v: /" | tee -a $out/regcap.txt
  for wb in "64 16 20" "32 16 42" "64 16 512" "32 16 512"; do
    for cfg in auto lazy-r16; do
      env ${img:+POLYMUL_KERNEL_IMAGE=$img} timeout 60 ./polymul-bench profile $wb $cfg 2>&1 | tail -1 | sed -e 's/PlanOptions {[^}]*, radix: \([A-Za-z(0-9)]*\)[^}]*}/radix \1/' -e "s/^/$v $cfg: /" | tee -a $out/regcap.txt
    done
  done
done
