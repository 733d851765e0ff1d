//! Modular addition, subtraction and halving (no products, no divisions).

use crate::Word;

/// `(a + b) mod q` for `a, b < q` and `len(q) <= BITS - 1` (Algorithm 1).
#[inline(always)]
pub fn add_mod<W: Word>(a: W, b: W, q: W) -> W {
    let s = a + b;
    if s >= q { s - q } else { s }
}

/// `(a - b) mod q` for `a, b < q`.
#[inline(always)]
pub fn sub_mod<W: Word>(a: W, b: W, q: W) -> W {
    let d = a.wrapping_sub(&b);
    if a < b { d.wrapping_add(&q) } else { d }
}

/// `x / 2 mod q` for odd `q` and `x < q`, without division or branch:
/// `(x >> 1) + (x & 1) * ((q + 1) >> 1)`.
#[inline(always)]
pub fn half_mod<W: Word>(x: W, q: W) -> W {
    let one = W::one();
    (x >> 1) + (x & one) * ((q + one) >> 1)
}
