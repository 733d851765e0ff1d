//! Choosing the modular reduction the NTT kernels use: every variant of
//! `polymul_kernels::arith` has its own compiled kernels; [`Reduction`]
//! names one at run time, and plans prepare their twiddle tables for it
//! (Montgomery form, Shoup's companion table: [`Multiplicands`]). Pure host
//! code; the device tables are the plans' (`plan/twiddles.rs`), the
//! microbenchmark is `crate::microbench`.

use crate::{Coeff, Error, Result};
use polymul_kernels::arith::{
    Barrett4, BarrettClassic, BuiltinRem, DhemQuisquater, ModMul, Montgomery, Shoup,
};

/// A modular-reduction variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Reduction {
    /// The built-in `%` on the double-width product.
    Builtin,
    /// Classical Barrett, Algorithm 2 (up to two corrections).
    BarrettClassic,
    /// Dhem–Quisquater, Algorithm 3 (one correction; `q` up to β − 4 bits).
    DhemQuisquater,
    /// The SEED 2022 paper's Algorithm 4 (one correction; `q` up to β − 2 bits):
    /// the fastest reduction of a general product, used by the pointwise kernel.
    Barrett4,
    /// Montgomery multiplication (twiddles stored in Montgomery form).
    Montgomery,
    /// Shoup multiplication (a second, precomputed twiddle table): the
    /// fastest multiplication by a fixed twiddle measured on an H200
    /// (docs/results), so the default for the NTT butterflies.
    #[default]
    Shoup,
}

impl Reduction {
    /// All variants, in the order of the paper's survey then the baselines.
    pub const ALL: [Reduction; 6] = [
        Reduction::Builtin,
        Reduction::BarrettClassic,
        Reduction::DhemQuisquater,
        Reduction::Barrett4,
        Reduction::Montgomery,
        Reduction::Shoup,
    ];

    /// The kernel-name part (`ModMul::NAME`), e.g. `"barrett4"`.
    pub fn name(self) -> &'static str {
        self.visit_u64(NameOf)
    }

    /// A label for tables and plots.
    pub fn label(self) -> &'static str {
        match self {
            Reduction::Builtin => "builtin %",
            Reduction::BarrettClassic => "Barrett (Alg. 2)",
            Reduction::DhemQuisquater => "Dhem–Quisquater (Alg. 3)",
            Reduction::Barrett4 => "SEED Alg. 4",
            Reduction::Montgomery => "Montgomery",
            Reduction::Shoup => "Shoup",
        }
    }

    /// The kernels' identifier of this variant (its kernels' symbols and
    /// argument blocks: `polymul_kernels::names`).
    pub(crate) fn kind(self) -> polymul_kernels::names::ReductionKind {
        use polymul_kernels::names::ReductionKind as K;
        match self {
            Reduction::Builtin => K::Rem,
            Reduction::BarrettClassic => K::Barrett2,
            Reduction::DhemQuisquater => K::Dq3,
            Reduction::Barrett4 => K::Barrett4,
            Reduction::Montgomery => K::Montgomery,
            Reduction::Shoup => K::Shoup,
        }
    }

    /// Parses a [`Reduction::name`].
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == s)
    }

    /// Widest modulus in bits this variant accepts on `word_bits`-bit words:
    /// 0 for a word size other than 32 and 64 (no modulus fits a word
    /// polymul does not have).
    pub fn max_bits(self, word_bits: u32) -> u32 {
        match word_bits {
            32 => self.visit::<u32, _>(MaxBits),
            64 => self.visit::<u64, _>(MaxBits),
            _ => 0,
        }
    }

    /// Most conditional subtractions the variant can need.
    pub fn max_corrections(self) -> u32 {
        self.visit_u64(MaxCorrections)
    }

    fn visit_u64<V: Visitor<u64>>(self, v: V) -> V::Out {
        self.visit::<u64, V>(v)
    }

    /// Calls `v.visit::<R>()` with the kernel type `R` of this variant on
    /// words `W` (static dispatch from a run-time choice).
    pub(crate) fn visit<W: Coeff, V: Visitor<W>>(self, v: V) -> V::Out {
        match self {
            Reduction::Builtin => v.visit::<BuiltinRem<W>>(),
            Reduction::BarrettClassic => v.visit::<BarrettClassic<W>>(),
            Reduction::DhemQuisquater => v.visit::<DhemQuisquater<W>>(),
            Reduction::Barrett4 => v.visit::<Barrett4<W>>(),
            Reduction::Montgomery => v.visit::<Montgomery<W>>(),
            Reduction::Shoup => v.visit::<Shoup<W>>(),
        }
    }
}

