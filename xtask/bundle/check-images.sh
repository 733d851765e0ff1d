#!/bin/bash
# The check suite once per kernel image: the binary's embedded default, then
# the PTX (JIT-compiled by this machine's driver) and the cubins of CUDA 12.9's
# and CUDA 13.0's ptxas from kernel-images.tar.xz (`cargo xtask gpu-bundle`),
# each loaded through POLYMUL_KERNEL_IMAGE. Part of the GPU bundle.
#
#   bash check-images.sh [CHECK ARGS ...]    e.g. --only rns,convert
#
# Runs `polymul-bench check --quick CHECK ARGS` per image, for the bundled arch
# this GPU runs (the newest of the same major version, minor not above the
# device's; CHECK_IMAGES_ARCH=sm_80 chooses), and prints one summary line per
# image: checks passed and failed, the exit status, and the kernels the suite
# says it loaded (its `device:` line), which must be the file asked for.
#
# Environment:
#   CHECK_IMAGES_ARCH  the images' arch (default: from nvidia-smi)
#   CHECK_IMAGES_OUT   where the logs and summary.md go (default ./out-images)
#   CHECK_IMAGES_TOOL  run each under `compute-sanitizer --tool TOOL` (e.g. memcheck)
#
# Exit status: 0 when every image loaded as asked and passed every check, else 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/polymul-bench
images=$here/images
out=${CHECK_IMAGES_OUT:-$here/out-images}
mkdir -p "$out"

if [ ! -f "$images/images.txt" ]; then
  [ -f "$here/kernel-images.tar.xz" ] || { echo "no kernel-images.tar.xz in $here (cargo xtask gpu-bundle without --no-images)"; exit 1; }
  mkdir -p "$images"
  if command -v xz >/dev/null 2>&1; then
    tar -C "$images" -xJf "$here/kernel-images.tar.xz" || exit 1
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' \
      "$here/kernel-images.tar.xz" "$images" || exit 1
  fi
fi

arch=${CHECK_IMAGES_ARCH:-}
if [ -z "$arch" ]; then
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 2>/dev/null | head -1 | tr -d ' ')
  [ -n "$cap" ] || { echo "nvidia-smi gave no compute capability: set CHECK_IMAGES_ARCH=sm_XY"; exit 1; }
  major=${cap%%.*}; minor=${cap#*.}
  for a in $(cut -d' ' -f2 "$images/images.txt" | sort -u); do
    n=${a#sm_}
    if [ "${n:0:${#n}-1}" = "$major" ] && [ "${n: -1}" -le "$minor" ]; then arch=$a; fi
  done
  [ -n "$arch" ] || { echo "no bundled image runs on compute capability $cap (images: $(cut -d' ' -f2 "$images/images.txt" | sort -u | xargs))"; exit 1; }
fi

tool=()
[ -n "${CHECK_IMAGES_TOOL:-}" ] && tool=(compute-sanitizer --tool "$CHECK_IMAGES_TOOL" --print-limit 50)

# name|file ('' = the embedded default)|what
list() {
  echo "embedded||the binary's own choice (its cubin for this device, else its PTX)"
  while read -r file a label what; do
    [ "$a" = "$arch" ] || continue
    echo "$label|$images/$file|$what"
  done < "$images/images.txt"
}

status=0
summary=()
while IFS='|' read -r name file what; do
  log=$out/$name-$arch.log
  [ "$name" = embedded ] && log=$out/embedded.log
  t0=$(date +%s)
  POLYMUL_KERNEL_IMAGE=$file ${tool[@]+"${tool[@]}"} "$bench" check --quick "$@" > "$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - t0 ))
  counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  kernels=$(sed -n 's/^device: .*, kernels: \(.*\), context + module load .*/\1/p' "$log" | head -1)
  loaded=ok
  if [ -n "$file" ] && [[ "$kernels" != "$file (GpuOptions::kernel_image)"* ]]; then loaded="NOT the file asked for"; fi
  san=
  if [ ${#tool[@]} -gt 0 ]; then san=" | $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/^=* *//')"; fi
  if [ "$rc" != 0 ] || [ -z "$counts" ] || [[ "$counts" != *" 0 failed" ]] || [ "$loaded" != ok ]; then status=1; fi
  line=$(printf '%-9s %-6s %-28s rc %-3s %4ss  loaded: %s (%s)%s' "$name" "$arch" "${counts:-no result}" "$rc" "$secs" "${kernels:-?}" "$loaded" "$san")
  echo "$line"
  summary+=("| $name | $arch | $what | ${counts:-no result} | $rc | $secs | ${kernels:-?} | $loaded |")
done < <(list)

{
  echo "# The check suite per kernel image (check-images.sh)"
  echo
  echo "- $(grep -m1 '^device:' "$out/embedded.log" 2>/dev/null | sed 's/, kernels: .*//')"
  echo "- command: \`bash check-images.sh $*\` (polymul-bench check --quick $*)${CHECK_IMAGES_TOOL:+, under compute-sanitizer --tool $CHECK_IMAGES_TOOL}"
  echo
  echo "| image | arch | what | checks | rc | seconds | kernels loaded (the suite's words) | as asked |"
  echo "| --- | --- | --- | --- | ---: | ---: | --- | --- |"
  printf '%s\n' "${summary[@]}"
} > "$out/summary.md"
echo "summary: $out/summary.md"
exit $status
