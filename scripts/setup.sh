#!/usr/bin/env bash
# polymul setup: everything a fresh Debian/Ubuntu machine needs to build, test
# and benchmark polymul. Idempotent: re-running it is quick.
#
#   1. the pinned nightly toolchain (rust-toolchain.toml) with rust-src and
#      llvm-tools (the kernels are built with -Zbuild-std=core and linked with
#      llvm-link/opt/llc, see docs/toolchain.md) and miri (`cargo xtask miri`,
#      with its sysroot: `cargo miri setup`); the stable toolchain (the
#      downstream example, examples/downstream) and the toolchain of the
#      workspace's rust-version (the MSRV check), both minimal;
#   2. ptxas from PyPI's nvidia-cuda-nvcc-cu12 wheel (CUDA 12.9: the last
#      release that still assembles sm_70) in target/tools/nvcc, for the
#      offline PTX checks of `cargo xtask test`; ptxas of CUDA 13.0 (PyPI
#      nvidia-cuda-nvcc) in target/tools/nvcc13, which build.rs uses to embed
#      SASS; and nvdisasm (PyPI nvidia-cuda-nvdisasm) for `cargo xtask sass`.
#
# No NVIDIA driver is needed: polymul loads libcuda.so.1 at run time and runs
# on the CPU without it (docs/toolchain.md, "Loading libcuda").
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

# --- 1. toolchain --------------------------------------------------------------
if ! command -v rustup >/dev/null 2>&1; then
  echo "setup: rustup is required (https://rustup.rs)" >&2; exit 1
fi
channel=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
if ! rustup run "$channel" rustc --version >/dev/null 2>&1 \
   || ! rustup component list --toolchain "$channel" --installed 2>/dev/null | grep -q '^rust-src' \
   || ! rustup component list --toolchain "$channel" --installed 2>/dev/null | grep -q '^llvm-tools'; then
  say "installing toolchain $channel (rust-src, llvm-tools, rustfmt, clippy)"
  rustup toolchain install "$channel" --profile minimal \
    --component rust-src --component llvm-tools --component rustfmt --component clippy
fi
# miri (`cargo xtask miri`, docs/testing.md) and its sysroot (built once, into
# ~/.cache/miri; `cargo miri setup` is quick when it is there).
if ! rustup component list --toolchain "$channel" --installed 2>/dev/null | grep -q '^miri'; then
  say "installing the miri component of $channel"
  rustup component add miri --toolchain "$channel"
fi
miri_sysroot=$(cargo "+$channel" miri setup --print-sysroot)
# stable: present on most machines; installed (never updated) if missing.
if ! rustup run stable rustc --version >/dev/null 2>&1; then
  say "installing the stable toolchain (examples/downstream builds with it)"
  rustup toolchain install stable --profile minimal
fi
# The minimum supported Rust (rust-version in Cargo.toml, 1.88 -> 1.88.0).
msrv=$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' Cargo.toml)
case "$msrv" in *.*.*) ;; *) msrv="$msrv.0" ;; esac
if ! rustup run "$msrv" rustc --version >/dev/null 2>&1; then
  say "installing toolchain $msrv (the minimum supported Rust: cargo xtask msrv)"
  rustup toolchain install "$msrv" --profile minimal
fi

# --- 2. ptxas --------------------------------------------------------------------
ptxas=target/tools/nvcc/nvidia/cuda_nvcc/bin/ptxas
if [ ! -x "$ptxas" ]; then
  say "installing ptxas (PyPI nvidia-cuda-nvcc-cu12==12.9.86) into target/tools/nvcc"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --target target/tools/nvcc nvidia-cuda-nvcc-cu12==12.9.86
fi
"$ptxas" --version | tail -1 | sed 's/^/setup: ptxas: /'

# --- 2b. ptxas of CUDA 13.0 (the compiler of the 13.0 driver's JIT) -----------
# build.rs assembles the kernels into SASS (cubins, embedded beside the PTX) so
# that a program does not spend ~10 s JIT-compiling PTX at start-up; with the
# same compiler version as the driver's JIT the code is the same. CUDA 13
# cannot assemble sm_70: that arch stays PTX-only. Optional: without it the
# cubins come from the 12.9 ptxas above.
ptxas13=target/tools/nvcc13/nvidia/cu13/bin/ptxas
if [ ! -x "$ptxas13" ]; then
  say "installing ptxas (PyPI nvidia-cuda-nvcc==13.0.88) into target/tools/nvcc13"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --target target/tools/nvcc13 nvidia-cuda-nvcc==13.0.88 \
    || echo "setup: CUDA 13 ptxas not installed (cubins will come from ptxas 12.9)" >&2
fi

# --- 3. nvdisasm (for `cargo xtask sass`; optional, no GPU needed) ---------------
nvdisasm=target/tools/nvdisasm/nvidia/cu13/bin/nvdisasm
if [ ! -x "$nvdisasm" ]; then
  say "installing nvdisasm (PyPI nvidia-cuda-nvdisasm==13.2.86) into target/tools/nvdisasm"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --target target/tools/nvdisasm nvidia-cuda-nvdisasm==13.2.86 \
    || echo "setup: nvdisasm not installed (only \`cargo xtask sass\` needs it)" >&2
fi
libcuda=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}' || true)
say "ready ($(rustup run "$channel" rustc --version), miri sysroot $miri_sysroot; stable: $(rustup run stable rustc --version); msrv: $(rustup run "$msrv" rustc --version); libcuda: ${libcuda:-none, polymul runs on the CPU})"
