//! Algorithm 2 of the SEED 2022 paper: classical Barrett reduction with
//! `μ = ⌊2^(2m) / q⌋`; up to two corrections; `len(q) ≤ β − 2`.

use super::{ModMul, ModulusError, check_modulus};
use crate::Word;

/// Classical Barrett constants for one modulus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarrettClassic<W> {
    q: W,
    mu: W,
    m: u32,
}

impl<W: Word> BarrettClassic<W> {
    /// `x mod q` before corrections for `x = (hi:lo) < 2^(2m)`: in `[0, 3q)`.
    #[inline(always)]
    pub fn estimate_wide(&self, lo: W, hi: W) -> W {
        let c = W::funnel_shr(lo, hi, self.m - 1); // < 2^(m+1)
        // quot = (c · μ) >> (m + 1) = hi(c · μ·2^(β−m−1)): μ is stored pre-scaled.
        let (_, quot) = c.mul_wide(self.mu);
        lo.wrapping_sub(&quot.wrapping_mul(&self.q))
    }
}

impl<W: Word> ModMul<W> for BarrettClassic<W> {
    const NAME: &'static str = "barrett2";
    const MAX_CORRECTIONS: u32 = 2;
    const MAX_BITS: u32 = W::BITS - 2;
    const NEEDS_AUX: bool = false;
    type Op = W;

    fn new(q: W) -> Result<Self, ModulusError> {
        let m = check_modulus(q, Self::MAX_BITS)?;
        let mu = (1u128 << (2 * m)) / q.as_u64() as u128;
        // μ < 2^(m+1) and m <= β − 2, so μ·2^(β−m−1) < 2^β fits.
        let mu = mu << (W::BITS - m - 1);
        Ok(Self { q, mu: W::from_u64(mu as u64), m })
    }
    #[inline(always)]
    fn parts(&self) -> (W, W, u32) {
        (self.q, self.mu, self.m)
    }
    #[inline(always)]
    fn from_parts(q: W, mu: W, m: u32) -> Self {
        Self { q, mu, m }
    }
    #[inline(always)]
    fn q(&self) -> W {
        self.q
    }
    plain_operand!();
    #[inline(always)]
    fn estimate(&self, x: W, w: W) -> W {
        let (lo, hi) = x.mul_wide(w);
        self.estimate_wide(lo, hi)
    }
}
