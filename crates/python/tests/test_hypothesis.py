"""Property tests (hypothesis) of the public API's argument handling.

Every call gets arguments drawn from valid, edge and absurd values — N,
q, bits, towers, words and dtypes, devices, array shapes, dtypes, memory
layouts (Fortran order, strided views, read-only arrays, nested lists),
unreduced and negative coefficients, big integers, wisdom paths — and must
either return a correct result or raise one of the documented exception
types: ``ValueError`` (bad input; the library's ``InvalidInput``,
``Unsupported`` and ``Wisdom`` kinds), ``polymul.GpuError`` (no GPU, or a
GPU ordinal the machine does not have) and, for wisdom files only,
``OSError`` (README.md, "Errors"). Never anything else (no
``OverflowError``, ``TypeError``, ``SystemError`` or pyo3's
``PanicException``, a ``BaseException`` that ``pytest.raises`` would not
catch either), never a silently wrong result, and the arguments are never
modified.

"Correct" is judged independently of polymul: products against the
schoolbook negacyclic product in Python ints, primes by a deterministic
Miller–Rabin test written here, what is valid by the rules README.md
states. The tests run on the CPU backend, and on GPU 0 too where there is
one (gpu_check.sh runs this file on the GPU machine); without a GPU every
CUDA device must give ``GpuError``.

Settings: the profile "ci" (loaded unless ``POLYMUL_HYPOTHESIS_PROFILE``
names another: "long" runs 20 times the examples), ``deadline=None``, no
example database (nothing written beside the tests); the whole file runs
in well under a minute on the 2-core CI machine.
"""

import math
import os
import pathlib
import random
import re

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")  # gpu_check.sh installs it from the bundle's wheels

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import polymul  # noqa: E402

