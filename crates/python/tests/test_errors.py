"""Every bad input (and every operation a plan does not offer) is a
ValueError with the library's message; device failures are
polymul.GpuError; nothing panics."""

import numpy as np
import pytest
from conftest import HAS_GPU

import polymul


@pytest.fixture
def plan(device):
    return polymul.NttPlan(64, bits=30, word=32, device=device)


def test_bad_parameters(device):
    cases = [
        (lambda: polymul.NttPlan(100, device=device), "power of two"),
        (lambda: polymul.NttPlan(0, device=device), "power of two"),
        (lambda: polymul.NttPlan(1 << 30, device=device), "power of two"),
        (lambda: polymul.NttPlan(64, q=15, device=device), "not prime"),
        (lambda: polymul.NttPlan(64, q=17, device=device), None),  # prime, not 1 mod 128
        (lambda: polymul.NttPlan(64, bits=62, word=32, device=device), None),  # too wide for u32
        (lambda: polymul.NttPlan(64, bits=70, device=device), "bits"),
        (lambda: polymul.NttPlan(64, bits=5, device=device), "bits"),
        (lambda: polymul.NttPlan(64, word=16, device=device), "word"),
        (lambda: polymul.NttPlan(-1, device=device), "out of range"),
        (lambda: polymul.NttPlan(64.0, device=device), "not an integer"),
        (lambda: polymul.NttPlan(64, device="tpu"), "device"),
        (lambda: polymul.RnsPlan(64, towers=0, device=device), None),
        (lambda: polymul.RnsPlan(64, primes=[], device=device), "at least one prime"),
        (lambda: polymul.RnsPlan(64, primes=[polymul.params(64, 40)[0]["q"]] * 2, device=device), "twice"),
        (lambda: polymul.DgtPlan(64, q=polymul.params(64, 40)[0]["q"], device=device), None),  # not p = -1 mod N
        (lambda: polymul.params(100, 62, 1), "power of two"),
        (lambda: polymul.params(1024, 99, 1), "bits"),
    ]
    for make, fragment in cases:
        with pytest.raises(ValueError) as e:
            make()
        assert str(e.value)
        if fragment:
            assert fragment in str(e.value), str(e.value)


def test_dtype_errors(plan):
    for dt in (np.int32, np.int64, np.float64, np.uint16, np.uint64):
        with pytest.raises(ValueError, match="dtype"):
            plan.polymul(np.zeros(64, dtype=dt), np.zeros(64, dtype=np.uint32))
        with pytest.raises(ValueError, match="dtype"):
            plan.forward(np.zeros(64, dtype=dt))
    with pytest.raises(ValueError):
        plan.polymul(np.zeros(64, dtype=object), np.zeros(64, dtype=np.uint32))
    with pytest.raises(ValueError):
        plan.forward("not an array")
    with pytest.raises(ValueError):
        plan.forward(np.uint32(3))


def test_wrong_n(plan):
    for shape in [(32,), (128,), (2, 32), (64, 1), (0, 64), ()]:
        x = np.zeros(shape, dtype=np.uint32)
        with pytest.raises(ValueError):
            plan.forward(x)
        with pytest.raises(ValueError):
            plan.polymul(x, x)


def test_unreduced_coefficients(plan):
    q = plan.q
    a = np.zeros(64, dtype=np.uint32)
    a[5] = q
    b = np.zeros(64, dtype=np.uint32)
    with pytest.raises(ValueError, match="not reduced"):
        plan.polymul(a, b)
    with pytest.raises(ValueError, match="not reduced"):
        plan.polymul(b, a)
    with pytest.raises(ValueError, match="not reduced"):
        plan.forward(a)
    a[5] = 0xFFFFFFFF
    with pytest.raises(ValueError, match="not reduced"):
        plan.inverse(a)
    with pytest.raises(ValueError):
        plan.polymul([q] + [0] * 63, [0] * 64)
    with pytest.raises(ValueError):
        plan.polymul([-1] + [0] * 63, [0] * 64)


def test_length_mismatch(plan):
    a = np.zeros((2, 64), dtype=np.uint32)
    b = np.zeros((3, 64), dtype=np.uint32)
    with pytest.raises(ValueError, match="coefficients"):
        plan.polymul(a, b)
    with pytest.raises(ValueError):
        plan.polymul(a, np.zeros(64, dtype=np.uint32))


def test_rns_layout(device):
    plan = polymul.RnsPlan(64, bits=40, towers=3, device=device)
    with pytest.raises(ValueError, match="towers"):
        plan.polymul(np.zeros((2, 64), dtype=np.uint64), np.zeros((2, 64), dtype=np.uint64))
    x = np.zeros((3, 64), dtype=np.uint64)
    x[2, 0] = plan.primes[2]
    with pytest.raises(ValueError, match="not reduced"):
        plan.forward(x)


def test_host_only_options(plan):
    x = np.zeros(64, dtype=np.uint32)
    with pytest.raises(ValueError):
        plan.forward(x, inplace=True)
    with pytest.raises(ValueError):
        plan.polymul(x, x, out=np.zeros(64, dtype=np.uint32))


