"""Big-integer products modulo Q (object arrays of Python ints) through the
RNS conversions, against the pure-Python negacyclic reference."""

import numpy as np
import pytest
from conftest import negacyclic

import polymul


@pytest.mark.parametrize("n,bits,towers", [(16, 62, 1), (64, 62, 3), (256, 50, 8), (1024, 62, 4)])
def test_big_products(device, rng, n, bits, towers):
    plan = polymul.RnsPlan(n, bits=bits, towers=towers, device=device)
    Q = plan.modulus
    assert Q.bit_length() > (bits - 1) * towers
    batch = 2
    a = np.empty((batch, n), dtype=object)
    b = np.empty((batch, n), dtype=object)
    for r in range(batch):
        a[r] = [rng.randrange(Q) for _ in range(n)]
        b[r] = [rng.randrange(Q) for _ in range(n)]
    c = plan.polymul_big(a, b)
    assert c.dtype == object and c.shape == (batch, n)
    for r in range(batch):
        assert c[r].tolist() == negacyclic(a[r].tolist(), b[r].tolist(), Q)


def test_big_edges(device):
    n = 32
    plan = polymul.RnsPlan(n, bits=62, towers=5, device=device)
    Q = plan.modulus
    top = [Q - 1] * n
    zero = [0] * n
    one = [1] + [0] * (n - 1)
    for a, b in [(top, top), (zero, top), (one, top), (top, one)]:
        c = plan.polymul_big(a, b)
        assert isinstance(c, np.ndarray) and c.shape == (n,)
        assert c.tolist() == negacyclic(a, b, Q)
        assert all(isinstance(v, int) for v in c.tolist())
    # numpy integer scalars in an object array are ints too
    a = np.array([np.uint64(3)] * n + [], dtype=object)
    assert plan.polymul_big(a, one).tolist() == [3] * n
