"""A large batch of negacyclic products over the GPUs of a machine (or of a
Dask cluster of several machines), one Dask worker per GPU, each running
the polymul package; checked bit for bit against one process calling the
package directly, with the time of both.

    python3 crates/python/examples/dask_products.py                  # GPUs if any, else the CPU
    python3 crates/python/examples/dask_products.py --device cpu --n 4096 --batch 512
    python3 crates/python/examples/dask_products.py --scheduler tcp://host:8786   # an existing cluster

The cluster:

- ``--scheduler ADDRESS``: a ``distributed.Client`` on an existing cluster
  (``dask scheduler`` on one host, ``dask cuda worker ADDRESS`` on each GPU
  host: one worker per GPU, each seeing its GPU as device 0; docs/scaling.md,
  "Dask"). The plans use ``device="cuda"`` there (or ``"cpu"``).
- GPUs wanted and ``dask_cuda`` importable: ``dask_cuda.LocalCUDACluster``,
  one single-threaded worker per GPU, each with ``CUDA_VISIBLE_DEVICES`` set
  so that its GPU is device 0; the plans use ``device="cuda"``.
- GPUs wanted without ``dask_cuda``: a ``distributed.LocalCluster`` of one
  single-threaded worker process per GPU. Every worker sees every GPU, so
  each is given an ordinal explicitly: the workers sorted by address get
  ``0 … k-1``, and each chunk's task is pinned (``workers=[address]``) to
  the worker that holds its operands, with ``device=`` that worker's
  ordinal. No worker name or start order is relied on.
- Otherwise a CPU ``LocalCluster`` (``--workers`` processes of one Dask
  thread; the polymul CPU backend of each gets cores/workers threads through
  ``RAYON_NUM_THREADS``, so that together they use the cores once, as the
  one-process run does).

The operands (``--operands``):

- ``scatter`` (the default: the data starts on the client, as a user's
  does): the client makes every chunk, ``client.scatter``s each pair
  (a, b) to one worker (serialize: NumPy buffers go out of band, no copy;
  send: ``2 · rows · N · word`` bytes over the network or the local
  sockets), each task multiplies its chunk (compute), and the client
  gathers the products (``rows · N · word`` bytes back). For ``uint64``
  N = 2^16 one pair is 1 MiB and its product 0.5 MiB.
- ``seeds``: each task makes its chunk's operands on the worker from the
  seed (nothing sent but the arguments), so only the products travel: the
  cost of Dask without the operands' transfer.

Both make row ``r`` of a and b from ``numpy.random.default_rng((seed, r))``,
so the operands, hence the products, do not depend on the chunking, and the
one-process run multiplies the same rows.

Per step the script prints: scatter (serialize + send), compute (submit to
every task done: the busiest worker's own polymul time, and the rest:
dispatch, scheduling, idle), gather (receive + deserialize), their total
against the direct call (``plan.polymul`` of the whole batch in this
process), the overhead (ratio and seconds, and Dask's own part: all but
the busiest worker's polymul) and the coefficients ("words") per second. The first round on
each worker (plan making, a GPU's kernel load) is run before the timed
rounds, as is one direct call. Exits 1 if any product differs.

The task functions are module-level functions, picklable: run as a script,
Dask ships them by value (this file is ``__main__``); imported as a module
(tests/test_dask.py does), they are pickled by name, and :func:`ship_to`
uploads this file to the workers (``client.upload_file``).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
import time
import types
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np

import polymul

Device = Union[str, int]


# --- work on one worker (or in this process) ----------------------------------


def make_operands(seed: int, lo: int, hi: int, n: int, q: int, word: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``lo … hi-1`` of the operands: row r of a and b from
    ``default_rng((seed, r))``, coefficients in [0, q)."""
    dtype = np.uint64 if word == 64 else np.uint32
    a = np.empty((hi - lo, n), dtype=dtype)
    b = np.empty((hi - lo, n), dtype=dtype)
    for r in range(lo, hi):
        g = np.random.default_rng((seed, r))
        a[r - lo] = g.integers(0, q, n, dtype=dtype)
        b[r - lo] = g.integers(0, q, n, dtype=dtype)
    return a, b


_CACHE_MODULE = "_polymul_dask_plans"


