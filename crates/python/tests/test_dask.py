"""The Dask example (examples/dask_products.py) on the CPU backend: a
``distributed.LocalCluster`` of two single-threaded worker processes, no
GPU. Its products must equal those of one process calling the package
directly, bit for bit, and the pure-Python reference's.

Skipped without ``distributed`` unless ``POLYMUL_REQUIRE_DASK`` is set, when
that is an error: CI sets it (``cargo xtask python``), so the test cannot
vanish there. The example is loaded from ``../examples`` beside this folder
(as in a checkout and in the bundle of make_bundle.sh)."""

import importlib.util
import os
import pathlib
import sys

import numpy as np
import pytest
from conftest import negacyclic

try:
    import distributed
except ImportError as e:
    if os.environ.get("POLYMUL_REQUIRE_DASK"):
        raise ImportError(f"POLYMUL_REQUIRE_DASK is set but Dask is missing: {e}") from e
    pytest.skip(f"Dask is not installed ({e}); POLYMUL_REQUIRE_DASK=1 makes this an error", allow_module_level=True)

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "dask_products.py"


def _load_example():
    """The example as module ``dask_products`` (its file's name, the name
    under which ``ship_to`` makes the workers import it)."""
    spec = importlib.util.spec_from_file_location("dask_products", EXAMPLE)
    assert spec is not None and spec.loader is not None, EXAMPLE
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    # No examples/__pycache__ left in the source tree (or in the bundle).
    write, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.dont_write_bytecode = write
    return mod


ex = _load_example()
N = 1 << 10


@pytest.fixture(scope="module")
def client():
    # dashboard_address=":0": a free port, not 8787 (the test of the command
    # starts a second cluster meanwhile).
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster, direct_to_workers=True) as c:
        c.wait_for_workers(2)
        ex.ship_to(c)
        yield c


def test_layout_gives_each_worker_its_ordinal(client):
    per_ordinal = ex.layout(client, 0, True)
    addresses = sorted(client.scheduler_info(n_workers=-1)["workers"])
    assert len(addresses) == 2
    assert per_ordinal.pin and per_ordinal.devices == {addresses[0]: 0, addresses[1]: 1}
    shared = ex.layout(client, "cpu", False)
    assert not shared.pin and shared.devices == {a: "cpu" for a in addresses}


@pytest.mark.parametrize(
    "word,bits,batch,chunks,operands,pin",
    [
        (64, 62, 40, 6, "scatter", False),
        (64, 62, 21, 4, "scatter", True),
        (32, 30, 24, 5, "seeds", True),
        (32, 30, 30, 3, "scatter", False),
    ],
)
def test_dask_products_equal_one_process(client, word, bits, batch, chunks, operands, pin):
    q = ex.modulus(N, bits, word)
    assert q.bit_length() == bits
    addresses = sorted(client.scheduler_info(n_workers=-1)["workers"])
    lay = ex.Layout({a: "cpu" for a in addresses}, pin=pin)
    seed = 7 + word
    run = ex.dask_products(client, lay, N, batch, q, word, chunks, seed=seed, operands=operands)

    a, b = ex.make_operands(seed, 0, batch, N, q, word)
    direct, _ = ex.direct_products(a, b, q, word, "cpu")
    dtype = np.uint64 if word == 64 else np.uint32
    assert run.products.dtype == dtype and run.products.shape == (batch, N)
    assert np.array_equal(run.products, direct)
    # Against the pure-Python reference (Kronecker substitution), first and last rows.
    for r in (0, batch - 1):
        assert run.products[r].tolist() == negacyclic(a[r].tolist(), b[r].tolist(), q)
    # The chunks ran on the workers, both of them (round robin), not here.
    assert len(run.workers) == chunks and set(run.workers) == set(addresses)
    if operands == "seeds" and pin:
        assert run.workers == [addresses[i % 2] for i in range(chunks)]
    assert len(run.task_s) == chunks and all(t >= 0 for t in run.task_s)


def test_operands_do_not_depend_on_the_chunking():
    q = ex.modulus(N, 62, 64)
    a, b = ex.make_operands(3, 0, 9, N, q, 64)
    parts = [ex.make_operands(3, lo, hi, N, q, 64) for lo, hi in ex.chunk_bounds(9, 4)]
    assert np.array_equal(a, np.concatenate([p[0] for p in parts]))
    assert np.array_equal(b, np.concatenate([p[1] for p in parts]))
    assert not np.array_equal(a, b) and int(a.max()) < q
    assert ex.chunk_bounds(9, 4) == [(0, 2), (2, 4), (4, 6), (6, 9)]
    assert ex.chunk_bounds(3, 10) == [(0, 1), (1, 2), (2, 3)]


def test_the_command_checks_and_reports(capsys):
    """The script as a user runs it (its own CPU LocalCluster)."""
    rc = ex.main(["--device", "cpu", "--n", "256", "--batch", "12", "--workers", "2", "--repeat", "1"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "products: all 12 equal to the direct ones" in out
    assert "overhead:" in out and "scatter" in out and "gather" in out
