"""Products, transforms, shapes and dtypes against the pure-Python
references, on the CPU backend and (where present) the GPU."""

import numpy as np
import pytest
from conftest import negacyclic, rand_words, reference_rows, schoolbook

import polymul


def test_references_agree(rng):
    for n in (1, 2, 8, 64):
        q = (1 << 61) - 1
        a = [rng.randrange(q) for _ in range(n)]
        b = [rng.randrange(q) for _ in range(n)]
        assert negacyclic(a, b, q) == schoolbook(a, b, q)
    # X^(N-1) · X = X^N = -1
    assert negacyclic([0, 0, 0, 1], [0, 1, 0, 0], 17) == [16, 0, 0, 0]
    assert polymul.negacyclic_reference([0, 0, 0, 1], [0, 1, 0, 0], 17) == [16, 0, 0, 0]


@pytest.mark.parametrize("word,bits", [(32, 30), (32, 20), (64, 62), (64, 40)])
@pytest.mark.parametrize("log_n", [1, 3, 6, 10, 12])
def test_random_products(device, rng, word, bits, log_n):
    n = 1 << log_n
    plan = polymul.NttPlan(n, bits=bits, word=word, device=device)
    assert plan.q.bit_length() == bits
    dtype = np.uint32 if word == 32 else np.uint64
    batch = 3 if log_n < 12 else 1
    a = rand_words(rng, (batch, n), [plan.q], dtype)
    b = rand_words(rng, (batch, n), [plan.q], dtype)
    c = plan.polymul(a, b)
    assert c.dtype == dtype and c.shape == (batch, n)
    np.testing.assert_array_equal(c, reference_rows(a, b, [plan.q]))


@pytest.mark.parametrize("word,bits", [(32, 30), (64, 62)])
def test_edge_inputs(device, word, bits):
    n = 256
    plan = polymul.NttPlan(n, bits=bits, word=word, device=device)
    q = plan.q
    dtype = plan.dtype
    zero = np.zeros(n, dtype=dtype)
    top = np.full(n, q - 1, dtype=dtype)
    one = np.zeros(n, dtype=dtype)
    one[0] = 1
    x_last = np.zeros(n, dtype=dtype)
    x_last[n - 1] = 1
    for a, b in [(zero, top), (top, top), (one, top), (x_last, x_last), (top, one)]:
        np.testing.assert_array_equal(plan.polymul(a, b), negacyclic(a.tolist(), b.tolist(), q))
    # (q-1)·(q-1) everywhere: the largest products
    assert plan.polymul(top, top).max() < q


def test_62_bit_prime_at_the_limit(device, rng):
    n = 1 << 10
    top = polymul.params(n, 62, 1)[0]["q"]
    assert top.bit_length() == 62 and top % (2 * n) == 1
    plan = polymul.NttPlan(n, q=top, device=device)
    assert plan.q == top
    a = rand_words(rng, (2, n), [top], np.uint64)
    a[0, :8] = top - 1
    b = rand_words(rng, (2, n), [top], np.uint64)
    np.testing.assert_array_equal(plan.polymul(a, b), reference_rows(a, b, [top]))


@pytest.mark.parametrize("word,bits", [(32, 30), (64, 62)])
def test_round_trips(device, rng, word, bits):
    for n in (2, 16, 1024, 4096):
        plan = polymul.NttPlan(n, bits=bits, word=word, device=device)
        x = rand_words(rng, (2, n), [plan.q], plan.dtype)
        x_hat = plan.forward(x)
        assert x_hat.shape == x.shape and x_hat.dtype == x.dtype
        assert not np.array_equal(x_hat, x)
        np.testing.assert_array_equal(plan.inverse(x_hat), x)
        # the input is left alone
        assert plan.forward(x) is not x


def test_forward_is_evaluation_at_odd_powers_of_psi(device):
    # the transform's words are a(ψ^(2i+1)) in some order: compare the sets
    n = 16
    p = polymul.params(n, 30, 1)[0]
    q, psi = p["q"], p["psi"]
    assert pow(psi, n, q) == q - 1
    plan = polymul.NttPlan(n, q=q, word=32, device=device)
    a = np.arange(1, n + 1, dtype=np.uint32)
    evals = sorted(sum(int(c) * pow(psi, (2 * i + 1) * j, q) for j, c in enumerate(a)) % q for i in range(n))
    assert sorted(plan.forward(a).tolist()) == evals


