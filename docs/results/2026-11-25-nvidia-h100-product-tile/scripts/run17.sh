#!/bin/bash
# Device run 17: DRAM and L2 bytes of the u32 product pass at N = 2^16 for one RNS product of 42 towers
# (bench --only rns, first launches) against one modulus at batch 42 (profile), 4b84766.
set -u
cd "$(dirname "$0")"; for f in polymul-bench; do [ -f $f ] || gunzip -k $f.gz; chmod +x $f; done
O=${OUT:-/tmp/out}; mkdir -p $O
S=$O/summary.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } | tee $S
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,launch__grid_size,launch__grid_dim_y
for k in ntt_lazy_mul_row_l8_r4_u32 ntt_lazy_fwd_col_l8_r4_u32 ntt_lazy_inv_col_l8_r4_u32; do
  echo "== $k, RNS 42 x 30-bit towers, one product (bench --quick --only rns)" | tee -a $S
  timeout 150 ncu --metrics $M -k regex:$k -c 1 ./polymul-bench bench --quick --only rns --out $O/rns > $O/ncu_rns_$k.txt 2>&1
  grep -E "gpu__time|dram__bytes|lts__t_bytes|grid_size|grid_dim_y" $O/ncu_rns_$k.txt | tee -a $S
  echo "== $k, one modulus, batch 42 (profile 32 16 42 auto)" | tee -a $S
  timeout 60 ncu --metrics $M -k regex:$k -c 1 ./polymul-bench profile 32 16 42 auto > $O/ncu_b42_$k.txt 2>&1
  grep -E "gpu__time|dram__bytes|lts__t_bytes|grid_size|grid_dim_y" $O/ncu_b42_$k.txt | tee -a $S
done
rm -rf $O/rns
