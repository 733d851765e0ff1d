#!/usr/bin/env bash
# Packs what crates/python/gpu_check.sh needs on a GPU machine without Rust
# or network into one folder (default bundle/py): the release wheel with
# the sm_90 kernels (SASS + PTX), the tests, the demo and the Dask example,
# the script, and the pytest, hypothesis, dask and distributed wheels (with
# their dependencies, for Python 3.12) for a Python without them.
#
#   bash crates/python/make_bundle.sh [DIR]       # then: bash DIR/gpu_check.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$root/bundle/py}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cd "$root"
ptxas=${POLYMUL_CUBIN_PTXAS:-$root/target/tools/nvcc13/nvidia/cu13/bin/ptxas}
rm -f "$dir"/polymul-*.whl
POLYMUL_PTX_ARCHS=${POLYMUL_PTX_ARCHS:-sm_90} POLYMUL_CUBIN=1 POLYMUL_CUBIN_PTXAS="$ptxas" \
  cargo xtask python --release --out "$dir/.wheel" --no-test
mv "$dir"/.wheel/polymul-*.whl "$dir"/ && rm -rf "$dir/.wheel"
rm -rf "$dir/tests" "$dir/examples"
cp -r crates/python/tests "$dir/tests"
rm -rf "$dir/tests/__pycache__"
mkdir -p "$dir/examples" && cp crates/python/examples/polymul_demo.py crates/python/examples/dask_products.py "$dir/examples/"
cp crates/python/gpu_check.sh "$dir/"
# hypothesis (tests/test_hypothesis.py): the release xtask/src/python.rs pins
# for CI, a pure-Python wheel.
hypothesis=$(grep -o 'hypothesis==[0-9.]*' xtask/src/python.rs | head -n 1)
if ! ls "$dir"/wheels/pytest-*.whl >/dev/null 2>&1 || ! ls "$dir"/wheels/"${hypothesis/==/-}"-*.whl >/dev/null 2>&1; then
  target/pyenv/bin/python -m pip download --quiet --only-binary :all: --python-version 3.12 \
    --platform manylinux2014_x86_64 pytest "$hypothesis" -d "$dir/wheels"
fi
# dask and distributed (tests/test_dask.py, examples/dask_products.py): the
# releases xtask/src/python.rs pins, with their dependencies (msgpack,
# psutil, pyyaml, tornado, markupsafe: binary wheels of CPython 3.12).
dask=$(grep -o 'dask==[0-9.]*' xtask/src/python.rs | head -n 1)
distributed=$(grep -o 'distributed==[0-9.]*' xtask/src/python.rs | head -n 1)
if ! ls "$dir"/wheels/"${dask/==/-}"-*.whl >/dev/null 2>&1 || ! ls "$dir"/wheels/"${distributed/==/-}"-*.whl >/dev/null 2>&1; then
  target/pyenv/bin/python -m pip download --quiet --only-binary :all: --python-version 3.12 \
    --platform manylinux2014_x86_64 "$dask" "$distributed" -d "$dir/wheels"
fi
ls -la "$dir"