@pytest.mark.skipif(HAS_GPU, reason="a GPU is present")
def test_gpu_required_without_one():
    with pytest.raises(polymul.GpuError) as e:
        polymul.NttPlan(64, device="gpu")
    assert "GPU" in str(e.value)
    assert issubclass(polymul.GpuError, RuntimeError)
    assert polymul.NttPlan(64).device == "cpu"


def test_device_array_on_a_cpu_plan():
    class FakeCuda:
        __cuda_array_interface__ = {"shape": (64,), "typestr": "<u4", "data": (0, False), "version": 3}

    plan = polymul.NttPlan(64, bits=30, word=32, device="cpu")
    # An operation this plan does not offer (ErrorKind::Unsupported): a
    # ValueError, as a DGT plan's forward is.
    with pytest.raises(ValueError, match="CUDA array"):
        plan.forward(FakeCuda())


def test_error_kinds_map_to_the_documented_exceptions():
    """The one mapping (exception_for in src/lib.rs) covers every kind of
    the library, as the README's table says."""
    from polymul import _polymul

    want = {
        "InvalidInput": ValueError,
        "Unsupported": ValueError,
        "Wisdom": ValueError,
        "NoGpu": polymul.GpuError,
        "Device": polymul.GpuError,
        "OutOfMemory": polymul.GpuOutOfMemory,
        "Io": OSError,
    }
    assert dict(_polymul._error_kinds()) == want
    assert issubclass(polymul.GpuOutOfMemory, polymul.GpuError)


@pytest.mark.skipif(not HAS_GPU, reason="no GPU")
def test_foreign_pointers_are_refused():
    plan = polymul.NttPlan(64, bits=30, word=32, device="gpu")

    class Bogus:
        # a pointer no CUDA allocation has: the library refuses it
        __cuda_array_interface__ = {"shape": (64,), "typestr": "<u4", "data": (0x10, False), "version": 3}

        def copy(self):
            return self

    with pytest.raises(ValueError, match="cannot be used"):
        plan.forward(Bogus(), inplace=True)


def test_big_errors(device):
    plan = polymul.RnsPlan(16, bits=40, towers=2, device=device)
    Q = plan.modulus
    ok = [1] * 16
    with pytest.raises(ValueError, match="not below Q|reduce"):
        plan.polymul_big([Q] + [0] * 15, ok)
    with pytest.raises(ValueError, match="negative"):
        plan.polymul_big([-1] + [0] * 15, ok)
    with pytest.raises(ValueError, match="int"):
        plan.polymul_big([1.5] + [0] * 15, ok)
    with pytest.raises(ValueError, match="N = 16"):
        plan.polymul_big([0] * 8, [0] * 8)
    with pytest.raises(ValueError, match="coefficients"):
        plan.polymul_big([[0] * 16] * 2, ok)
    p32 = polymul.RnsPlan(16, bits=30, towers=2, word=32, device=device)
    with pytest.raises(ValueError, match="64-bit"):
        p32.polymul_big(ok, ok)


def test_arguments_hypothesis_found():
    """What tests/test_hypothesis.py found (each raised another exception,
    or was silently accepted, before the fix): a ValueError now."""
    cases = [
        # u32 arguments given more than 32 bits: OverflowError
        lambda: polymul.NttPlan(64, bits=2**32, device="cpu"),
        lambda: polymul.RnsPlan(64, bits=2**40, towers=2, device="cpu"),
        lambda: polymul.NttPlan(64, word=2**32 + 32, device="cpu"),
        lambda: polymul.params(64, 2**32, 1),
        lambda: polymul.decide(64, bits=2**40, device="cpu"),
        # a path no file system encoding takes: pyo3's PanicException
        lambda: polymul.load_wisdom("\ud800"),
        lambda: polymul.save_wisdom("w\ud800.json"),
        # primes that are not a list: TypeError
        lambda: polymul.RnsPlan(64, primes=True, device="cpu"),
        lambda: polymul.Multiplier(64, primes=7681, device="cpu"),
    ]
    for make in cases:
        with pytest.raises(ValueError):
            make()
    # lists of floats or bools: NumPy's cast made 1.5 a 1 and True a 1
    plan = polymul.NttPlan(64, bits=30, word=32, device="cpu")
    one = [1] + [0] * 63
    for bad in ([1.5] + [0] * 63, [1.0] + [0] * 63, [True] + [0] * 63, ["1"] + [0] * 63):
        with pytest.raises(ValueError, match="coefficients are integers"):
            plan.polymul(bad, one)
        with pytest.raises(ValueError, match="coefficients are integers"):
            plan.forward(bad)
    assert plan.polymul([np.uint32(2)] + [0] * 63, one).tolist() == [2] + [0] * 63


def test_one_read_only_array_as_both_operands():
    """plan.polymul(a, a) on a read-only array: both operands are read
    through shared slices (two mutable ones of one array were undefined
    behaviour in Rust), and a is unchanged."""
    plan = polymul.NttPlan(16, bits=30, word=32, device="cpu")
    a = np.arange(1, 17, dtype=np.uint32)
    a.setflags(write=False)
    c = plan.polymul(a, a)
    assert c.tolist() == polymul.negacyclic_reference(a.tolist(), a.tolist(), plan.q)
    assert a.tolist() == list(range(1, 17))
