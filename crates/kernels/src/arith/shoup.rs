//! Shoup's multiplication by a precomputed operand: with
//! `w' = ⌊w · 2^β / q⌋`, the quotient estimate `hi(x · w')` is off by at
//! most one, so `x·w − hi(x·w')·q` (low words) lies in `[0, 2q)`.
//! Costs one extra word per multiplicand (a second twiddle table).

use super::{ModMul, ModulusError, check_modulus};
use crate::Word;

/// Shoup constants for one modulus (the per-operand `w'` lives with `w`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shoup<W> {
    q: W,
}

impl<W: Word> ModMul<W> for Shoup<W> {
    const NAME: &'static str = "shoup";
    const MAX_CORRECTIONS: u32 = 1;
    const MAX_BITS: u32 = W::BITS - 1;
    const NEEDS_AUX: bool = true;
    type Op = (W, W);

    fn new(q: W) -> Result<Self, ModulusError> {
        check_modulus(q, Self::MAX_BITS).map(|_| Self { q })
    }
    #[inline(always)]
    fn parts(&self) -> (W, W, u32) {
        (self.q, W::zero(), 0)
    }
    #[inline(always)]
    fn from_parts(q: W, _: W, _: u32) -> Self {
        Self { q }
    }
    #[inline(always)]
    fn q(&self) -> W {
        self.q
    }
    fn prepare(&self, w: W) -> (W, W) {
        let wp = ((w.as_u64() as u128) << W::BITS) / self.q.as_u64() as u128;
        (w, W::from_u64(wp as u64))
    }
    #[inline(always)]
    fn op(main: W, aux: W) -> (W, W) {
        (main, aux)
    }
    #[inline(always)]
    fn estimate(&self, x: W, (w, w_shoup): (W, W)) -> W {
        let (_, quot) = x.mul_wide(w_shoup);
        x.wrapping_mul(&w).wrapping_sub(&quot.wrapping_mul(&self.q))
    }
}
