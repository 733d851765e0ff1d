"""device=: the strings and ints it takes, the ValueError for anything else,
the GpuError for a GPU the machine does not have; plans on a named GPU
ordinal still give bit-exact products (CPU everywhere, the GPU where
present: gpu_check.sh runs these on the GPU machine)."""

import concurrent.futures
import random

import numpy as np
import pytest
from conftest import HAS_GPU, rand_words, reference_rows

import polymul
from polymul import _polymul

VALID = [
    ("auto", "auto"),
    ("cpu", "cpu"),
    ("cuda", 0),
    ("gpu", 0),
    ("cuda:0", 0),
    ("gpu:0", 0),
    ("cuda:1", 1),
    ("cuda:7", 7),
    ("gpu:12", 12),
    ("cuda:007", 7),
    (0, 0),
    (3, 3),
    (np.int64(2), 2),
    (np.uint8(1), 1),
    (2**32 - 1, 2**32 - 1),
    ("all", "all"),
    ([0], 0),
    ([0, 1], [0, 1]),
    ((2, "cuda:0"), [2, 0]),
]

INVALID = [
    "",
    "tpu",
    "CUDA",
    "Cuda:0",
    "cuda:",
    "cuda:-1",
    "cuda:+1",
    "cuda:x",
    "cuda:1.5",
    "cuda:0 ",
    " cuda:0",
    "cuda: 0",
    "cuda0",
    "cuda:0:1",
    "cpu:0",
    "auto:0",
    "cuda:4294967296",
    "gpu:99999999999999999999999",
    -1,
    2**32,
    -(2**70),
    True,
    False,
    1.0,
    0.0,
    b"cuda",
    [],
    [0, 0],
    ["cuda", 0],
    [[0]],
    [0, "cpu"],
    [True],
    "all:0",
    "ALL",
    object(),
]


@pytest.mark.parametrize("given,parsed", VALID, ids=repr)
def test_valid_devices_parse(given, parsed):
    assert _polymul._parse_device(given) == parsed


@pytest.mark.parametrize("given", INVALID, ids=repr)
def test_invalid_devices_are_value_errors(given):
    with pytest.raises(ValueError) as e:
        _polymul._parse_device(given)
    msg = str(e.value)
    assert "device" in msg and "cuda:N" in msg, msg
    # every constructor and decide() refuse it the same way, before any GPU is touched
    for make in (
        lambda: polymul.NttPlan(64, device=given),
        lambda: polymul.RnsPlan(64, bits=40, towers=2, device=given),
        lambda: polymul.DgtPlan(64, device=given),
        lambda: polymul.Multiplier(64, device=given),
        lambda: polymul.auto(64, device=given),
        lambda: polymul.decide(64, device=given),
    ):
        with pytest.raises(ValueError, match="cuda:N"):
            make()


def test_none_is_auto():
    assert polymul.NttPlan(64, device=None).device == polymul.NttPlan(64, device="auto").device
    assert polymul.NttPlan(64, device=None).device == ("cuda:0" if polymul.gpu_available() else "cpu")


def test_device_count_and_ordinals():
    count = polymul.device_count()
    assert isinstance(count, int) and count >= 0
    assert (count > 0) == polymul.gpu_available()
    # an ordinal past the last GPU (or any, without a GPU) is a GpuError
    # (ErrorKind::NoGpu), for the string and the int form
    for d in (f"cuda:{count}", count, f"gpu:{count + 5}", 2**32 - 1):
        with pytest.raises(polymul.GpuError) as e:
            polymul.NttPlan(64, device=d)
        if count > 0:
            assert f"this machine has {count} CUDA device" in str(e.value), str(e.value)


@pytest.mark.skipif(HAS_GPU, reason="a GPU is present")
def test_gpu_forms_without_a_gpu():
    for d in ("cuda", "gpu", "cuda:0", "gpu:0", 0, np.int32(0)):
        with pytest.raises(polymul.GpuError):
            polymul.NttPlan(64, device=d)
        with pytest.raises(polymul.GpuError):
            polymul.decide(64, device=d)
    for d in ("auto", None):
        plan = polymul.NttPlan(64, device=d)
        assert plan.device == "cpu" and plan.device_id is None and not plan.on_gpu


def _gpu_forms():
    return ["cuda", "gpu", "cuda:0", "gpu:0", 0, np.int64(0)] if HAS_GPU else []


@pytest.mark.skipif(not HAS_GPU, reason="no GPU")
@pytest.mark.parametrize("dev", _gpu_forms(), ids=repr)
def test_gpu_zero_by_every_name(dev, rng):
    n = 1 << 10
    for plan in (
        polymul.NttPlan(n, bits=62, device=dev),
        polymul.NttPlan(n, bits=30, dtype=np.uint32, device=dev),
        polymul.RnsPlan(n, bits=50, towers=3, device=dev),
        polymul.Multiplier(n, bits=62, batch=4, device=dev),
    ):
        assert plan.on_gpu and plan.device == "cuda:0" and plan.device_id == 0
        assert plan.backend.startswith("GPU")
        k = plan.towers
        a = rand_words(rng, (k, 2, n), plan.primes, plan.dtype)
        b = rand_words(rng, (k, 2, n), plan.primes, plan.dtype)
        np.testing.assert_array_equal(plan.polymul(a, b), reference_rows(a, b, plan.primes))
        # the plan's own device string names the same GPU
        again = polymul.NttPlan(64, device=plan.device)
        assert again.device_id == 0


