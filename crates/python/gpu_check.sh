#!/usr/bin/env bash
# The polymul Python package on a GPU machine (no Rust, no network needed):
# a fresh venv (--system-site-packages: NumPy and CuPy of the machine),
# `pip install --no-deps` of the prebuilt wheel, then the pytest suite —
# CPU and GPU products against the pure-Python reference, plans on
# device="cuda:0" / device=0 (and cuda:1 where there are two GPUs), wisdom
# entries for this GPU used by its plans, the CuPy / DLPack zero-copy
# tests — and the demo script. Results go to $OUT
# (default: ./py-gpu-check).
#
#   bash gpu_check.sh [WHEEL]
#
# WHEEL defaults to the polymul-*.whl beside this script; the tests and the
# demo are tests/ and examples/ beside it. Without pytest on the machine it is installed from
# the wheels in wheels/ beside this script (pytest, pluggy, iniconfig,
# packaging), offline; so is hypothesis (and sortedcontainers) for the
# property tests of tests/test_hypothesis.py, which skip without it; and
# dask and distributed (with their dependencies, CPython 3.12 wheels) for
# tests/test_dask.py and the Dask example.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/py-gpu-check}
mkdir -p "$out"
log="$out/gpu_check.log"
exec > >(tee -a "$log") 2>&1

wheel=${1:-$(ls "$here"/polymul-*.whl 2>/dev/null | head -n 1)}
if [ -z "$wheel" ] || [ ! -f "$wheel" ]; then
  echo "gpu_check: no polymul wheel given or beside $here" >&2; exit 2
fi
# Beside the script: crates/python/ in a checkout, or the bundle folder
# (bundle/py/ holds copies of tests/ and examples/).
tests="$here/tests"
demo="$here/examples/polymul_demo.py"
dask_example="$here/examples/dask_products.py"
echo "== gpu_check: wheel $wheel, tests $tests, output $out"
date -u
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$out/nvidia-smi.txt"
py=${PYTHON:-}
if [ -z "$py" ]; then
  for c in python3.12 python3; do
    if "$c" -c 'import numpy' >/dev/null 2>&1; then py=$(command -v "$c"); break; fi
  done
fi
[ -n "$py" ] || { echo "gpu_check: no python3 with numpy found (set PYTHON)"; exit 1; }
"$py" --version

venv="$out/venv"
rm -rf "$venv" "$out/site"
# A venv sees the base interpreter's site-packages, not those of a venv the
# machine's python3 may itself live in (the H100 machine's NumPy and CuPy are
# in /opt/torch/.venv): use one only if NumPy imports inside it.
if "$py" -m venv --system-site-packages "$venv" && "$venv/bin/python" -m pip --version >/dev/null 2>&1 \
  && "$venv/bin/python" -c "import numpy" >/dev/null 2>&1; then
  vpy="$venv/bin/python"
  "$vpy" -m pip install --no-deps --no-index --quiet "$wheel" || { echo "gpu_check: wheel install failed"; exit 1; }
  if ! "$vpy" -c "import pytest" 2>/dev/null; then
    echo "== pytest missing: installing it from $here/wheels (offline)"
    "$vpy" -m pip install --no-index --quiet --find-links "$here/wheels" pytest \
      || { echo "gpu_check: no pytest"; exit 1; }
  fi
  if ! "$vpy" -c "import hypothesis" 2>/dev/null; then
    echo "== hypothesis missing: installing it from $here/wheels (offline)"
    "$vpy" -m pip install --no-index --quiet --find-links "$here/wheels" hypothesis \
      || echo "gpu_check: no hypothesis wheel: tests/test_hypothesis.py will be skipped"
  fi
  if ! "$vpy" -c "import distributed" 2>/dev/null; then
    echo "== distributed missing: installing dask and distributed from $here/wheels (offline)"
    "$vpy" -m pip install --no-index --quiet --find-links "$here/wheels" dask distributed \
      || echo "gpu_check: no dask wheels for this Python: tests/test_dask.py will be skipped, no Dask run"
  fi
else
  # No venv/ensurepip on this Python: unpack the wheels (zip files) onto
  # PYTHONPATH instead of installing them.
  echo "== no venv with pip here: unpacking the wheel onto PYTHONPATH"
  vpy="$py"
  mkdir -p "$out/site"
  "$py" -m zipfile -e "$wheel" "$out/site"
  if ! "$py" -c "import pytest" 2>/dev/null || ! "$py" -c "import hypothesis" 2>/dev/null \
    || ! "$py" -c "import distributed" 2>/dev/null; then
    for w in "$here"/wheels/*.whl; do "$py" -m zipfile -e "$w" "$out/site"; done
  fi
  export PYTHONPATH="$out/site${PYTHONPATH:+:$PYTHONPATH}"
fi
cd "$out" || exit 1   # import polymul from the installed wheel, not a source tree
"$vpy" - <<'PY' 2>&1 | tee "$out/environment.txt"
import sys, numpy, polymul
print("python", sys.version.split()[0], "numpy", numpy.__version__, "polymul", polymul.__version__)
print("polymul file:", polymul.__file__)
print("backend:", polymul.backend())
try:
    import cupy
    print("cupy", cupy.__version__, "device", cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
except Exception as e:
    print("cupy: not usable:", e)
assert polymul.gpu_available(), "polymul sees no GPU: the GPU tests would be skipped"
print("device_count:", polymul.device_count())
for d in ("cuda:0", 0, "cuda", "auto"):
    p = polymul.NttPlan(1024, device=d)
    assert p.on_gpu and p.device == "cuda:0", (d, p.device)
    print(f"device={d!r}: {p.device}, {p.backend}, {p.decision}")
PY
env_rc=${PIPESTATUS[0]}

"$vpy" -m pytest -p no:cacheprovider -rs -v --junitxml="$out/junit.xml" "$tests" 2>&1 | tee "$out/pytest.txt"
rc=${PIPESTATUS[0]}
"$vpy" "$demo" 2>&1 | tee "$out/demo.txt"
demo_rc=${PIPESTATUS[0]}
if "$vpy" -c "import distributed" 2>/dev/null; then
  echo "== Dask example: every GPU, u64 N = 2^16 × 256 (scatter, then seeds)"
  { "$vpy" "$dask_example" --device gpu --n 65536 --batch 256 --repeat 5 \
      && "$vpy" "$dask_example" --device gpu --n 65536 --batch 256 --repeat 5 --operands seeds; } 2>&1 \
    | tee "$out/dask.txt"
  dask_rc=${PIPESTATUS[0]}
else
  echo "== Dask example: skipped, no distributed" | tee "$out/dask.txt"
  dask_rc=1
fi
echo "== gpu_check: environment rc=$env_rc pytest rc=$rc demo rc=$demo_rc dask rc=$dask_rc"
grep -E "^(SKIPPED|FAILED|ERROR)" "$out/pytest.txt" | head -n 40
rm -rf "$venv" "$out/site"
[ "$env_rc" = 0 ] && [ "$rc" = 0 ] && [ "$demo_rc" = 0 ] && [ "$dask_rc" = 0 ]
