//! Algorithm 4 of the SEED 2022 paper: a Dhem–Quisquater Barrett reduction
//! (α = N + 1, β = −2) with `μ = ⌊2^(2m+1) / q⌋` that needs at most one
//! correction and accepts moduli up to `β − 2` bits (62 on `u64`, 30 on
//! `u32`): no wider than classical Barrett, one correction fewer.

use super::{ModMul, ModulusError, check_modulus, csub};
use crate::Word;

/// Precomputed constants of Algorithm 4 for one modulus `q`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Barrett4<W> {
    /// The modulus.
    pub q: W,
    /// `μ = ⌊2^(2m+1) / q⌋`, on `u64` pre-scaled by `2^max(0, β − m − 3)` so that the
    /// quotient estimate is one high-half product (see
    /// [`Barrett4::estimate_wide`]); fits in one word because `m ≤ β − 2`.
    pub mu: W,
    /// `m = len(q)`, the bit length of `q`.
    pub m: u32,
}

impl<W: Word> Barrett4<W> {
    /// `x mod q` before the correction for `x = (hi:lo) < 2^(2m)`: in `[0, 2q)`.
    #[inline(always)]
    pub fn estimate_wide(&self, lo: W, hi: W) -> W {
        // c = x >> (m − 2) fits in a word.
        let quot = if W::CHEAP_WIDE_SHIFT {
            // u32: shifts of the 64-bit double word are cheap; μ is stored as is.
            let c = W::shr_wide(lo, hi, self.m - 2);
            let (plo, phi) = c.mul_wide(self.mu);
            W::shr_wide(plo, phi, self.m + 3)
        } else {
            // u64: quot = (c · μ) >> (m + 3) = hi(c · μ·2^k) >> r with μ stored
            // pre-scaled by 2^k, k = max(0, β − m − 3), r = max(0, m + 3 − β):
            // the same number without a variable 128-bit shift.
            let c = W::funnel_shr(lo, hi, self.m - 2);
            let (_, phi) = c.mul_wide(self.mu);
            phi >> ((self.m + 3).saturating_sub(W::BITS) as usize)
        };
        // The true remainder is < 2q < 2^β, so the low word is enough.
        lo.wrapping_sub(&quot.wrapping_mul(&self.q))
    }

    /// `x mod q` for a double word `x = (hi:lo) < 2^(2m)`.
    #[inline(always)]
    pub fn reduce_wide(&self, lo: W, hi: W) -> W {
        csub::<W, false>(self.estimate_wide(lo, hi), self.q)
    }
}

impl<W: Word> ModMul<W> for Barrett4<W> {
    const NAME: &'static str = "barrett4";
    const MAX_CORRECTIONS: u32 = 1;
    const MAX_BITS: u32 = W::BITS - 2;
    const NEEDS_AUX: bool = false;
    type Op = W;

    /// Precomputes `μ` for an odd modulus `5 <= q < 2^(β−2)`.
    fn new(q: W) -> Result<Self, ModulusError> {
        let m = check_modulus(q, Self::MAX_BITS)?;
        // 2m + 1 <= 2 * 62 + 1 = 125 bits: exact in u128.
        let mu = (1u128 << (2 * m + 1)) / q.as_u64() as u128;
        // Pre-scaled so that quot = hi(c · mu) >> r (see estimate_wide).
        let mu = if W::CHEAP_WIDE_SHIFT { mu } else { mu << W::BITS.saturating_sub(m + 3) };
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
