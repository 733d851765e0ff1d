//! Montgomery multiplication with `R = 2^β`: the multiplicand is stored in
//! Montgomery form `w̃ = w·R mod q`, so `REDC(x · w̃) = x · w mod q`.
//!
//! `REDC(T)`, `T = (hi:lo) < q·R`: `m = lo · q⁻¹ mod R` makes `m·q ≡ T`
//! in the low word, so `(T − m·q) / R = hi − hi(m·q)` exactly, a value in
//! `(−q, q)`; adding `q` gives `[0, 2q)` and one correction finishes.
//! Needs only odd `q` with `2q < 2^β`.

use super::{ModMul, ModulusError, check_modulus};
use crate::Word;

/// Montgomery constants for one modulus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Montgomery<W> {
    q: W,
    /// `q⁻¹ mod 2^β`.
    q_inv: W,
}

impl<W: Word> Montgomery<W> {
    /// `q⁻¹ mod 2^β` by Newton iteration (each step doubles the correct bits).
    fn inverse_mod_word(q: W) -> W {
        let two = W::from_u64(2);
        let mut inv = q; // correct to 3 bits for odd q
        for _ in 0..6 {
            inv = inv.wrapping_mul(&two.wrapping_sub(&q.wrapping_mul(&inv)));
        }
        inv
    }

    /// `w · 2^β mod q` (host side).
    pub fn to_montgomery(&self, w: W) -> W {
        let r = ((w.as_u64() as u128) << W::BITS) % self.q.as_u64() as u128;
        W::from_u64(r as u64)
    }
}

impl<W: Word> ModMul<W> for Montgomery<W> {
    const NAME: &'static str = "montgomery";
    const MAX_CORRECTIONS: u32 = 1;
    const MAX_BITS: u32 = W::BITS - 1;
    const NEEDS_AUX: bool = false;
    type Op = W;

    fn new(q: W) -> Result<Self, ModulusError> {
        check_modulus(q, Self::MAX_BITS)?;
        Ok(Self { q, q_inv: Self::inverse_mod_word(q) })
    }
    #[inline(always)]
    fn parts(&self) -> (W, W, u32) {
        (self.q, self.q_inv, 0)
    }
    #[inline(always)]
    fn from_parts(q: W, q_inv: W, _: u32) -> Self {
        Self { q, q_inv }
    }
    #[inline(always)]
    fn q(&self) -> W {
        self.q
    }
    fn prepare(&self, w: W) -> (W, W) {
        (self.to_montgomery(w), W::zero())
    }
    #[inline(always)]
    fn op(main: W, _: W) -> W {
        main
    }
    #[inline(always)]
    fn estimate(&self, x: W, w_mont: W) -> W {
        let (lo, hi) = x.mul_wide(w_mont);
        let m = lo.wrapping_mul(&self.q_inv);
        let (_, mq_hi) = m.mul_wide(self.q);
        hi.wrapping_sub(&mq_hi).wrapping_add(&self.q)
    }
}