def test_shapes(device, rng):
    n = 64
    plan = polymul.NttPlan(n, bits=62, device=device)
    for shape in [(n,), (1, n), (5, n), (2, 3, n)]:
        a = rand_words(rng, shape, [plan.q], np.uint64)
        b = rand_words(rng, shape, [plan.q], np.uint64)
        c = plan.polymul(a, b)
        assert c.shape == shape
        np.testing.assert_array_equal(c, reference_rows(a, b, [plan.q]))
        assert plan.forward(a).shape == shape


def test_non_contiguous_and_lists(device, rng):
    n = 32
    plan = polymul.NttPlan(n, bits=30, word=32, device=device)
    a = rand_words(rng, (4, 2 * n), [plan.q], np.uint32)[:, ::2]  # strided view
    b = rand_words(rng, (4, n), [plan.q], np.uint32)
    np.testing.assert_array_equal(plan.polymul(a, b), reference_rows(np.ascontiguousarray(a), b, [plan.q]))
    la, lb = a[0].tolist(), b[0].tolist()
    np.testing.assert_array_equal(plan.polymul(la, lb), negacyclic(la, lb, plan.q))


@pytest.mark.parametrize("word,bits", [(32, 30), (64, 62)])
def test_misaligned_arrays(device, rng, word, bits):
    """Contiguous arrays whose data is not aligned to their words (over a
    byte buffer at an odd offset, as deserialized frames can be) multiply
    as their aligned copies do."""
    n = 64
    plan = polymul.NttPlan(n, bits=bits, word=word, device=device)
    dtype = np.uint32 if word == 32 else np.uint64
    a = rand_words(rng, (3, n), [plan.q], dtype)
    b = rand_words(rng, (3, n), [plan.q], dtype)
    buf = bytearray(a.nbytes + b.nbytes + 1)
    ua = np.frombuffer(buf, dtype=dtype, count=a.size, offset=1).reshape(a.shape)
    ub = np.frombuffer(buf, dtype=dtype, count=b.size, offset=1 + a.nbytes).reshape(b.shape)
    ua[...], ub[...] = a, b
    assert not ua.flags.aligned and not ub.flags.aligned and ua.flags.c_contiguous
    np.testing.assert_array_equal(plan.polymul(ua, ub), reference_rows(a, b, [plan.q]))
    np.testing.assert_array_equal(plan.inverse(plan.forward(ua)), a)
    assert ua.tobytes() == a.tobytes()  # left unchanged


def test_uint32_input_on_a_64_bit_plan(device, rng):
    n = 64
    plan = polymul.NttPlan(n, bits=62, device=device)
    a = rand_words(rng, (n,), [1 << 32], np.uint32)
    c = plan.polymul(a, a)
    assert c.dtype == np.uint64
    np.testing.assert_array_equal(c, negacyclic(a.tolist(), a.tolist(), plan.q))


@pytest.mark.parametrize("word,bits", [(32, 30), (64, 62)])
def test_rns_words(device, rng, word, bits):
    n, k = 128, 3
    plan = polymul.RnsPlan(n, bits=bits, towers=k, word=word, device=device)
    assert plan.towers == k and len(set(plan.primes)) == k
    for shape in [(k, n), (k, 2, n), (2 * k, n)]:
        a = rand_words(rng, shape, plan.primes, plan.dtype)
        b = rand_words(rng, shape, plan.primes, plan.dtype)
        np.testing.assert_array_equal(plan.polymul(a, b), reference_rows(a, b, plan.primes))
        np.testing.assert_array_equal(plan.inverse(plan.forward(a)), a)


def test_rns_from_primes(device, rng):
    n = 256
    primes = [p["q"] for p in polymul.params(n, 50, 2)]
    plan = polymul.RnsPlan(n, primes=primes, device=device)
    assert plan.primes == primes
    assert plan.modulus == primes[0] * primes[1]
    a = rand_words(rng, (2, n), primes, np.uint64)
    np.testing.assert_array_equal(plan.polymul(a, a), reference_rows(a, a, primes))


