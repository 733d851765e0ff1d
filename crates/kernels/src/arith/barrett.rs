//! Algorithm 4 of the SEED 2022 paper: a Dhem–Quisquater Barrett reduction
//! with `μ = ⌊2^(2m+1) / q⌋` that needs at most one correction and accepts
//! moduli up to `β − 2` bits (62 on `u64`, 30 on `u32`).

use super::ModulusError;
use crate::Word;

/// Precomputed constants of Algorithm 4 for one modulus `q`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Barrett4<W> {
    /// The modulus.
    pub q: W,
    /// `⌊2^(2m+1) / q⌋`, which fits in one word because `m ≤ β − 2`.
    pub mu: W,
    /// `m = len(q)`, the bit length of `q`.
    pub m: u32,
}

impl<W: Word> Barrett4<W> {
    /// The widest modulus accepted on this word: `β − 2` bits.
    pub const MAX_BITS: u32 = W::BITS - 2;

    /// Precomputes `μ` for an odd modulus `5 <= q < 2^(β−2)`.
    pub fn new(q: W) -> Result<Self, ModulusError> {
        let q64 = q.as_u64();
        if q64 & 1 == 0 {
            return Err(ModulusError::Even);
        }
        if q64 < 5 {
            return Err(ModulusError::TooSmall { min: 5 });
        }
        let m = 64 - q64.leading_zeros();
        if m > Self::MAX_BITS {
            return Err(ModulusError::TooWide {
                bits: m,
                max_bits: Self::MAX_BITS,
            });
        }
        // 2m + 1 <= 2 * 62 + 1 = 125 bits: exact in u128.
        let mu = (1u128 << (2 * m + 1)) / q64 as u128;
        Ok(Self {
            q,
            mu: W::from_u64(mu as u64),
            m,
        })
    }

    /// Rebuilds the constants a host validated with [`Barrett4::new`].
    ///
    /// Used inside kernels, which receive `q`, `μ` and `m` as launch
    /// parameters; it performs no check.
    #[inline(always)]
    pub fn from_parts(q: W, mu: W, m: u32) -> Self {
        Self { q, mu, m }
    }

    /// `x mod q` for a double word `x = (hi:lo) < 2^(2m)`.
    #[inline(always)]
    pub fn reduce_wide(&self, lo: W, hi: W) -> W {
        // c = x >> (m − 2) < 2^(m+2) fits in a word.
        let c = W::shr_wide(lo, hi, self.m - 2);
        let (plo, phi) = c.mul_wide(self.mu);
        // quot = (c · μ) >> (m + 3) < 2^(m+1).
        let quot = W::shr_wide(plo, phi, self.m + 3);
        // The true remainder is < 2q < 2^β, so the low word is enough.
        let r = lo.wrapping_sub(&quot.wrapping_mul(&self.q));
        if r >= self.q { r - self.q } else { r }
    }

    /// `a · b mod q` for `a, b < q`.
    #[inline(always)]
    pub fn mul(&self, a: W, b: W) -> W {
        let (lo, hi) = a.mul_wide(b);
        self.reduce_wide(lo, hi)
    }
}