impl std::fmt::Display for Reduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Something generic over the reduction type, run by [`Reduction::visit`].
pub(crate) trait Visitor<W: Coeff> {
    type Out;
    fn visit<R: ModMul<W>>(self) -> Self::Out;
}

struct NameOf;
impl<W: Coeff> Visitor<W> for NameOf {
    type Out = &'static str;
    fn visit<R: ModMul<W>>(self) -> &'static str {
        R::NAME
    }
}

struct MaxBits;
impl<W: Coeff> Visitor<W> for MaxBits {
    type Out = u32;
    fn visit<R: ModMul<W>>(self) -> u32 {
        R::MAX_BITS
    }
}

struct MaxCorrections;
impl<W: Coeff> Visitor<W> for MaxCorrections {
    type Out = u32;
    fn visit<R: ModMul<W>>(self) -> u32 {
        R::MAX_CORRECTIONS
    }
}

/// Multiplicands prepared for one reduction and modulus: the launch
/// constants `(q, k, m)` and the main/auxiliary words of each multiplicand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Multiplicands<W> {
    /// The variant.
    pub reduction: Reduction,
    /// `(q, k, m)` launch constants ([`ModMul::parts`]).
    pub parts: (W, W, u32),
    /// Main words.
    pub main: Vec<W>,
    /// Auxiliary words (Shoup), else `None`.
    pub aux: Option<Vec<W>>,
}

struct Prepare<'a, W> {
    q: W,
    values: &'a [W],
}

impl<W: Coeff> Visitor<W> for Prepare<'_, W> {
    type Out = Result<(W, W, u32, Vec<W>, Option<Vec<W>>)>;
    fn visit<R: ModMul<W>>(self) -> Self::Out {
        let red = R::new(self.q).map_err(|e| Error::from_modulus(self.q.as_u64(), W::BITS, e))?;
        let (p0, p1, p2) = red.parts();
        let (main, aux): (Vec<W>, Vec<W>) = self.values.iter().map(|&w| red.prepare(w)).unzip();
        Ok((p0, p1, p2, main, R::NEEDS_AUX.then_some(aux)))
    }
}

impl<W: Coeff> Multiplicands<W> {
    /// Prepares every value of `values` (each `< q`) for `reduction`.
    ///
    /// # Errors
    /// [`Error::BadModulus`] or [`Error::ModulusTooWide`] if the variant
    /// refuses `q` (even, below 5, too wide), then
    /// [`Error::CoefficientOutOfRange`] for the first value `>= q` (what
    /// `"values"`).
    pub fn new(reduction: Reduction, q: W, values: &[W]) -> Result<Self> {
        // The modulus first (nothing to prepare), then the values.
        reduction.visit::<W, _>(Prepare { q, values: &[] })?;
        if let Some((index, v)) = values.iter().enumerate().find(|(_, v)| **v >= q) {
            let (value, q) = (v.as_u64(), q.as_u64());
            return Err(Error::CoefficientOutOfRange { what: "values", index, value, q });
        }
        let (a, b, c, main, aux) = reduction.visit::<W, _>(Prepare { q, values })?;
        Ok(Self { reduction, parts: (a, b, c), main, aux })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant's kernel identifier names the kernels of its own type.
    #[test]
    fn kernel_kinds_name_the_variants_kernels() {
        for r in Reduction::ALL {
            assert_eq!(r.kind().name(), r.name(), "{r:?}");
        }
        let kinds: Vec<_> = Reduction::ALL.map(Reduction::kind).to_vec();
        assert_eq!(kinds, polymul_kernels::names::ReductionKind::ALL.to_vec());
    }
}
