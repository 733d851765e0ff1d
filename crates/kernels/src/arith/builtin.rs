//! The built-in remainder: `(x · w) % q` on the double-width product. The
//! reference every other variant is checked against, and the slow baseline
//! (a 128-by-64-bit division is a software routine on a GPU).

use super::{ModMul, ModulusError, check_modulus};
use crate::Word;

/// `x · w mod q` by the `%` operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinRem<W> {
    q: W,
}

impl<W: Word> ModMul<W> for BuiltinRem<W> {
    const NAME: &'static str = "rem";
    const MAX_CORRECTIONS: u32 = 0;
    const MAX_BITS: u32 = W::BITS - 1;
    const NEEDS_AUX: bool = false;
    type Op = W;

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
    plain_operand!();
    #[inline(always)]
    fn estimate(&self, x: W, w: W) -> W {
        x.mul_rem(w, self.q)
    }
}
