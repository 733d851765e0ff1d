"""Shared helpers: pure-Python big-integer references (no polymul in them)
and the devices to run on."""

import os
import random

import numpy as np
import pytest

import polymul


def schoolbook(a, b, q):
    """The quadratic negacyclic product of two int lists modulo q."""
    n = len(a)
    c = [0] * n
    for i in range(n):
        ai = int(a[i])
        for j in range(n):
            if i + j < n:
                c[i + j] += ai * int(b[j])
            else:
                c[i + j - n] -= ai * int(b[j])
    return [v % q for v in c]


def negacyclic(a, b, q):
    """The negacyclic product a·b mod (X^N + 1, q) of two int lists by
    Kronecker substitution: pack each into one Python int, multiply, unpack,
    fold X^N = -1. Exact for any coefficients in [0, q)."""
    n = len(a)
    a = [int(v) for v in a]
    b = [int(v) for v in b]
    bound = max(max(a, default=0), max(b, default=0), 1)
    w = (2 * bound.bit_length()) + n.bit_length() + 1
    pa = 0
    for v in reversed(a):
        pa = (pa << w) | v
    pb = 0
    for v in reversed(b):
        pb = (pb << w) | v
    prod = pa * pb
    mask = (1 << w) - 1
    full = [(prod >> (w * k)) & mask for k in range(2 * n - 1)]
    return [(full[k] - (full[k + n] if k + n < 2 * n - 1 else 0)) % q for k in range(n)]


def reference_rows(a, b, primes):
    """Row-wise reference of tower-major arrays (rows of the last axis)."""
    a2 = np.asarray(a).reshape(-1, np.asarray(a).shape[-1])
    b2 = np.asarray(b).reshape(a2.shape)
    k = len(primes)
    rows_per_tower = a2.shape[0] // k
    out = [negacyclic(a2[r].tolist(), b2[r].tolist(), primes[r // rows_per_tower]) for r in range(a2.shape[0])]
    return np.array(out, dtype=np.asarray(a).dtype).reshape(np.asarray(a).shape)


def rand_words(rng, shape, primes, dtype):
    """Random tower-major words below each tower's prime."""
    shape = tuple(shape)
    k = len(primes)
    flat = int(np.prod(shape))
    per = flat // k
    out = np.empty(flat, dtype=dtype)
    for t, q in enumerate(primes):
        out[t * per : (t + 1) * per] = [rng.randrange(q) for _ in range(per)]
    return out.reshape(shape)


HAS_GPU = polymul.gpu_available() and os.environ.get("POLYMUL_PY_TEST_CPU_ONLY") != "1"
DEVICES = ["cpu"] + (["gpu"] if HAS_GPU else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.fixture
def rng():
    return random.Random(20)