def plan_for(n: int, q: int, word: int, device: Device) -> Any:
    """The process's plan of these parameters, made on first use.

    Run as a script, this file's functions reach a worker pickled by value,
    each task with fresh copies of the module's globals, so a global dict
    would not outlive a task: the cache is an attribute of a module
    registered in ``sys.modules`` of the worker process, made once there. One plan per
    thread as well (the clusters made here run one task at a time per
    worker; a worker of several threads gets a plan per thread)."""
    mod = sys.modules.get(_CACHE_MODULE)
    if mod is None:
        mod = sys.modules.setdefault(_CACHE_MODULE, types.ModuleType(_CACHE_MODULE))
    if not hasattr(mod, "plans"):
        mod.plans = {}  # type: ignore[attr-defined]
    plans: dict[tuple[Any, ...], Any] = mod.plans  # type: ignore[attr-defined]
    key = (n, q, word, device, threading.get_ident())
    plan = plans.get(key)
    if plan is None:
        plan = polymul.NttPlan(n, q=q, word=word, device=device)
        plans[key] = plan
    return plan


def _where() -> str:
    """The address of the Dask worker running this task, else ``"local"``."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "local"


def chunk_products(
    pair: tuple[np.ndarray, np.ndarray], q: int, word: int, device: Device
) -> tuple[np.ndarray, float, str]:
    """The products of one chunk of operand pairs (scattered to the worker
    as one tuple); returns them, the seconds ``plan.polymul`` took and the
    worker."""
    a, b = pair
    plan = plan_for(a.shape[1], q, word, device)
    t = time.perf_counter()
    c = plan.polymul(a, b)
    return c, time.perf_counter() - t, _where()


def seeded_chunk_products(
    seed: int, lo: int, hi: int, n: int, q: int, word: int, device: Device
) -> tuple[np.ndarray, float, str]:
    """The products of rows ``lo … hi-1``, their operands made on the worker
    from the seed; returns them, the seconds ``plan.polymul`` took (not the
    operands' making) and the worker."""
    a, b = make_operands(seed, lo, hi, n, q, word)
    plan = plan_for(n, q, word, device)
    t = time.perf_counter()
    c = plan.polymul(a, b)
    return c, time.perf_counter() - t, _where()


def warm(n: int, q: int, word: int, device: Device) -> str:
    """Makes the worker's plan and runs one product (a GPU loads its
    kernels on the first); returns the plan's backend."""
    plan = plan_for(n, q, word, device)
    z = np.zeros((1, n), dtype=plan.dtype)
    plan.polymul(z, z)
    return str(plan.backend)


def gpu_view() -> tuple[str, Optional[str], int]:
    """This worker's host, ``CUDA_VISIBLE_DEVICES`` and GPU count."""
    return socket.gethostname(), os.environ.get("CUDA_VISIBLE_DEVICES"), polymul.device_count()


# --- the client side ------------------------------------------------------------


@dataclass
class Layout:
    """The workers and the ``device=`` of the plans on each; with ``pin``,
    each task runs on a named worker with that worker's device (the
    per-ordinal GPUs of a plain LocalCluster), else where Dask puts it."""

    devices: dict[str, Device]
    pin: bool = False


@dataclass
class DaskRun:
    """One round over the cluster: the products and each step's seconds."""

    products: np.ndarray
    scatter_s: float
    compute_s: float
    gather_s: float
    task_s: list[float] = field(default_factory=list)
    workers: list[str] = field(default_factory=list)

    @property
    def total_s(self) -> float:
        return self.scatter_s + self.compute_s + self.gather_s


def chunk_bounds(batch: int, chunks: int) -> list[tuple[int, int]]:
    """``chunks`` row ranges covering ``0 … batch-1`` (sizes differing by at most one)."""
    chunks = max(1, min(chunks, batch))
    return [(i * batch // chunks, (i + 1) * batch // chunks) for i in range(chunks)]


def ship_to(client: Any) -> None:
    """Makes this file's task functions loadable on the cluster's workers:
    nothing to do when it runs as a script (``__main__``: its functions go
    by value); imported under its file's name, ``dask_products``, the
    workers import the copy ``client.upload_file`` sends them."""
    if __name__ != "__main__":
        client.upload_file(__file__)


def layout(client: Any, device: Device, per_ordinal: bool) -> Layout:
    """The cluster's workers: with ``per_ordinal``, the workers sorted by
    address get GPU ordinals ``0 … k-1`` and tasks are pinned; else every
    worker gets ``device``."""
    addresses = sorted(client.scheduler_info(n_workers=-1)["workers"])
    if per_ordinal:
        return Layout({addr: i for i, addr in enumerate(addresses)}, pin=True)
    return Layout({addr: device for addr in addresses})


def warm_workers(client: Any, lay: Layout, n: int, q: int, word: int) -> dict[str, str]:
    """Runs :func:`warm` once on every worker; returns each one's backend."""
    futures = {
        addr: client.submit(warm, n, q, word, dev, workers=[addr], allow_other_workers=False, pure=False)
        for addr, dev in lay.devices.items()
    }
    return dict(zip(futures, client.gather(list(futures.values()))))


def dask_products(
    client: Any,
    lay: Layout,
    n: int,
    batch: int,
    q: int,
    word: int,
    chunks: int,
    seed: int = 0,
    operands: str = "scatter",
    pairs: Optional[list[tuple[np.ndarray, np.ndarray]]] = None,
) -> DaskRun:
    """The ``batch`` products over the cluster in ``chunks`` tasks, timed
    step by step.

    ``operands="scatter"``: the chunks' operand pairs (made here unless
    given, one per range of :func:`chunk_bounds`) are scattered round robin
    over the workers, sent directly to them (the client must reach the
    workers; ``direct=True``: not through the scheduler, which would carry
    every byte twice), and each chunk's task runs where its pair is.
    ``"seeds"``: each task makes its operands from ``seed``; pinned tasks go
    round robin over the workers."""
    from distributed import wait

    if operands not in ("scatter", "seeds"):
        raise ValueError(f"operands = {operands!r}: 'scatter' or 'seeds'")
    bounds = chunk_bounds(batch, chunks)
    if operands == "scatter" and pairs is None:
        pairs = [make_operands(seed, lo, hi, n, q, word) for lo, hi in bounds]
    any_device = next(iter(lay.devices.values()))
    addresses = list(lay.devices)
    data: list[Any] = []
    t0 = time.perf_counter()
    if operands == "scatter":
        assert pairs is not None and len(pairs) == len(bounds)
        # Each pair is one datum (a tuple): serialized with its NumPy buffers
        # out of band (not copied) and sent to one worker, the workers' sends
        # at once. hash=False: random keys (hashing would read every operand
        # once more).
        data = client.scatter(pairs, direct=True, hash=False)
        wait(data)
        t1 = time.perf_counter()
        if lay.pin:
            # Each task runs where its pair landed, with that worker's GPU.
            who = client.who_has(data)
            places: list[Optional[str]] = [who[f.key][0] for f in data]
        else:
            places = [None] * len(data)
        tasks = [
            client.submit(
                chunk_products,
                *(f, q, word, any_device if w is None else lay.devices[w]),
                pure=False,
                workers=None if w is None else [w],
            )
            for f, w in zip(data, places)
        ]
    else:
        t1 = t0
        places = [addresses[i % len(addresses)] if lay.pin else None for i in range(len(bounds))]  # type: ignore[misc]
        tasks = [
            client.submit(
                seeded_chunk_products,
                *(seed, lo, hi, n, q, word, any_device if w is None else lay.devices[w]),
                pure=False,
                workers=None if w is None else [w],
            )
            for (lo, hi), w in zip(bounds, places)
        ]
    wait(tasks)
    t2 = time.perf_counter()
    results = client.gather(tasks, direct=True)
    t3 = time.perf_counter()
    del tasks, data  # releases the products and operands on the workers
    products = np.concatenate([r[0] for r in results])
    return DaskRun(products, t1 - t0, t2 - t1, t3 - t2, [r[1] for r in results], [r[2] for r in results])


def direct_products(a: np.ndarray, b: np.ndarray, q: int, word: int, device: Device) -> tuple[np.ndarray, float]:
    """The products in this process, one ``plan.polymul`` of the whole batch;
    returns them and its seconds (the plan made and run once before)."""
    plan = plan_for(a.shape[1], q, word, device)
    warm(a.shape[1], q, word, device)
    t = time.perf_counter()
    c = plan.polymul(a, b)
    return c, time.perf_counter() - t


def modulus(n: int, bits: int, word: int) -> int:
    """The prime of ``NttPlan(n, bits=bits, word=word)`` (found on the CPU)."""
    return int(polymul.NttPlan(n, bits=bits, word=word, device="cpu").q)


# --- the command ------------------------------------------------------------------


def start_cluster(args: argparse.Namespace) -> tuple[Any, Any, Layout, str]:
    """The client, the cluster this script started (or ``None``), the
    layout and a line saying what runs where."""
    from distributed import Client, LocalCluster

    if args.scheduler:
        # direct_to_workers: scatter and gather go between the client and the
        # workers, not through the scheduler.
        client = Client(args.scheduler, direct_to_workers=True)
        client.wait_for_workers(args.workers or 1)
        views = client.run(gpu_view)
        if args.device == "auto":
            args.device = "gpu" if all(v[2] > 0 for v in views.values()) else "cpu"
        seen: dict[tuple[str, Optional[str]], int] = {}
        for host, visible, count in views.values():
            if count > 1:
                seen[(host, visible)] = seen.get((host, visible), 0) + 1
        if args.device == "gpu" and any(k > 1 for k in seen.values()):
            print(
                "warning: several workers of one host see the same GPUs and will all use their device 0: "
                "start them with dask-cuda-worker (or one CUDA_VISIBLE_DEVICES each)",
                file=sys.stderr,
            )
        device: Device = "cuda" if args.device == "gpu" else "cpu"
        return client, None, layout(client, device, False), f"the cluster of {args.scheduler}"

    # Local clusters: dashboard_address=":0" puts the scheduler's HTTP server
    # (and dashboard, with bokeh) on a free port, not 8787 that another
    # cluster of this machine may hold.
    if args.device == "auto":
        args.device = "gpu" if polymul.gpu_available() else "cpu"
    if args.device == "gpu":
        gpus = polymul.device_count()
        if gpus == 0:
            raise SystemExit("--device gpu: polymul sees no GPU here")
        workers = min(args.workers or gpus, gpus)
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            LocalCUDACluster = None
        if LocalCUDACluster is not None:
            # One worker per GPU, each with CUDA_VISIBLE_DEVICES putting its
            # GPU first: device="cuda" (0) is its own GPU.
            visible = ",".join(str(i) for i in range(workers))
            cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES=visible, dashboard_address=":0")
            client = Client(cluster, direct_to_workers=True)
            client.wait_for_workers(workers)
            return client, cluster, layout(client, "cuda", False), f"LocalCUDACluster, {workers} GPUs"
        # Without dask_cuda: every worker sees every GPU; each gets its ordinal.
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster, direct_to_workers=True)
        client.wait_for_workers(workers)
        return client, cluster, layout(client, 0, True), f"LocalCluster, {workers} GPUs by ordinal"

    cores = os.cpu_count() or 1
    workers = args.workers or min(4, cores)
    threads = max(1, cores // workers)
    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        env={"RAYON_NUM_THREADS": str(threads)},  # the CPU backend's threads per worker
    )
    client = Client(cluster, direct_to_workers=True)
    client.wait_for_workers(workers)
    what = f"LocalCluster, {workers} CPU workers × {threads} thread{'s' if threads > 1 else ''}"
    return client, cluster, layout(client, "cpu", False), what


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--n", type=int, default=1 << 16, help="polynomial size N (default 2^16)")
    p.add_argument("--batch", type=int, default=256, help="operand pairs (default 256)")
    p.add_argument("--word", type=int, choices=(32, 64), default=64, help="word size (default 64)")
    p.add_argument("--bits", type=int, default=None, help="prime bits (default 62 for 64-bit words, 30 for 32)")
    p.add_argument("--chunks", type=int, default=None, help="chunks of the batch (default 4 per worker)")
    p.add_argument("--workers", type=int, default=None, help="workers (default: one per GPU; CPU: up to 4)")
    p.add_argument("--device", choices=("cpu", "gpu", "auto"), default="auto")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="an existing cluster's scheduler")
    p.add_argument("--operands", choices=("scatter", "seeds"), default="scatter")
    p.add_argument("--repeat", type=int, default=3, help="timed rounds, the best one reported (default 3)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    bits = args.bits or (62 if args.word == 64 else 30)
    n, batch, word = args.n, args.batch, args.word
    size = np.dtype(np.uint64 if word == 64 else np.uint32).itemsize
    q = modulus(n, bits, word)

    t = time.perf_counter()
    client, cluster, lay, what = start_cluster(args)
    started_s = time.perf_counter() - t
    try:
        ship_to(client)
        k = len(lay.devices)
        bounds = chunk_bounds(batch, args.chunks or 4 * k)
        t = time.perf_counter()
        backends = warm_workers(client, lay, n, q, word)
        warm_s = time.perf_counter() - t
        print(f"cluster: {what}; started in {started_s:.2f} s, plans made in {warm_s:.2f} s")
        for addr, backend in backends.items():
            print(f"  {addr}: device={lay.devices[addr]!r}, {backend}")

        pairs = [make_operands(args.seed, lo, hi, n, q, word) for lo, hi in bounds]
        a = np.concatenate([x for x, _ in pairs])
        b = np.concatenate([y for _, y in pairs])
        # The direct run: on this process's GPU 0 where the workers use GPUs
        # and there is one here, else on the CPU (the same words either way).
        local: Device = "cuda" if args.device == "gpu" and polymul.gpu_available() else "cpu"
        expected: Optional[np.ndarray] = None
        direct_s = float("inf")
        for _ in range(args.repeat):
            c, s = direct_products(a, b, q, word, local)
            if expected is not None and not np.array_equal(c, expected):
                print("FAILED: the direct products differ between runs", file=sys.stderr)
                return 1
            expected, direct_s = c, min(direct_s, s)
        assert expected is not None
        direct_backend = plan_for(n, q, word, local).backend

        best: Optional[DaskRun] = None
        for _ in range(args.repeat):
            run = dask_products(client, lay, n, batch, q, word, len(bounds), args.seed, args.operands, pairs)
            if not np.array_equal(run.products, expected):
                same_shape = run.products.shape == expected.shape
                bad = int(np.sum(np.any(run.products != expected, axis=1))) if same_shape else batch
                print(f"FAILED: {bad} of {batch} Dask products differ from the direct ones", file=sys.stderr)
                return 1
            best = run if best is None or run.total_s < best.total_s else best
        assert best is not None
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    coeffs = batch * n
    rows = bounds[0][1] - bounds[0][0]
    sent = 2 * coeffs * size if args.operands == "scatter" else 0
    per_worker = {w: best.workers.count(w) for w in sorted(set(best.workers))}
    print(
        f"batch: {batch} × N = {n}, {word}-bit words, q = {q} ({bits} bits); {len(bounds)} chunks of "
        f"{rows} pairs ({2 * rows * n * size / 2**20:.2f} MiB of operands), {k} workers; operands: "
        f"{args.operands}; best of {args.repeat}"
    )
    print(f"  chunks per worker: {per_worker}")
    print(
        f"direct: {direct_s * 1e3:9.2f} ms  one plan.polymul here ({direct_backend}), "
        f"{coeffs / direct_s:.3g} words/s"
    )
    print(f"dask:   {best.total_s * 1e3:9.2f} ms  {coeffs / best.total_s:.3g} words/s")
    if sent:
        print(
            f"  scatter  {best.scatter_s * 1e3:9.2f} ms  serialize + send {sent / 2**20:.1f} MiB "
            f"({sent / best.scatter_s / 1e9:.2f} GB/s)"
        )
    busy: dict[str, float] = {}
    for w, ts in zip(best.workers, best.task_s):
        busy[w] = busy.get(w, 0.0) + ts
    busiest = max(busy.values())
    print(
        f"  compute  {best.compute_s * 1e3:9.2f} ms  submit to all done: the busiest worker's polymul "
        f"{busiest * 1e3:.2f} ms, the rest (task dispatch, scheduling, idle) {(best.compute_s - busiest) * 1e3:.2f} ms"
    )
    print(
        f"  gather   {best.gather_s * 1e3:9.2f} ms  receive + deserialize {coeffs * size / 2**20:.1f} MiB "
        f"({coeffs * size / best.gather_s / 1e9:.2f} GB/s)"
    )
    own = best.total_s - busiest
    print(
        f"overhead: {best.total_s / direct_s:.2f}× the direct call, {(best.total_s - direct_s) * 1e3:+.2f} ms; "
        f"Dask's own part (all but the busiest worker's polymul) {own * 1e3:.2f} ms"
    )
    if args.device == "gpu" and k > 1:
        # One GPU per worker: the direct call had one of them.
        print(f"  {best.total_s / (direct_s / k):.2f}× the direct time / {k} GPUs")
    print(f"products: all {batch} equal to the direct ones, bit for bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