_COMMON = dict(
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile("ci", max_examples=60, **_COMMON)
settings.register_profile("long", max_examples=1200, **_COMMON)
settings.load_profile(os.environ.get("POLYMUL_HYPOTHESIS_PROFILE", "ci"))

GPUS = polymul.device_count() if polymul.gpu_available() else 0
DEVICES = ["cpu"] + (["cuda:0"] if GPUS else [])
ARG_ERRORS = (ValueError, polymul.GpuError)
WORD_MAX_BITS = {32: 30, 64: 62}
MIN_BITS = 20  # the narrowest primes polymul takes


# --- independent references ----------------------------------------------------


def is_prime(n):
    """Deterministic Miller–Rabin for n < 3.3·10^24 (every u64)."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in small:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def schoolbook(a, b, q):
    """a·b mod (X^N + 1, q) of two int lists, quadratic, in Python ints."""
    n = len(a)
    c = [0] * n
    for i in range(n):
        ai = int(a[i])
        if ai == 0:
            continue
        for j in range(n):
            k = i + j
            if k < n:
                c[k] += ai * int(b[j])
            else:
                c[k - n] -= ai * int(b[j])
    return [v % q for v in c]


def call(f, allowed=ARG_ERRORS):
    """("ok", value) or ("err", exception) for one of the `allowed`
    types, with a message; anything else propagates and fails the test."""
    try:
        return "ok", f()
    except allowed as e:
        assert str(e).strip(), f"{type(e).__name__} without a message"
        return "err", e


def snapshot(x):
    """A deep copy to compare an argument with after the call."""
    if isinstance(x, np.ndarray):
        return (x.copy(order="K"), x.flags.writeable, x.shape, x.strides)
    return repr(x)


def unchanged(x, snap):
    if isinstance(x, np.ndarray):
        arr, writeable, shape, strides = snap
        return (
            x.shape == shape
            and x.strides == strides
            and x.flags.writeable == writeable
            and x.dtype == arr.dtype
            and (np.array_equal(x, arr) if x.dtype != object else x.tolist() == arr.tolist())
        )
    return repr(x) == snap


# --- argument strategies -------------------------------------------------------

POW2 = [1 << k for k in range(0, 13)]
huge_ints = st.sampled_from([2**32 - 1, 2**32, 2**32 + 30, 2**32 + 64, 2**63, 2**64 - 1, 2**64, 2**70, -(2**70)])
np_ints = st.builds(lambda t, v: t(v), st.sampled_from([np.int64, np.uint64, np.uint32, np.int32]), st.integers(0, 70))
garbage = st.sampled_from([None, 64.0, 1.5, True, False, "64", b"64", [64], float("nan"), object()])


def int_like(lo, hi):
    return st.one_of(st.integers(lo, hi), huge_ints, np_ints, st.integers(-5, -1), garbage)


ns = st.one_of(st.sampled_from(POW2), st.integers(-3, 300), huge_ints, np_ints, garbage, st.just(1 << 25))
bits_args = st.one_of(st.integers(-2, 70), huge_ints, np_ints, garbage)
counts = st.one_of(st.integers(-1, 4), st.sampled_from([10**6, 2**31, 2**63, 2**64 - 1, 2**64]), garbage)
towers_args = st.one_of(st.integers(0, 4), st.sampled_from([2**20, 2**63, 2**64 - 1, 2**64, -1]), garbage)
words = st.one_of(st.none(), st.sampled_from([32, 64, 16, 0, 128, 2**32 + 32, 2**32 + 64, -32]), garbage)
GOOD_DTYPES = [np.uint32, np.uint64, "uint32", "uint64", "u4", "u8", "<u4", "<u8", np.dtype(np.uint32)]
BAD_DTYPES = [np.int32, np.int64, np.float64, np.uint16, np.uint8, bool, int, object, ">u8", ">u4", "i4,i8", "(2,)u8",
              np.dtype([("a", "<u8")]), "nonsense", "", 32, 64, 2**70, -1, 1.5, [np.uint64]]
dtypes = st.one_of(st.none(), st.sampled_from(GOOD_DTYPES), st.sampled_from(BAD_DTYPES))


def device_strings():
    ordinals = st.one_of(st.integers(0, 3), st.integers(-3, -1), st.sampled_from([99, 2**31, 2**32 - 1, 2**32, 10**30]))
    return st.one_of(
        st.sampled_from(["auto", "cpu", "cuda", "gpu", "all", "ALL", "all:0", "CUDA", "cuda:", "cpu:0", "tpu", "", " cuda:0", "cuda:+1",
                         "cuda:0 ", "cuda:٣", "gpu:0x1", "cuda:1e3", "cuda\x00:0"]),
        st.builds(lambda p, o: f"{p}:{o}", st.sampled_from(["cuda", "gpu", "Cuda"]), ordinals),
        st.builds(lambda p, o: f"{p}:{o:07d}" if o >= 0 else f"{p}:{o}", st.sampled_from(["cuda", "gpu"]), ordinals),
        st.text(max_size=12),
    )


devices = st.one_of(
    st.none(),
    device_strings(),
    st.integers(-3, 3),
    st.sampled_from([99, 2**32 - 1, 2**32, 2**64, -(2**70)]),
    st.builds(np.int64, st.integers(0, 3)),
    st.sampled_from([True, False, 1.0, 0.0, b"cuda", object()]),
    # several GPUs: lists and tuples of ordinals (and of things that are not)
    st.lists(st.one_of(st.integers(-1, 3), st.sampled_from(["cuda:1", "gpu", "cpu", "all", True, [0]])), max_size=3),
    st.lists(st.integers(0, 3), max_size=3).map(tuple),
)

_DEVICE_RE = re.compile(r"(?:cuda|gpu):([0-9]+)\Z", re.ASCII)


def parse_device(d):
    """This test's reading of device= (README.md): "auto", "cpu", "all",
    ("gpu", N), ("gpus", [N, ...]) or None for a ValueError."""
    if d is None:
        return "auto"
    if isinstance(d, (list, tuple)):
        ordinals = []
        for item in d:
            one = None if isinstance(item, (list, tuple)) else parse_device(item)
            if not (isinstance(one, tuple) and one[0] == "gpu") or one[1] in ordinals:
                return None
            ordinals.append(one[1])
        if not ordinals:
            return None
        return ("gpu", ordinals[0]) if len(ordinals) == 1 else ("gpus", ordinals)
    if isinstance(d, str):
        if d in ("auto", "cpu", "all"):
            return d
        if d in ("cuda", "gpu"):
            return ("gpu", 0)
        m = _DEVICE_RE.fullmatch(d)
        if m and int(m.group(1)) < 2**32:
            return ("gpu", int(m.group(1)))
        return None
    if isinstance(d, bool):
        return None
    if isinstance(d, (int, np.integer)) and 0 <= int(d) < 2**32:
        return ("gpu", int(d))
    return None


def as_uint(v, below):
    """The value a documented integer argument stands for, or None when it
    must be refused (not an int, a bool, negative, too large)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        return None
    v = int(v)
    return v if 0 <= v < below else None


# --- plan construction and decide() -------------------------------------------


def check_device_outcome(device, outcome, value):
    """What device= allows: a ValueError for a form it does not take, a
    GpuError only for a GPU (none without one, or an ordinal out of range),
    and a plan on the device asked for."""
    parsed = parse_device(device)
    if parsed is None:
        # (another bad argument may be reported first: a ValueError too)
        assert outcome == "err" and type(value) is ValueError, (device, value)
        return
    if outcome == "err":
        if isinstance(value, polymul.GpuError):
            assert parsed != "cpu", (device, value)
            if parsed == "auto":
                assert GPUS > 0, value  # auto without a GPU is the CPU, never an error
            elif parsed == "all":
                assert GPUS == 0, (device, value)
            elif parsed[0] == "gpus":
                assert max(parsed[1]) >= GPUS, (device, value)
            else:
                assert parsed[1] >= GPUS, (device, value)
        return
    plan = value
    if parsed == "cpu":
        assert plan.device == "cpu" and not plan.on_gpu
    elif parsed == "auto":
        assert plan.device == ("cuda:0" if GPUS else "cpu")
    elif parsed == "all":
        assert GPUS > 0 and plan.device_ids == list(range(GPUS))
    elif parsed[0] == "gpus":
        assert max(parsed[1]) < GPUS and plan.device_ids == parsed[1] and plan.device == parsed[1]
    else:
        assert parsed[1] < GPUS, f"a plan on {device!r} without that GPU"
        assert plan.device == f"cuda:{parsed[1]}" and plan.on_gpu


def check_plan(plan, kind, n, word, q, towers, primes):
    assert isinstance(plan, polymul._Plan)
    assert plan.n == n and plan.word == word and plan.dtype == np.dtype(f"uint{word}")
    ps = plan.primes
    assert len(ps) == plan.towers >= 1 and len(set(ps)) == len(ps)
    assert plan.modulus == math.prod(ps)
    for p in ps:
        assert is_prime(p), p
        assert p.bit_length() <= WORD_MAX_BITS[word], (p, word)
    if q is not None:
        assert ps == [q]
    if primes is not None:
        assert ps == primes
    if kind == "dgt":
        assert all((p + 1) % n == 0 for p in ps), ps
    elif kind == "ntt":
        assert all(p % (2 * n) == 1 for p in ps), ps
    else:  # the planner's choice: NTT-friendly or DGT-friendly primes
        assert all(p % (2 * n) == 1 or (p + 1) % n == 0 for p in ps), ps
    if q is None and primes is None and towers is not None:
        assert plan.towers == towers


def good_args(word_bits):
    """Valid values of each plan argument (for a plan of `word_bits`-bit
    words)."""
    return {
        "n": st.one_of(st.sampled_from(POW2[1:]), st.builds(np.int64, st.sampled_from(POW2[1:8]))),
        "q": st.none(),
        "bits": st.integers(MIN_BITS, WORD_MAX_BITS[word_bits]),
        "towers": st.integers(1, 3),
        "primes": st.none(),
        "word": st.sampled_from([None, word_bits]),
        "dtype": st.sampled_from([None, f"uint{word_bits}", np.dtype(f"uint{word_bits}")]),
        "batch": st.integers(1, 1000),
        "count": st.integers(0, 4),
        "device": st.sampled_from(["cpu", "auto", None] + (["cuda:0", 0, "gpu"] if GPUS else [])),
        "device_name": st.none(),
        "transform": st.sampled_from(["auto", "ntt", "dgt"]),
    }


# Anything, valid values among it.
BAD_ARGS = {
    "n": ns,
    "q": st.one_of(int_like(0, 2**64 - 1), st.sampled_from([3, 17, 97, 257, 7681, 12289, 65537, 2**31 - 1])),
    "bits": bits_args,
    "towers": towers_args,
    "primes": st.one_of(st.lists(int_like(0, 2**62), max_size=3), st.just([12289, 12289]), garbage),
    "word": words,
    "dtype": dtypes,
    "batch": int_like(0, 10**6),
    "count": counts,
    "device": devices,
    "device_name": st.one_of(st.text(max_size=8), st.sampled_from([3, b"x", ["H100"]])),
    "transform": st.sampled_from(["fft", "", "NTT", None, 1]),
}


def draw_args(data, names):
    """Valid values for `names`, up to two of them replaced by anything."""
    word_bits = data.draw(st.sampled_from([32, 64]), label="word bits")
    corrupt = data.draw(st.sets(st.sampled_from(names), max_size=2), label="corrupted")
    good = good_args(word_bits)
    return {k: data.draw(BAD_ARGS[k] if k in corrupt else good[k], label=k) for k in names}


PLAN_ARGS = ["n", "q", "bits", "towers", "primes", "word", "dtype", "batch", "device"]


@given(data=st.data(), kind=st.sampled_from(["ntt", "rns", "dgt", "auto"]))
def test_plan_arguments(data, kind):
    """Every plan class takes any arguments: a plan with the properties
    asked for, or a ValueError / GpuError; never another exception."""
    args = draw_args(data, PLAN_ARGS)
    n, q, bits, towers, primes = (args[k] for k in ("n", "q", "bits", "towers", "primes"))
    word, dtype, batch, device = (args[k] for k in ("word", "dtype", "batch", "device"))
    if kind == "ntt":
        make = lambda: polymul.NttPlan(n, q=q, bits=bits, word=word, device=device, dtype=dtype)  # noqa: E731
    elif kind == "rns":
        make = lambda: polymul.RnsPlan(n, bits=bits, towers=towers, primes=primes, word=word, device=device, dtype=dtype)  # noqa: E731,E501
    elif kind == "dgt":
        make = lambda: polymul.DgtPlan(n, q=q, bits=bits, towers=towers, primes=primes, word=word, device=device, dtype=dtype)  # noqa: E731,E501
    else:
        make = lambda: polymul.Multiplier(n, bits=bits, towers=towers, primes=primes, q=q, batch=batch, word=word, device=device, dtype=dtype)  # noqa: E731,E501
    outcome, value = call(make)
    hypothesis.event(f"plan: {outcome}")
    check_device_outcome(device, outcome, value)
    if outcome == "err":
        return
    nn = as_uint(n, 2**64)
    assert nn is not None and nn >= 2 and nn & (nn - 1) == 0, f"a plan for n = {n!r}"
    assert as_uint(bits, 2**64) is not None, f"a plan for bits = {bits!r}"
    if kind != "rns" and q is not None:
        assert as_uint(q, 2**64) is not None, f"a plan for q = {q!r}"
    if kind != "ntt" and primes is not None and (q is None or kind == "rns"):
        assert isinstance(primes, (list, tuple)) and all(as_uint(p, 2**64) is not None for p in primes), primes
    w = as_uint(word, 2**64)
    want_word = w if w is not None else (32 if dtype is not None and np.dtype(dtype) == np.uint32 else 64)
    assert want_word in (32, 64)
    qq = as_uint(q, 2**64) if kind in ("ntt", "dgt", "auto") and q is not None else None
    pp = None
    if kind in ("rns", "dgt", "auto") and primes is not None and qq is None:
        pp = [int(p) for p in primes]
    t = as_uint(towers, 2**64) if kind != "ntt" else 1
    check_plan(value, "ntt" if kind == "rns" else kind, nn, want_word, qq, t, pp)


@given(data=st.data())
def test_decide_arguments(data):
    """decide(): a decision for valid parameters (with device_name, no GPU
    needed), else a ValueError / GpuError."""
    a = draw_args(data, ["transform", "n", "bits", "towers", "q", "batch", "word", "dtype", "device", "device_name"])
    outcome, value = call(lambda: polymul.decide(**a))
    hypothesis.event(f"decide: {outcome}")
    if outcome == "ok":
        assert set(value) == {"decision", "from_wisdom", "measured_us"} and value["decision"]
        assert a["transform"] in ("auto", "ntt", "dgt")
        assert a["device_name"] is None or isinstance(a["device_name"], str)
        nn = as_uint(a["n"], 2**64)
        assert nn is not None and nn >= 2 and nn & (nn - 1) == 0
        if a["device_name"] is None:
            assert parse_device(a["device"]) is not None
    elif isinstance(value, polymul.GpuError):
        assert a["device_name"] is None and parse_device(a["device"]) not in (None, "cpu")


@given(data=st.data(), dgt=st.booleans())
def test_params_arguments(data, dgt):
    """params(): primes of exactly `bits` bits, NTT-friendly (with ψ of
    order 2N) or DGT-friendly, largest first, as many as asked; or a
    ValueError."""
    a = draw_args(data, ["n", "bits", "count"])
    n, bits, count = a["n"], a["bits"], a["count"]
    outcome, value = call(lambda: polymul.params(n, bits, count, dgt), allowed=ValueError)
    hypothesis.event(f"params: {outcome}")
    if outcome == "err":
        return
    nn, b, c = as_uint(n, 2**64), as_uint(bits, 2**32), as_uint(count, 2**64)
    assert None not in (nn, b, c) and nn >= 2 and nn & (nn - 1) == 0, (n, bits, count)
    assert len(value) == c
    qs = [e["q"] for e in value]
    assert qs == sorted(qs, reverse=True) and len(set(qs)) == len(qs)
    for e in value:
        p = e["q"]
        assert is_prime(p) and p.bit_length() == b == e["bits"], e
        if dgt:
            assert (p + 1) % nn == 0 and "psi" not in e
        else:
            psi = e["psi"]
            assert p % (2 * nn) == 1
            assert pow(psi, nn, p) == p - 1, e  # ψ^N = −1: order exactly 2N


@given(device=devices)
def test_device_argument(device):
    """device= alone: the forms README.md lists parse, anything else is a
    ValueError naming device=; a GPU the machine does not have is a
    GpuError, before or instead of a plan."""
    outcome, value = call(lambda: polymul.NttPlan(16, bits=20, device=device))
    check_device_outcome(device, outcome, value)
    if parse_device(device) is None:
        assert "device" in str(value) and "cuda:N" in str(value), value


# --- products, transforms ---------------------------------------------------------

_PLANS = {}


def plan_for(kind, n, word, bits, towers, device):
    key = (kind, n, word, bits, towers, device)
    if key not in _PLANS:
        if kind == "ntt":
            _PLANS[key] = polymul.NttPlan(n, bits=bits, word=word, device=device)
        elif kind == "rns":
            _PLANS[key] = polymul.RnsPlan(n, bits=bits, towers=towers, word=word, device=device)
        elif kind == "dgt":
            _PLANS[key] = polymul.DgtPlan(n, bits=bits, towers=towers, word=word, device=device)
        else:
            _PLANS[key] = polymul.Multiplier(n, bits=bits, towers=towers, batch=2, word=word, device=device)
    return _PLANS[key]


@st.composite
def plans(draw):
    kind = draw(st.sampled_from(["ntt", "rns", "dgt", "auto"]))
    word = draw(st.sampled_from([32, 64]))
    n = draw(st.sampled_from([4, 8, 16, 32] if kind == "dgt" else [2, 4, 8, 16, 32]))
    bits = draw(st.integers(MIN_BITS, WORD_MAX_BITS[word]))
    towers = 1 if kind == "ntt" else draw(st.integers(1, 3))
    device = draw(st.sampled_from(DEVICES))
    return plan_for(kind, n, word, bits, towers, device)


@st.composite
def operands(draw, plan):
    """An argument for `plan`: mostly valid arrays in every layout, often
    with one thing wrong; returns (value, the valid words as a flat int list
    tower-major or None where it must be refused)."""
    n, k, primes, word = plan.n, plan.towers, plan.primes, plan.word
    rnd = random.Random(draw(st.integers(0, 2**32)))
    batch = draw(st.integers(1, 3))
    shapes = [(k * batch, n), (k, batch, n)] + ([(n,), (1, n), (1, 1, n)] if k == 1 else [(k, n)])
    # At most one thing wrong: the shape, a value or the form.
    wrong = draw(st.sampled_from([None, None, None, "shape", "value", "form"]))
    bad_shapes = [(n + 1,), (k, n - 1), (k * batch, 2 * n), (0, n), (k, 0, n), (), (n, 1)]
    bad_shapes.append((k * batch + 1, n) if k > 1 else (batch, n // 2 or 1))
    shape = draw(st.sampled_from(bad_shapes if wrong == "shape" else shapes))
    size = math.prod(shape)
    rows = size // n if n and shape and shape[-1] == n else 0
    per = rows // k if rows else 0
    vals = [rnd.randrange(primes[min(i // n // per, k - 1)] if per else primes[0]) for i in range(size)]
    pattern = draw(st.sampled_from(["unreduced", "wide", "negative"] if wrong == "value" else
                                   ["random", "random", "zeros", "top"]))
    if pattern == "zeros":
        vals = [0] * size
    elif pattern == "top":
        vals = [(primes[min(i // n // per, k - 1)] if per else primes[0]) - 1 for i in range(size)]
    elif pattern in ("unreduced", "wide", "negative") and size:
        i = rnd.randrange(size)
        q = primes[min(i // n // per, k - 1)] if per else primes[0]
        vals[i] = {"unreduced": q + rnd.randrange(3), "wide": 2**word - 1, "negative": -1}[pattern]
    good_forms = ["plan", "u32", "fortran", "strided", "readonly", "list"] + (["u64"] if word == 64 else [])
    bad_forms = ["i64", "f64", "bool", "object", "big-endian", "list-float", "list-bool", "scalar"]
    bad_forms += [] if word == 64 else ["u64"]
    form = draw(st.sampled_from(bad_forms if wrong == "form" else good_forms))
    reduced = shape in shapes and all(
        0 <= v < primes[min(i // n // per, k - 1)] for i, v in enumerate(vals)
    )
    fits = lambda bits: all(0 <= v < 2**bits for v in vals)  # noqa: E731
    dt = plan.dtype
    if form in ("list-float", "list-bool"):
        # Floats (even integral ones) and bools are not coefficients.
        conv = (lambda v: float(v) + 0.5 * (v % 2)) if form == "list-float" else (lambda v: bool(v % 2))
        return np.array([conv(v) for v in vals], dtype=object).reshape(shape).tolist(), None
    if form == "scalar":
        return dt.type(vals[0] if vals and vals[0] >= 0 else 0), None
    if form == "list":
        value = np.array(vals, dtype=object).reshape(shape).tolist()
        return value, vals if reduced else None
    if form == "object":
        return np.array(vals, dtype=object).reshape(shape), None
    if form in ("u32", "u64", "i64", "f64", "bool", "big-endian"):
        target = {"u32": np.uint32, "u64": np.uint64, "i64": np.int64, "f64": np.float64, "bool": np.bool_,
                  "big-endian": np.dtype(">u8") if word == 64 else np.dtype(">u4")}[form]
        bits = {"u32": 32, "u64": 64, "i64": 63, "f64": 53, "bool": 1, "big-endian": word}[form]
        if not fits(bits):
            return None, None  # not representable: no such argument
        arr = np.array(vals, dtype=object).astype(target).reshape(shape)
        accepted = (form == "u32") or (form == "u64" and word == 64)
        return arr, vals if accepted and reduced else None
    if not fits(word):
        return None, None
    base = np.array(vals, dtype=object).astype(dt).reshape(shape)
    if form == "fortran":
        return np.asfortranarray(base), vals if reduced else None
    if form == "strided" and base.ndim >= 1:
        # The same values, every other element of a larger array of junk.
        big = np.full(shape[:-1] + (2 * shape[-1],), 2**word - 1, dtype=dt) if shape else None
        big[..., ::2] = base
        return big[..., ::2], vals if reduced else None
    if form == "readonly":
        base.setflags(write=False)
    return base, vals if reduced else None


def reference(plan, a_vals, b_vals):
    n, k, primes = plan.n, plan.towers, plan.primes
    rows = len(a_vals) // n
    per = rows // k
    out = []
    for r in range(rows):
        q = primes[r // per]
        out += schoolbook(a_vals[r * n:(r + 1) * n], b_vals[r * n:(r + 1) * n], q)
    return out


@given(data=st.data())
def test_polymul_arguments(data):
    """plan.polymul(a, b): the schoolbook product of every row, tower by
    tower, of a's shape and the plan's dtype, when both are valid and of
    the same size; a ValueError otherwise; a and b never modified."""
    plan = data.draw(plans())
    a, av = data.draw(operands(plan))
    b, bv = data.draw(operands(plan)) if data.draw(st.booleans()) else (a, av)
    snaps = (snapshot(a), snapshot(b))
    outcome, value = call(lambda: plan.polymul(a, b), allowed=ValueError)
    assert unchanged(a, snaps[0]) and unchanged(b, snaps[1]), "an argument was modified"
    valid = av is not None and bv is not None and len(av) == len(bv)
    hypothesis.event(f"polymul: {outcome}")
    if not valid:
        assert outcome == "err", f"accepted: a={a!r}, b={b!r}"
        return
    assert outcome == "ok", f"refused valid operands: {value}"
    shape = np.shape(a)
    assert isinstance(value, np.ndarray) and value.shape == shape and value.dtype == plan.dtype
    assert value.ravel().tolist() == reference(plan, av, bv)


@given(data=st.data())
def test_transform_arguments(data):
    """forward/inverse: a ValueError for invalid input (and on a DGT plan,
    which only multiplies); otherwise values below q, inverse(forward(x))
    = x, and the pointwise product of two transforms inverts to the
    schoolbook product; x never modified."""
    plan = data.draw(plans())
    x, xv = data.draw(operands(plan))
    snap = snapshot(x)
    outcome, fx = call(lambda: plan.forward(x), allowed=ValueError)
    assert unchanged(x, snap), "forward modified its argument"
    hypothesis.event(f"forward: {outcome}")
    dgt = isinstance(plan, polymul.DgtPlan) or "DGT" in plan.decision.upper()
    if xv is None or dgt:
        assert outcome == "err", f"forward accepted {x!r}"
        return
    assert outcome == "ok", fx
    assert fx.shape == np.shape(x) and fx.dtype == plan.dtype
    n, k, primes = plan.n, plan.towers, plan.primes
    rows = fx.size // n
    flat = fx.reshape(rows, n)
    per = rows // k
    assert all(int(v) < primes[r // per] for r in range(rows) for v in flat[r])
    fsnap = snapshot(fx)
    back = plan.inverse(fx)
    assert unchanged(fx, fsnap), "inverse modified its argument"
    assert back.ravel().tolist() == xv
    # forward is a ring map: pointwise products invert to the negacyclic
    # product (y: each row of x reversed, so each value stays in its tower)
    yv = [v for r in range(rows) for v in xv[r * n:(r + 1) * n][::-1]]
    y = np.array(yv, dtype=object).astype(plan.dtype).reshape(fx.shape)
    fy = plan.forward(y).reshape(rows, n)
    pw = np.array(
        [[int(u) * int(v) % primes[r // per] for u, v in zip(flat[r], fy[r])] for r in range(rows)], dtype=object
    ).astype(plan.dtype).reshape(fx.shape)
    assert plan.inverse(pw).ravel().tolist() == reference(plan, xv, yv)


@st.composite
def big_operands(draw, plan):
    n, Q = plan.n, plan.modulus
    rnd = random.Random(draw(st.integers(0, 2**32)))
    shape = draw(st.sampled_from([(n,), (1, n), (2, n), (3, n)] * 2 + [(n + 1,), (2, n // 2 or 3), (0, n), ()]))
    size = math.prod(shape)
    vals = [rnd.randrange(Q) for _ in range(size)]
    pattern = draw(st.sampled_from(["random", "random", "random", "top", "numpy-int", "Q", "huge", "negative",
                                    "float", "bool", "str"]))
    valid = len(shape) in (1, 2) and shape[-1] == n and size > 0
    if pattern == "top":
        vals = [Q - 1] * size
    elif size and pattern != "random":
        i = rnd.randrange(size)
        vals[i] = {"Q": Q, "huge": Q << 200, "negative": -1, "float": 1.0, "bool": True, "str": "1",
                   "numpy-int": np.uint64(7)}[pattern]
        valid = valid and pattern == "numpy-int"
    form = draw(st.sampled_from(["list", "object-array", "uint64-array"]))
    if form == "uint64-array":
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < 2**64 for v in vals):
            form = "list"
        else:
            arr = np.array([int(v) for v in vals], dtype=np.uint64).reshape(shape)
            return arr, [int(v) for v in vals] if valid else None
    arr = np.empty(size, dtype=object)
    arr[:] = vals
    arr = arr.reshape(shape)
    if form == "list":
        return arr.tolist() if shape else vals, [int(v) for v in vals] if valid else None
    return arr, [int(v) for v in vals] if valid else None


@given(data=st.data())
def test_polymul_big_arguments(data):
    """polymul_big: products modulo Q of Python-int coefficients in [0, Q)
    against the schoolbook product; a ValueError for a bad shape, a
    non-int, a negative or a coefficient ≥ Q, and for a 32-bit plan."""
    word = data.draw(st.sampled_from([64, 64, 32]))
    n = data.draw(st.sampled_from([2, 4, 8, 16]))
    bits = data.draw(st.integers(MIN_BITS, WORD_MAX_BITS[word]))
    towers = data.draw(st.integers(1, 3))
    plan = plan_for("rns", n, word, bits, towers, data.draw(st.sampled_from(DEVICES)))
    a, av = data.draw(big_operands(plan))
    b, bv = data.draw(big_operands(plan))
    snaps = (snapshot(a), snapshot(b))
    outcome, value = call(lambda: plan.polymul_big(a, b), allowed=ValueError)
    assert unchanged(a, snaps[0]) and unchanged(b, snaps[1]), "an argument was modified"
    hypothesis.event(f"polymul_big: {outcome}")
    if word == 32 or av is None or bv is None or len(av) != len(bv):
        assert outcome == "err", f"accepted: a={a!r}, b={b!r}"
        return
    assert outcome == "ok", value
    Q = plan.modulus
    assert value.shape == np.shape(a) and value.dtype == object
    got = value.ravel().tolist()
    want = []
    for r in range(len(av) // n):
        want += schoolbook(av[r * n:(r + 1) * n], bv[r * n:(r + 1) * n], Q)
    assert got == want


# --- wisdom ----------------------------------------------------------------------

# Relative paths only (the test runs in a temporary folder and may write
# there): no "/" in drawn names, and the special ones stay inside it.
paths = st.one_of(
    st.text(st.characters(blacklist_characters="/"), max_size=12),
    st.sampled_from(["\ud800", "a\udcff", "a\x00b", ".", "..", "a-dir", "a-file", "a-file/w.json",
                     "missing/w.json", "a-dir/w.json"]),
    st.binary(max_size=8).map(lambda b: b.replace(b"/", b"_")),
    st.builds(pathlib.PurePosixPath, st.sampled_from(["w.json", "a-dir", "a-file"])),
    st.sampled_from([None, 3, 1.5, ["w.json"], True, object()]),
)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    d = tmp_path_factory.mktemp("hypothesis-wisdom")
    (d / "a-file").write_text("not wisdom")
    (d / "a-dir").mkdir()
    old = os.getcwd()
    os.chdir(d)  # relative paths land here
    env = {k: os.environ.pop(k, None) for k in ("POLYMUL_WISDOM", "XDG_CACHE_HOME")}
    os.environ["XDG_CACHE_HOME"] = str(d / "cache")
    polymul.clear_wisdom()
    yield d
    polymul.clear_wisdom()
    os.chdir(old)
    for k, v in env.items():
        os.environ.pop(k, None)
        if v is not None:
            os.environ[k] = v


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(path=paths, content=st.one_of(st.none(), st.binary(max_size=64), st.sampled_from([
    b'{"version": 1, "entries": []}', b'{"version": 1}', b'{"version": 99, "entries": []}', b"\xff\xfe",
])))
def test_wisdom_paths(sandbox, path, content):
    """load_wisdom/save_wisdom with any path (and, for load, any file
    content): a count, FileNotFoundError, ValueError or OSError; the
    process's wisdom unchanged by a failed load."""
    if isinstance(path, (str, bytes, os.PathLike)) and content is not None and path not in ("", b""):
        try:
            with open(path, "wb") as f:
                f.write(content)
        except (OSError, ValueError):
            pass
    before = polymul.wisdom_entries()
    outcome, value = call(lambda: polymul.load_wisdom(path), allowed=(ValueError, OSError))
    if outcome == "ok":
        assert isinstance(value, int) and value >= 0  # (None: the default path, absent here: 0)
    else:
        assert polymul.wisdom_entries() == before, "a failed load changed the wisdom"
        if path is None or not isinstance(path, (str, bytes, os.PathLike)):
            assert type(value) is ValueError
    outcome, value = call(lambda: polymul.save_wisdom(path), allowed=(ValueError, OSError))
    if outcome == "ok":
        assert value is None
        # what was saved loads back, the same entries
        assert polymul.load_wisdom(path) == len(polymul.wisdom_entries())
    elif path is None or not isinstance(path, (str, bytes, os.PathLike)):
        assert type(value) is ValueError
    polymul.clear_wisdom()
