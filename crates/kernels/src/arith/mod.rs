//! Modular arithmetic on [`Word`]s: Section II of the SEED 2022
//! paper and the two multiplication baselines other GPU NTTs use.
//!
//! | type | algorithm | μ / precomputation | corrections | widest q on β-bit words |
//! |---|---|---|---|---|
//! | [`BuiltinRem`] | `x % q` (double-word remainder) | — | 0 | β − 1 |
//! | [`BarrettClassic`] | Algorithm 2, classical Barrett | `⌊2^(2m) / q⌋` | ≤ 2 | β − 2 |
//! | [`DhemQuisquater`] | Algorithm 3 | `⌊2^(2m+3) / q⌋` | ≤ 1 | β − 4 |
//! | [`Barrett4`] | Algorithm 4 (the paper's) | `⌊2^(2m+1) / q⌋` | ≤ 1 | β − 2 |
//! | [`Montgomery`] | Montgomery product, operand in Montgomery form | `q⁻¹ mod 2^β`, `w·2^β mod q` | ≤ 1 | β − 1 |
//! | [`Shoup`] | Shoup's precomputed-operand product | `⌊w·2^β / q⌋` per operand | ≤ 1 | β − 1 |
//!
//! All six implement [`ModMul`]: `x · w mod q` where `w` is a multiplicand
//! prepared once (the twiddle factor of an NTT). The Barrett variants and
//! `%` also reduce arbitrary double words ([`Barrett4::reduce_wide`] …).
//!
//! Every `new` validates the modulus and returns a typed [`ModulusError`];
//! the per-element functions assume validated inputs (`x, w < q`).
//! [`add`] holds modular addition, subtraction and the division-free `x/2`;
//! [`harvey`] the lazy Shoup butterflies of the `Lazy` NTT kernels.

/// `prepare` and `op` of a reduction whose operand is the plain word `w`.
macro_rules! plain_operand {
    () => {
        fn prepare(&self, w: W) -> (W, W) {
            (w, W::zero())
        }
        #[inline(always)]
        fn op(main: W, _: W) -> W {
            main
        }
    };
}

pub mod add;
pub mod barrett;
pub mod barrett4;
pub mod builtin;
pub mod dhem_quisquater;
pub mod harvey;
pub mod montgomery;
pub mod shoup;

pub use add::{add_mod, half_mod, sub_mod};
pub use barrett::BarrettClassic;
pub use barrett4::Barrett4;
pub use builtin::BuiltinRem;
pub use dhem_quisquater::DhemQuisquater;
pub use montgomery::Montgomery;
pub use shoup::Shoup;

use crate::Word;

/// Why a modulus was refused by a reduction's precomputation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModulusError {
    /// `q` is even (includes zero): NTT moduli are odd primes.
    Even,
    /// `q` is smaller than the smallest modulus the reduction supports.
    TooSmall {
        /// The smallest accepted modulus.
        min: u64,
    },
    /// `len(q)` exceeds what the reduction allows on this word.
    TooWide {
        /// Bit length of the modulus given.
        bits: u32,
        /// Largest accepted bit length for this word and reduction.
        max_bits: u32,
    },
}

/// Checks `q` is odd, `>= 5` and at most `max_bits` long; returns `len(q)`.
pub fn check_modulus<W: Word>(q: W, max_bits: u32) -> Result<u32, ModulusError> {
    let q64 = q.as_u64();
    if q64 & 1 == 0 {
        return Err(ModulusError::Even);
    }
    if q64 < 5 {
        return Err(ModulusError::TooSmall { min: 5 });
    }
    let m = 64 - q64.leading_zeros();
    if m > max_bits {
        return Err(ModulusError::TooWide { bits: m, max_bits });
    }
    Ok(m)
}

/// One conditional subtraction `r ≥ q ? r − q : r`.
///
/// `SELECT = false` is the paper's `if`; `SELECT = true` computes a mask and
/// subtracts `q & mask`, so no branch can be formed (LLVM usually turns the
/// `if` into `min`/`selp` on its own; `polymul-bench` compares both).
#[inline(always)]
pub fn csub<W: Word, const SELECT: bool>(r: W, q: W) -> W {
    if SELECT {
        let mask = W::zero().wrapping_sub(&W::from_u64((r >= q) as u64));
        r - (q & mask)
    } else if r >= q {
        r - q
    } else {
        r
    }
}

/// Modular multiplication by a prepared multiplicand: the interface every
/// reduction variant offers to the kernels.
///
/// A multiplicand `w < q` is prepared once on the host into two words
/// (`main`, `aux`) with [`ModMul::prepare`]; tables of them travel to the
/// device, and [`ModMul::op`] rebuilds the operand inside a kernel.
pub trait ModMul<W: Word>: Copy {
    /// Short name, used in kernel symbols (`ntt_fwd_radix2_stage_<NAME>_u64`).
    const NAME: &'static str;
    /// Most conditional subtractions [`ModMul::estimate`] can need.
    const MAX_CORRECTIONS: u32;
    /// Widest modulus, in bits, on words `W`.
    const MAX_BITS: u32;
    /// Whether the `aux` word of a prepared operand is used (Shoup).
    const NEEDS_AUX: bool;
    /// A prepared multiplicand.
    type Op: Copy;

    /// Precomputes the constants for `q` (host side; may divide).
    fn new(q: W) -> Result<Self, ModulusError>;
    /// The constants as `(q, k, m)` launch parameters.
    fn parts(&self) -> (W, W, u32);
    /// Rebuilds the constants from [`ModMul::parts`] inside a kernel (no checks).
    fn from_parts(q: W, k: W, m: u32) -> Self;
    /// The modulus.
    fn q(&self) -> W;
    /// Prepares `w < q` as `(main, aux)` words (host side; may divide).
    fn prepare(&self, w: W) -> (W, W);
    /// The operand from its prepared words.
    fn op(main: W, aux: W) -> Self::Op;
    /// A value `≡ x · w (mod q)` in `[0, (MAX_CORRECTIONS + 1) · q)`.
    fn estimate(&self, x: W, w: Self::Op) -> W;

    /// `x · w mod q`, with the corrections as `if`s.
    #[inline(always)]
    fn mul(&self, x: W, w: Self::Op) -> W {
        self.mul_with::<false>(x, w)
    }

    /// `x · w mod q`, with the correction form chosen by `SELECT` (see [`csub`]).
    #[inline(always)]
    fn mul_with<const SELECT: bool>(&self, x: W, w: Self::Op) -> W {
        let q = self.q();
        let mut r = csub::<W, SELECT>(self.estimate(x, w), q);
        if Self::MAX_CORRECTIONS > 1 {
            r = csub::<W, SELECT>(r, q);
        }
        r
    }
}