@pytest.mark.skipif(polymul.device_count() < 2, reason="fewer than two GPUs")
def test_second_gpu(rng):
    n = 1 << 10
    plan = polymul.NttPlan(n, bits=62, device="cuda:1")
    assert plan.device == "cuda:1" and plan.device_id == 1 and plan.on_gpu
    a = rand_words(rng, (3, n), [plan.q], np.uint64)
    b = rand_words(rng, (3, n), [plan.q], np.uint64)
    np.testing.assert_array_equal(plan.polymul(a, b), reference_rows(a, b, [plan.q]))
    assert polymul.NttPlan(n, device=1).device_id == 1
    cupy = pytest.importorskip("cupy")
    with cupy.cuda.Device(1):
        da, db = cupy.asarray(a), cupy.asarray(b)
        np.testing.assert_array_equal(cupy.asnumpy(plan.polymul(da, db)), reference_rows(a, b, [plan.q]))
    # an array on another GPU than the plan's is refused with a clear message
    on0 = polymul.NttPlan(n, bits=62, device=0)
    with pytest.raises(ValueError, match="cuda:1"):
        on0.polymul(da, db)


def test_plans_from_many_threads(device):
    """Plans made and used from several threads at once (the per-ordinal
    GPU handles are made under one lock) all multiply exactly."""
    n = 256

    def work(seed):
        r = random.Random(seed)
        plan = polymul.NttPlan(n, bits=50, device=device)
        a = rand_words(r, (2, n), [plan.q], np.uint64)
        b = rand_words(r, (2, n), [plan.q], np.uint64)
        np.testing.assert_array_equal(plan.polymul(a, b), reference_rows(a, b, [plan.q]))
        return plan.device

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        devices = list(pool.map(work, range(8)))
    assert len(set(devices)) == 1
    assert devices[0] == ("cpu" if device == "cpu" else "cuda:0")


def _big_words(seed, shape, primes):
    """Random tower-major u64 words below each tower's prime (NumPy's
    generator: millions of words)."""
    g = np.random.default_rng(seed)
    k = len(primes)
    rows = [g.integers(0, q, size=int(np.prod(shape)) // k, dtype=np.uint64) for q in primes]
    return np.concatenate(rows).reshape(shape)


@pytest.mark.skipif(HAS_GPU, reason="a GPU is present")
def test_several_gpus_without_a_gpu():
    for d in ("all", [0, 1], (1, 0)):
        with pytest.raises(polymul.GpuError):
            polymul.Multiplier(64, device=d)


@pytest.mark.skipif(not HAS_GPU, reason="no GPU")
def test_all_gpus():
    """device="all": one plan per GPU, host arrays spread by batch; the
    products are the CPU backend's and the reference's; device arrays are
    refused on several GPUs."""
    count = polymul.device_count()
    n = 1 << 12
    plan = polymul.NttPlan(n, bits=62, device="all")
    assert plan.device_ids == list(range(count)) and plan.device_id == 0
    assert plan.device == (list(range(count)) if count > 1 else "cuda:0")
    cpu = polymul.NttPlan(n, q=plan.q, device="cpu")
    # 512 polynomials of 2^12 words: 2^21 words, enough to spread over two GPUs
    a = _big_words(1, (512, n), [plan.q])
    b = _big_words(2, (512, n), [plan.q])
    c = plan.polymul(a, b)
    np.testing.assert_array_equal(c, cpu.polymul(a, b))
    np.testing.assert_array_equal(c[[0, 511]], reference_rows(a[[0, 511]], b[[0, 511]], [plan.q]))
    f = plan.forward(a)
    np.testing.assert_array_equal(f, cpu.forward(a))
    np.testing.assert_array_equal(plan.inverse(f), a)
    if count > 1:
        assert "devices" in plan.backend
        cupy = pytest.importorskip("cupy")
        with pytest.raises(ValueError, match="spans GPUs"):
            plan.polymul(cupy.asarray(a[:2]), cupy.asarray(b[:2]))


@pytest.mark.skipif(polymul.device_count() < 2, reason="fewer than two GPUs")
def test_a_list_of_gpus():
    n = 1 << 10
    plan = polymul.RnsPlan(n, bits=50, towers=3, device=[1, 0])
    assert plan.device_ids == [1, 0] and plan.device == [1, 0]
    a = _big_words(3, (3, 2048, n), plan.primes)
    b = _big_words(4, (3, 2048, n), plan.primes)
    cpu = polymul.RnsPlan(n, primes=plan.primes, device="cpu")
    np.testing.assert_array_equal(plan.polymul(a, b), cpu.polymul(a, b))
