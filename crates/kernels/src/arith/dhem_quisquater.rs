//! Algorithm 3 of the SEED 2022 paper: Dhem–Quisquater's modified Barrett
//! reduction (α = N + 3, β = −2), `μ = ⌊2^(2m+3) / q⌋`, at most one
//! correction, `len(q) ≤ β − 4` so that μ fits in a word.

use super::{ModMul, ModulusError, check_modulus};
use crate::Word;

/// Dhem–Quisquater constants for one modulus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DhemQuisquater<W> {
    q: W,
    mu: W,
    m: u32,
}

impl<W: Word> DhemQuisquater<W> {
    /// `x mod q` before the correction for `x = (hi:lo) < 2^(2m)`: in `[0, 2q)`.
    #[inline(always)]
    pub fn estimate_wide(&self, lo: W, hi: W) -> W {
        // c = x >> (m − 2) fits in a word.
        let quot = if W::CHEAP_WIDE_SHIFT {
            // u32: shifts of the 64-bit double word are cheap; μ is stored as is.
            let c = W::shr_wide(lo, hi, self.m - 2);
            let (plo, phi) = c.mul_wide(self.mu);
            W::shr_wide(plo, phi, self.m + 5)
        } else {
            // u64: quot = (c · μ) >> (m + 5) = hi(c · μ·2^k) >> r with μ stored
            // pre-scaled by 2^k, k = max(0, β − m − 5), r = max(0, m + 5 − β):
            // the same number without a variable 128-bit shift.
            let c = W::funnel_shr(lo, hi, self.m - 2);
            let (_, phi) = c.mul_wide(self.mu);
            phi >> ((self.m + 5).saturating_sub(W::BITS) as usize)
        };
        // The true remainder is < 2q < 2^β, so the low word is enough.
        lo.wrapping_sub(&quot.wrapping_mul(&self.q))
    }
}

impl<W: Word> ModMul<W> for DhemQuisquater<W> {
    const NAME: &'static str = "dq3";
    const MAX_CORRECTIONS: u32 = 1;
    const MAX_BITS: u32 = W::BITS - 4;
    const NEEDS_AUX: bool = false;
    type Op = W;

    fn new(q: W) -> Result<Self, ModulusError> {
        let m = check_modulus(q, Self::MAX_BITS)?;
        let mu = (1u128 << (2 * m + 3)) / q.as_u64() as u128;
        // μ < 2^(m+4); pre-scaled by 2^(β−m−5) when that is >= 1.
        let mu = if W::CHEAP_WIDE_SHIFT { mu } else { mu << W::BITS.saturating_sub(m + 5) };
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
