"""dtype= chooses the words (word= is its alias): the forms it takes, the
default, the ValueError when the two disagree or the type is not a word
type, and bit-exact products of every plan class made either way."""

import numpy as np
import pytest
from conftest import rand_words, reference_rows

import polymul

U32 = [np.uint32, "uint32", "u4", np.dtype(np.uint32), np.dtype("<u4")]
U64 = [np.uint64, "uint64", "u8", np.dtype(np.uint64), np.dtype("<u8")]
BAD = [np.int32, np.int64, np.uint16, np.uint8, np.float64, "float32", "int", ">u8", ">u4", "nonsense", 32, 64, object, int]


def _makers(device):
    return [
        lambda **kw: polymul.NttPlan(64, bits=20, device=device, **kw),
        lambda **kw: polymul.RnsPlan(64, bits=20, towers=2, device=device, **kw),
        lambda **kw: polymul.DgtPlan(64, bits=20, device=device, **kw),
        lambda **kw: polymul.Multiplier(64, bits=20, device=device, **kw),
        lambda **kw: polymul.auto(64, bits=20, device=device, **kw),
    ]


@pytest.mark.parametrize("dt,word", [(d, 32) for d in U32] + [(d, 64) for d in U64], ids=repr)
def test_dtype_forms(device, dt, word):
    for make in _makers(device):
        plan = make(dtype=dt)
        assert plan.word == word
        assert plan.dtype == (np.uint32 if word == 32 else np.uint64)
        # word= alone, and both when they agree, make the same plan
        assert make(word=word).dtype == plan.dtype
        assert make(word=word, dtype=dt).dtype == plan.dtype
    assert polymul.decide(64, bits=20, dtype=dt, device=device)["decision"]


def test_default_is_uint64(device):
    for make in _makers(device):
        plan = make()
        assert plan.word == 64 and plan.dtype == np.uint64


@pytest.mark.parametrize("dt", BAD, ids=repr)
def test_bad_dtypes(dt):
    for make in _makers("cpu"):
        with pytest.raises(ValueError, match="dtype"):
            make(dtype=dt)
    with pytest.raises(ValueError, match="dtype"):
        polymul.decide(64, dtype=dt, device="cpu")


def test_word_and_dtype_disagree():
    for make in _makers("cpu"):
        for word, dt in [(32, np.uint64), (64, "uint32"), (64, np.dtype(np.uint32))]:
            with pytest.raises(ValueError, match="disagree"):
                make(word=word, dtype=dt)
        with pytest.raises(ValueError, match="word"):
            make(word=16)
        with pytest.raises(ValueError, match="word"):
            make(word=16, dtype=None)
        # a bad word is reported even with a good dtype
        with pytest.raises(ValueError):
            make(word=16, dtype=np.uint32)
    with pytest.raises(ValueError, match="disagree"):
        polymul.decide(64, word=32, dtype=np.uint64, device="cpu")


@pytest.mark.parametrize("dt", [np.uint32, np.uint64], ids=repr)
def test_products_by_dtype(device, rng, dt):
    n = 512
    bits = 30 if dt == np.uint32 else 62
    plans = [
        polymul.NttPlan(n, bits=bits, dtype=dt, device=device),
        polymul.RnsPlan(n, bits=bits - 4, towers=3, dtype=dt, device=device),
        polymul.Multiplier(n, bits=bits, batch=2, dtype=dt, device=device),
        polymul.DgtPlan(n, bits=bits - 2, dtype=dt, device=device),
    ]
    for plan in plans:
        k = plan.towers
        a = rand_words(rng, (k, 2, n), plan.primes, dt)
        b = rand_words(rng, (k, 2, n), plan.primes, dt)
        c = plan.polymul(a, b)
        assert c.dtype == dt and c.shape == a.shape
        np.testing.assert_array_equal(c, reference_rows(a, b, plan.primes))
