"""CUDA arrays in, CUDA arrays out (CuPy; PyTorch where installed): zero
copies through __cuda_array_interface__ and DLPack, ordered with the
caller's stream. Skipped without a GPU or CuPy."""

import numpy as np
import pytest
from conftest import HAS_GPU, rand_words, reference_rows

import polymul

cupy = pytest.importorskip("cupy") if HAS_GPU else None
pytestmark = pytest.mark.skipif(not HAS_GPU, reason="no GPU")


def ptr(x):
    return x.__cuda_array_interface__["data"][0]


@pytest.mark.parametrize("word,bits", [(32, 30), (64, 62)])
@pytest.mark.parametrize("log_n", [4, 10, 12, 14])
def test_cupy_products_equal_host(rng, word, bits, log_n):
    n = 1 << log_n
    plan = polymul.NttPlan(n, bits=bits, word=word, device="gpu")
    a = rand_words(rng, (4, n), [plan.q], plan.dtype)
    b = rand_words(rng, (4, n), [plan.q], plan.dtype)
    da, db = cupy.asarray(a), cupy.asarray(b)
    dc = plan.polymul(da, db)
    assert isinstance(dc, cupy.ndarray) and dc.shape == a.shape and dc.dtype == a.dtype
    assert dc.device.id == da.device.id
    want = plan.polymul(a, b)
    np.testing.assert_array_equal(cupy.asnumpy(dc), want)
    if log_n <= 10:
        np.testing.assert_array_equal(want, reference_rows(a, b, [plan.q]))
    # the inputs are untouched
    np.testing.assert_array_equal(cupy.asnumpy(da), a)


def test_in_place_round_trip_keeps_the_buffer(rng):
    n = 1 << 12
    plan = polymul.NttPlan(n, bits=62, device="gpu")
    x = rand_words(rng, (3, n), [plan.q], np.uint64)
    d = cupy.asarray(x)
    p0 = ptr(d)
    y = plan.forward(d, inplace=True)
    assert y is d and ptr(y) == p0
    np.testing.assert_array_equal(cupy.asnumpy(d), plan.forward(x))
    z = plan.inverse(d, inplace=True)
    assert z is d and ptr(z) == p0
    np.testing.assert_array_equal(cupy.asnumpy(d), x)
    # not in place: a new device array, the input left alone
    w = plan.forward(d)
    assert isinstance(w, cupy.ndarray) and ptr(w) != p0
    np.testing.assert_array_equal(cupy.asnumpy(d), x)


def test_out_is_filled_in_place(rng):
    n = 1 << 10
    plan = polymul.NttPlan(n, bits=30, word=32, device="gpu")
    a = cupy.asarray(rand_words(rng, (2, n), [plan.q], np.uint32))
    b = cupy.asarray(rand_words(rng, (2, n), [plan.q], np.uint32))
    out = cupy.empty_like(a)
    r = plan.polymul(a, b, out=out)
    assert r is out
    np.testing.assert_array_equal(cupy.asnumpy(out), plan.polymul(cupy.asnumpy(a), cupy.asnumpy(b)))
    with pytest.raises(ValueError):
        plan.polymul(a, b, out=a)


def test_no_host_copies(rng, monkeypatch):
    """Device arrays never come to the host: cupy.asnumpy / ndarray.get
    are not called, and NumPy arrays are never created from them."""
    n = 1 << 11
    plan = polymul.RnsPlan(n, bits=62, towers=2, device="gpu")
    a = cupy.asarray(rand_words(rng, (2, 4, n), plan.primes, np.uint64))
    b = cupy.asarray(rand_words(rng, (2, 4, n), plan.primes, np.uint64))
    want = plan.polymul(cupy.asnumpy(a), cupy.asnumpy(b))

    def boom(*_a, **_k):
        raise AssertionError("a host copy was made")

    monkeypatch.setattr(cupy, "asnumpy", boom)
    monkeypatch.setattr(polymul._Plan, "_host", boom)
    c = plan.polymul(a, b)
    plan.inverse(plan.forward(c, inplace=True), inplace=True)
    monkeypatch.undo()
    np.testing.assert_array_equal(cupy.asnumpy(c), want)


def test_dlpack_round_trip(rng):
    n = 1 << 10
    plan = polymul.NttPlan(n, bits=62, device="gpu")
    x = rand_words(rng, (2, n), [plan.q], np.uint64)
    d = cupy.asarray(x)

    class DlpackOnly:
        """A CUDA array that offers only DLPack (no __cuda_array_interface__)."""

        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, **kw):
            return self.arr.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    y = plan.forward(DlpackOnly(d), inplace=True)
    assert ptr(y) == ptr(d)  # a view of the same memory, transformed in place
    np.testing.assert_array_equal(cupy.asnumpy(d), plan.forward(x))
    # and back out through DLPack
    back = cupy.from_dlpack(plan.inverse(y))
    np.testing.assert_array_equal(cupy.asnumpy(back), x)


