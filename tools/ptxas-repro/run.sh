#!/bin/bash
# The ptxas loop-strength-reduction reproducer (docs/toolchain.md, "A ptxas
# miscompilation to stay clear of").
#
#   bash run.sh sass   no GPU: assemble repro.ptx and control.ptx with ptxas
#                      12.9 and 13.0 (PTXAS12, PTXAS13; default: the copies
#                      scripts/setup.sh installs in target/tools), rewrite the
#                      committed *.ptxas12.cubin / *.ptxas13.cubin, and print
#                      each loop's SASS (nvdisasm: NVDISASM or target/tools)
#   bash run.sh        on a GPU machine with the CUDA toolkit (nvcc) and driver:
#                      build repro.c, run it on every image: the committed
#                      cubins of both ptxas versions, the PTX (the driver's
#                      JIT) and a cubin from this machine's ptxas; one line
#                      per image. Exit status 0 when the control images are
#                      all right (whatever the repro images give), else 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
root=$(cd "$here/../.." && pwd)
tools=$root/target/tools

if [ "${1:-}" = sass ]; then
  p12=${PTXAS12:-$tools/nvcc/nvidia/cuda_nvcc/bin/ptxas}
  p13=${PTXAS13:-$tools/nvcc13/nvidia/cu13/bin/ptxas}
  dis=${NVDISASM:-$tools/nvdisasm/nvidia/cu13/bin/nvdisasm}
  for k in repro control; do
    for v in 12 13; do
      p=$p12; [ $v = 13 ] && p=$p13
      "$p" -arch=sm_90 -O3 -o "$k.ptxas$v.cubin" "$k.ptx" || exit 1
      echo "=== $k.ptx, $("$p" --version | grep -o 'V[0-9][0-9.]*'), ptxas -arch=sm_90 -O3"
      "$dis" -c "$k.ptxas$v.cubin" 2>/dev/null | sed -n 's#^ *\(/\*[0-9a-f]*\*/\) *\([^;]*;\).*#  \1 \2#p; /^\.L_x_0:/p' \
        | sed -n '1,/@!P0 BRA/p'
    done
  done
  exit 0
fi

nvcc=${NVCC:-nvcc}
"$nvcc" -O2 -o repro repro.c -lcuda || { echo "building repro.c failed (nvcc, -lcuda)"; exit 2; }
own=
if command -v ptxas >/dev/null 2>&1 || [ -x "$(dirname "$(command -v "$nvcc")")/ptxas" ]; then
  own=$(command -v ptxas || echo "$(dirname "$(command -v "$nvcc")")/ptxas")
  for k in repro control; do "$own" -arch=sm_90 -O3 -o "$k.local.cubin" "$k.ptx"; done
  echo "this machine's ptxas: $("$own" --version | grep -o 'V[0-9][0-9.]*')"
fi
status=0
for k in repro control; do
  for img in "$k.ptxas12.cubin" "$k.ptxas13.cubin" "$k.ptx" ${own:+"$k.local.cubin"}; do
    ./repro "$img" "$@" > "$img.log" 2>&1
    rc=$?
    printf '%-24s rc %d  %s\n' "$img" "$rc" "$(tail -1 "$img.log")"
    [ "$k" = control ] && [ "$rc" != 0 ] && status=1
  done
done
echo "(logs: $here/*.log; repro.ptx's images are expected to be wrong with the affected ptxas versions)"
exit $status
