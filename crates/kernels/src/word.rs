//! Machine words the kernels compute on: `u32` and `u64`.

use num_traits::{PrimInt, Unsigned, WrappingAdd, WrappingMul, WrappingSub};

/// An unsigned machine word (`u32` or `u64`) with a double-width product.
///
/// Every kernel is generic over `Word`, so the 32-bit and 64-bit variants are
/// one source. The trait is sealed: only `u32` and `u64` implement it.
pub trait Word:
    PrimInt + Unsigned + WrappingAdd + WrappingSub + WrappingMul + Default + sealed::Sealed + 'static
{
    /// Width in bits (β in the SEED 2022 paper).
    const BITS: u32;
    /// Suffix of the kernel entry points for this word (`"u32"`, `"u64"`).
    const NAME: &'static str;
    /// Whether a variable shift of the double word is cheap on a GPU (a
    /// native 64-bit shift for `u32`; for `u64` a 128-bit shift costs
    /// shifts plus selects, so Barrett variants pre-scale μ instead).
    const CHEAP_WIDE_SHIFT: bool;

    /// Full product `self * rhs` as `(low word, high word)`.
    fn mul_wide(self, rhs: Self) -> (Self, Self);

    /// `(hi:lo) >> s` truncated to one word, for `0 <= s < 2 * BITS`.
    fn shr_wide(lo: Self, hi: Self, s: u32) -> Self;

    /// `(self · rhs) mod q` by the built-in `%` on the double-width product
    /// (`0` for `q = 0`, so no panic path exists).
    fn mul_rem(self, rhs: Self, q: Self) -> Self;

    /// `(hi:lo) >> s` truncated to one word, for `0 < s < BITS` (a funnel
    /// shift: two shifts and an or, no select).
    fn funnel_shr(lo: Self, hi: Self, s: u32) -> Self;

    /// Conversion from `u64`, truncating.
    fn from_u64(v: u64) -> Self;

    /// Conversion to `u64`.
    fn as_u64(self) -> u64;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

macro_rules! impl_word {
    ($t:ty, $wide:ty, $name:literal, $cheap:literal) => {
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            const NAME: &'static str = $name;
            const CHEAP_WIDE_SHIFT: bool = $cheap;

            #[inline(always)]
            fn mul_wide(self, rhs: Self) -> (Self, Self) {
                let p = (self as $wide) * (rhs as $wide);
                (p as $t, (p >> <$t>::BITS) as $t)
            }

            #[inline(always)]
            fn shr_wide(lo: Self, hi: Self, s: u32) -> Self {
                let w = ((hi as $wide) << <$t>::BITS) | (lo as $wide);
                (w >> s) as $t
            }

            #[inline(always)]
            fn funnel_shr(lo: Self, hi: Self, s: u32) -> Self {
                (lo >> s) | (hi << (<$t>::BITS - s))
            }

            #[inline(always)]
            fn mul_rem(self, rhs: Self, q: Self) -> Self {
                ((self as $wide) * (rhs as $wide)).checked_rem(q as $wide).unwrap_or(0) as $t
            }

            #[inline(always)]
            fn from_u64(v: u64) -> Self {
                v as $t
            }

            #[inline(always)]
            fn as_u64(self) -> u64 {
                self as u64
            }
        }
    };
}

impl_word!(u32, u64, "u32", true);
impl_word!(u64, u128, "u64", false);