def test_caller_stream_orders_the_work(rng):
    n = 1 << 12
    plan = polymul.NttPlan(n, bits=62, device="gpu")
    x = rand_words(rng, (64, n), [plan.q], np.uint64)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        d = cupy.asarray(x)
        d2 = d * 1  # queued on s
        plan.forward(d2, inplace=True)  # ordered after the copy on s
        plan.inverse(d2, inplace=True, stream=s)
        ok = bool((d2 == d).all())  # queued on s after polymul's work
    s.synchronize()
    assert ok


def test_device_errors(rng):
    n = 1 << 8
    plan = polymul.NttPlan(n, bits=30, word=32, device="gpu")
    with pytest.raises(ValueError, match="type"):
        plan.forward(cupy.zeros(n, dtype=cupy.uint64))
    with pytest.raises(ValueError, match="N = 256"):
        plan.forward(cupy.zeros(n // 2, dtype=cupy.uint32))
    with pytest.raises(ValueError, match="contiguous"):
        plan.forward(cupy.zeros((n, 2), dtype=cupy.uint32)[:, 0])
    x = cupy.zeros(n, dtype=cupy.uint32)
    x[3] = plan.q
    # Checked on the device without a host wait: the call runs, and the
    # error is raised by synchronize() (or the next call), once.
    plan.forward(x)
    with pytest.raises(ValueError, match="not reduced"):
        plan.synchronize()
    plan.synchronize()
    y = cupy.zeros(n, dtype=cupy.uint32)
    y[n - 1] = plan.q + 5
    plan.polymul(y, cupy.zeros(n, dtype=cupy.uint32))
    with pytest.raises(ValueError, match="not reduced"):
        plan.synchronize()
    with pytest.raises(ValueError, match="host"):
        plan.polymul(x, np.zeros(n, dtype=np.uint32))


def test_torch_tensors(rng):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    n = 1 << 10
    plan = polymul.NttPlan(n, bits=30, word=32, device="gpu")
    a = rand_words(rng, (2, n), [plan.q], np.uint32)
    try:
        t = torch.as_tensor(a.astype(np.int64)).to(torch.uint32).cuda()
        t.__cuda_array_interface__
    except (TypeError, RuntimeError, AttributeError):
        pytest.skip("this torch has no uint32 CUDA tensors with __cuda_array_interface__")
    c = plan.polymul(t, t)
    assert isinstance(c, torch.Tensor) and c.is_cuda
    np.testing.assert_array_equal(c.cpu().numpy(), plan.polymul(a, a))


def test_big_products_on_the_gpu(rng):
    from conftest import negacyclic

    n = 1 << 10
    plan = polymul.RnsPlan(n, bits=62, towers=6, device="gpu")
    Q = plan.modulus
    a = [rng.randrange(Q) for _ in range(n)]
    b = [rng.randrange(Q) for _ in range(n)]
    assert plan.polymul_big(a, b).tolist() == negacyclic(a, b, Q)


@pytest.mark.parametrize("word,bits,towers", [(32, 30, 1), (32, 30, 3), (64, 62, 2)])
def test_cupy_tensor_equals_host(rng, word, bits, towers):
    """The ciphertext tensor product of CuPy arrays equals the host's and
    the pure-Python reference, for one and two ciphertexts, with ``out``."""
    n = 1 << 10
    plan = polymul.RnsPlan(n, bits=bits, towers=towers, word=word, device="gpu") if towers > 1 else \
        polymul.NttPlan(n, bits=bits, word=word, device="gpu")
    dtype = np.uint32 if word == 32 else np.uint64
    for m in (1, 2):
        shape = (towers, 2 * m, n)
        a = rand_words(rng, shape, plan.primes, dtype)
        b = rand_words(rng, shape, plan.primes, dtype)
        want = plan.tensor(a, b)
        assert want.shape == (towers, 3 * m, n)
        d = plan.tensor(cupy.asarray(a), cupy.asarray(b))
        assert isinstance(d, cupy.ndarray) and d.shape == want.shape and d.dtype == dtype
        np.testing.assert_array_equal(cupy.asnumpy(d), want)
        out = cupy.empty(want.shape, dtype=dtype)
        assert plan.tensor(cupy.asarray(a), cupy.asarray(b), out=out) is out
        np.testing.assert_array_equal(cupy.asnumpy(out), want)
    plan.synchronize()