@pytest.mark.parametrize("word,bits", [(32, 30), (64, 62)])
def test_dgt(device, rng, word, bits):
    n = 256
    plan = polymul.DgtPlan(n, bits=bits, word=word, device=device)
    p = plan.q
    assert (p + 1) % n == 0
    a = rand_words(rng, (2, n), [p], plan.dtype)
    b = rand_words(rng, (2, n), [p], plan.dtype)
    np.testing.assert_array_equal(plan.polymul(a, b), reference_rows(a, b, [p]))
    with pytest.raises(ValueError):
        plan.forward(a)


def test_multiplier(device, rng):
    n = 512
    m = polymul.Multiplier(n, bits=62, batch=4, device=device)
    assert m.decision
    a = rand_words(rng, (4, n), m.primes, np.uint64)
    np.testing.assert_array_equal(m.polymul(a, a), reference_rows(a, a, m.primes))
    m2 = polymul.auto(n, bits=30, towers=2, word=32, device=device)
    assert m2.towers == 2
    a = rand_words(rng, (2, n), m2.primes, np.uint32)
    np.testing.assert_array_equal(m2.polymul(a, a), reference_rows(a, a, m2.primes))


def test_backend_properties(device):
    plan = polymul.NttPlan(64, device=device)
    assert plan.on_gpu == (device == "gpu")
    assert plan.device == ("cpu" if device == "cpu" else "cuda:0")
    assert plan.device_id == (None if device == "cpu" else 0)
    assert plan.backend.startswith("GPU" if device == "gpu" else "CPU")
    assert "NttPlan" in repr(plan)
    assert polymul.backend().startswith("GPU" if polymul.gpu_available() else "CPU")


def test_params():
    ps = polymul.params(1024, 62, 3)
    assert len(ps) == 3
    for p in ps:
        q, psi = p["q"], p["psi"]
        assert q.bit_length() == 62 == p["bits"] and q % 2048 == 1
        assert pow(psi, 1024, q) == q - 1
    assert all(pow(2, p["q"] - 1, p["q"]) == 1 for p in ps)
    d = polymul.params(1024, 40, 2, dgt=True)
    assert all((p["q"] + 1) % 1024 == 0 and "psi" not in p for p in d)


@pytest.mark.parametrize("word,bits,towers", [(32, 30, 1), (32, 30, 3), (64, 62, 1), (64, 62, 2)])
def test_tensor_product(device, rng, word, bits, towers):
    """The ciphertext tensor product: for every ciphertext (c0, c1) of every
    tower, (a0·b0, a0·b1 + a1·b0, a1·b1) against the pure-Python
    reference, with edge words (0, q − 1) mixed in; two shapes of the
    same words; an odd number of polynomials per tower refused."""
    n = 64
    plan = (
        polymul.RnsPlan(n, bits=bits, towers=towers, word=word, device=device)
        if towers > 1
        else polymul.NttPlan(n, bits=bits, word=word, device=device)
    )
    dtype = np.uint32 if word == 32 else np.uint64
    m = 2
    a = rand_words(rng, (towers, 2 * m, n), plan.primes, dtype)
    b = rand_words(rng, (towers, 2 * m, n), plan.primes, dtype)
    for t, q in enumerate(plan.primes):
        a[t, 0, :5] = q - 1
        b[t, 1, -5:] = q - 1
        a[t, 2, :3] = 0
    c = plan.tensor(a, b)
    assert c.shape == (towers, 3 * m, n) and c.dtype == dtype
    for t, q in enumerate(plan.primes):
        for j in range(m):
            a0, a1, b0, b1 = (x.tolist() for x in (a[t, 2 * j], a[t, 2 * j + 1], b[t, 2 * j], b[t, 2 * j + 1]))
            cross = [(u + v) % q for u, v in zip(negacyclic(a0, b1, q), negacyclic(a1, b0, q))]
            assert c[t, 3 * j].tolist() == negacyclic(a0, b0, q)
            assert c[t, 3 * j + 1].tolist() == cross
            assert c[t, 3 * j + 2].tolist() == negacyclic(a1, b1, q)
    # (k, m, 2, N): the same words, the same products.
    c2 = plan.tensor(a.reshape(towers, m, 2, n), b.reshape(towers, m, 2, n))
    assert c2.shape == (towers, m, 3, n)
    np.testing.assert_array_equal(c2.reshape(c.shape), c)
    with pytest.raises(ValueError, match="pairs"):
        plan.tensor(a[:, :3], b[:, :3])
