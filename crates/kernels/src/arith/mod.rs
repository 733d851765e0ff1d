//! Modular arithmetic on [`Word`](crate::Word)s.
//!
//! * [`add`]: modular addition, subtraction and the division-free `x/2 mod q`
//!   (Algorithm 1 of the SEED 2022 paper and the ½-scaling of Section III-A).
//! * [`barrett`]: the paper's Algorithm 4, the reduction every kernel uses.
//!
//! Precomputation (`new`) validates the modulus and returns a typed
//! [`ModulusError`]; the per-element functions assume validated inputs
//! (`a, b < q`) and never branch on anything but the final correction.

pub mod add;
pub mod barrett;

pub use add::{add_mod, half_mod, sub_mod};
pub use barrett::Barrett4;

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
