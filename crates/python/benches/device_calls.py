"""The Python device path against the core (issue 54): CUDA events around
one call on CuPy's current stream, median of many, for the forward
transform of one polynomial of L towers (N = 2^16, 30-bit u32 primes) and
the ciphertext tensor product, as shipped (``plan.forward(x, inplace=True)``,
``plan.forward(x)``, which copies ``x`` first, ``plan.tensor(a, b)``) and
through the compiled core alone (``_core.device_op``, what the wrapper
calls after its checks). Prints a markdown table; the Rust calls' times
come from ``polymul-bench bench --only ciphertext`` in the same session.

    python device_calls.py [--quick] > python-device.md
"""

import statistics
import sys
import time

import cupy
import numpy as np

import polymul


def timed(fn, reps, warm=20):
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    for _ in range(warm):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    out = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        out.append(cupy.cuda.get_elapsed_time(start, stop) * 1e3)
    return statistics.median(out)


def host_us(fn, reps, warm=20):
    """Wall-clock µs per call of back-to-back calls (the host's cost when
    the GPU keeps up)."""
    for _ in range(warm):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    return (time.perf_counter() - t0) / reps * 1e6


def main():
    quick = "--quick" in sys.argv
    reps = 100 if quick else 400
    n = 1 << 16
    rows = []
    for towers in (1, 8, 32):
        plan = polymul.RnsPlan(n, bits=30, towers=towers, word=32, device="gpu") if towers > 1 else \
            polymul.NttPlan(n, bits=30, word=32, device="gpu")
        rng = np.random.default_rng(towers)
        host = np.stack([rng.integers(0, q, size=n, dtype=np.uint64) for q in plan.primes]).astype(np.uint32)
        x = cupy.asarray(host)
        # Correctness first: the device call equals the host call.
        assert (cupy.asnumpy(plan.forward(x)) == plan.forward(host)).all()
        size = x.size
        ptr = x.data.ptr
        core = plan._core
        stream = cupy.cuda.get_current_stream().ptr
        rows.append((f"forward, L = {towers}", {
            "shipped, inplace=True": timed(lambda: plan.forward(x, inplace=True), reps),
            "shipped, new array": timed(lambda: plan.forward(x), reps),
            "core.device_op": timed(lambda: core.device_op("forward", size, stream, ptr), reps),
            "host µs per call (back to back, inplace)": host_us(lambda: plan.forward(x, inplace=True), reps),
        }))
        plan.synchronize()
        # x was transformed in place many times: still reduced words.
    for towers in (32,):
        plan = polymul.RnsPlan(n, bits=30, towers=towers, word=32, device="gpu")
        rng = np.random.default_rng(7)
        mk = lambda: np.stack(
            [rng.integers(0, q, size=(2, n), dtype=np.uint64) for q in plan.primes]
        ).astype(np.uint32)
        ha, hb = mk(), mk()
        a, b = cupy.asarray(ha), cupy.asarray(hb)
        assert (cupy.asnumpy(plan.tensor(a, b)) == plan.tensor(ha, hb)).all()
        out = cupy.empty((towers, 3, n), dtype=cupy.uint32)
        rows.append((f"tensor product, L = {towers}", {
            "shipped, inplace=True": float("nan"),
            "shipped, new array": timed(lambda: plan.tensor(a, b, out=out), reps),
            "core.device_op": timed(
                lambda: plan._core.device_op("tensor", a.size, cupy.cuda.get_current_stream().ptr,
                                             a.data.ptr, b.data.ptr, out.data.ptr), reps),
            "host µs per call (back to back, inplace)": float("nan"),
        }))
        plan.synchronize()
    dev = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"## Python device calls ({dev}, polymul {polymul.__version__})\n")
    print("µs per call: CUDA events around one call on CuPy's current stream, median of "
          f"{reps}; N = 2^16, 30-bit u32 primes. \"new array\" copies the input first (tensor: "
          "fills `out`). Host µs: back-to-back calls' wall clock per call.\n")
    cols = list(rows[0][1].keys())
    print("| row | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for name, v in rows:
        print(f"| {name} | " + " | ".join("—" if v[c] != v[c] else f"{v[c]:.2f}" for c in cols) + " |")


if __name__ == "__main__":
    main()
