//! How polynomials lie in a buffer, and the checks every plan makes on its
//! inputs: one place for the NTT, RNS and DGT plans (which used to spell
//! them three times).
//!
//! A plan over `towers` moduli of one `N` takes **tower-major** data: tower
//! 0's `batch` polynomials of `N` words, then tower 1's, … ([`Layout`]).
//! `Towers` (crate-private) holds the moduli and validates host words and
//! device buffers against that layout before anything touches the device.

use crate::{Coeff, Error, Result};
use polymul_kernels::towers::TowerConsts;

/// Most towers one plan (one launch: the grid's y or z extent) takes.
pub const MAX_TOWERS: usize = 65_535;

/// The shape of a buffer of polynomials: `towers` towers (tower-major) of
/// `batch` polynomials of `n` words each, `towers · batch · n` words in all.
///
/// A [`crate::DeviceVec`] made by a plan (`upload`, `zeros`) remembers its
/// layout; plans take device words as [`crate::DeviceView`]s and check
/// them by their count (a positive multiple of `towers · N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Words per polynomial (N).
    pub n: usize,
    /// Towers (RNS moduli); 1 for one modulus.
    pub towers: usize,
    /// Polynomials per tower.
    pub batch: usize,
}

impl Layout {
    /// Words of the whole buffer.
    pub fn words(&self) -> usize {
        self.towers * self.batch * self.n
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} tower(s) × {} polynomial(s) × N = {}", self.towers, self.batch, self.n)
    }
}

/// The moduli of a plan (one per tower, all of one `N`) and the input
/// checks that follow from them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Towers<W: Coeff> {
    n: usize,
    moduli: Vec<W>,
}

impl<W: Coeff> Towers<W> {
    /// Checks the tower count ([`Error::EmptyBasis`],
    /// [`Error::TooManyTowers`]) and that no prime repeats
    /// ([`Error::DuplicatePrime`]).
    pub(crate) fn new(n: usize, moduli: Vec<W>) -> Result<Self> {
        if moduli.is_empty() {
            return Err(Error::EmptyBasis);
        }
        if moduli.len() > MAX_TOWERS {
            return Err(Error::TooManyTowers { towers: moduli.len(), max: MAX_TOWERS });
        }
        let mut seen = std::collections::HashSet::with_capacity(moduli.len());
        if let Some(q) = moduli.iter().find(|q| !seen.insert(q.as_u64())) {
            return Err(Error::DuplicatePrime { q: q.as_u64() });
        }
        Ok(Self { n, moduli })
    }

    /// N.
    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// Number of towers.
    pub(crate) fn len(&self) -> usize {
        self.moduli.len()
    }

    /// The moduli as `u64`, tower by tower.
    pub(crate) fn primes(&self) -> Vec<u64> {
        self.moduli.iter().map(|q| q.as_u64()).collect()
    }

    /// The layout of `batch` polynomials per tower, checked: at least one
    /// ([`Error::NotAMultipleOfN`] for 0) and at most what one launch
    /// addresses ([`Error::BatchTooLarge`]).
    pub(crate) fn layout(&self, batch: usize) -> Result<Layout> {
        crate::params::check_batch_size(self.n, batch)?;
        Ok(Layout { n: self.n, towers: self.len(), batch })
    }

    /// The layout of `batch` polynomials per tower of any size (a buffer a
    /// split call takes, gpu/split.rs): at least one
    /// ([`Error::NotAMultipleOfN`] for 0), `towers · batch · N` words
    /// addressable ([`Error::OutOfDeviceMemory`] otherwise: no memory holds
    /// them).
    pub(crate) fn shape(&self, batch: usize) -> Result<Layout> {
        if batch == 0 {
            return Err(Error::NotAMultipleOfN { what: "batch", got: 0, n: self.n });
        }
        let layout = Layout { n: self.n, towers: self.len(), batch };
        match batch.checked_mul(self.n * self.len()).and_then(|w| w.checked_mul(std::mem::size_of::<W>())) {
            Some(_) => Ok(layout),
            None => Err(Error::OutOfDeviceMemory { during: "sizing a buffer", bytes: usize::MAX }),
        }
    }

    /// The layout of a buffer of `len` words (`what` names it in errors):
    /// a positive multiple of `towers · N` within the batch limit.
    pub(crate) fn layout_of(&self, what: &'static str, len: usize) -> Result<Layout> {
        let layout = self.shape_of(what, len)?;
        self.layout(layout.batch)
    }

    /// The layout of a buffer of `len` words of any batch (`what` names it
    /// in errors): a positive multiple of `towers · N`.
    pub(crate) fn shape_of(&self, what: &'static str, len: usize) -> Result<Layout> {
        let per = self.len() * self.n;
        if len == 0 || !len.is_multiple_of(per) {
            return Err(Error::NotAMultipleOfN { what, got: len, n: per });
        }
        Ok(Layout { n: self.n, towers: self.len(), batch: len / per })
    }

    /// Validates tower-major host words of any batch: [`Towers::shape_of`],
    /// then every word of tower `i` below its modulus
    /// ([`Error::CoefficientOutOfRange`], indexed into the whole buffer).
    pub(crate) fn check(&self, what: &'static str, words: &[W]) -> Result<Layout> {
        let layout = self.shape_of(what, words.len())?;
        let len = layout.batch * self.n;
        for (i, (part, &q)) in words.chunks_exact(len).zip(&self.moduli).enumerate() {
            if let Some(j) = first_at_least(part, q) {
                let (index, value, q) = (i * len + j, part[j].as_u64(), q.as_u64());
                return Err(Error::CoefficientOutOfRange { what, index, value, q });
            }
        }
        Ok(layout)
    }

    /// The constants table of a launch over these towers
    /// (`polymul_kernels::towers`: one row per tower, `consts(i)` for tower
    /// `i`), or `None` for one tower, whose constants travel as the
    /// launch's scalars.
    pub(crate) fn table_rows(&self, consts: impl Fn(usize) -> TowerConsts<W>) -> Option<Vec<W>> {
        (self.len() > 1).then(|| (0..self.len()).flat_map(|i| consts(i).row()).collect())
    }

    /// The operands of a device product (`a`'s length, then the others,
    /// each `(name, length)`): all of `a`'s length
    /// ([`Error::LengthMismatch`] first), of this plan's shape. Their
    /// common layout.
    pub(crate) fn operands(&self, a: usize, others: &[(&'static str, usize)]) -> Result<Layout> {
        if let Some(&(what, got)) = others.iter().find(|o| o.1 != a) {
            return Err(Error::LengthMismatch { what, got, expected: a });
        }
        self.layout_of("a", a)
    }

    /// [`Towers::operands`] of any batch (a split call's, gpu/split.rs):
    /// the common layout without the launch limit.
    pub(crate) fn operand_shape(&self, a: usize, others: &[(&'static str, usize)]) -> Result<Layout> {
        if let Some(&(what, got)) = others.iter().find(|o| o.1 != a) {
            return Err(Error::LengthMismatch { what, got, expected: a });
        }
        self.shape_of("a", a)
    }

    /// Two operands of one product: equal lengths, then each checked.
    pub(crate) fn check_pair(&self, a: &[W], b: &[W]) -> Result<Layout> {
        let layout = self.check("a", a)?;
        if a.len() != b.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        self.check("b", b)?;
        Ok(layout)
    }
}

/// Words a range check scans per task: below it the scan stays on the
/// calling thread (a 2 MiB `u64` chunk takes about 0.1 ms, more than a
/// rayon hand-off).
const SCAN_CHUNK: usize = 1 << 18;

/// The index of the first word of `words` that is at least `q`. Each chunk
/// is tested without early exit (a comparison the compiler vectorises) and
/// only a chunk that holds such a word is searched; chunks of a large slice
/// are tested on every core. A host-slice call validates its operands with
/// this: serial and word by word it took 125 ms per 0.8 GiB operand on an
/// H100 host (2026-11-26), a tenth of a host-to-host product.
fn first_at_least<W: Coeff>(words: &[W], q: W) -> Option<usize> {
    use rayon::prelude::*;
    let bad = |c: &[W]| c.iter().fold(false, |acc, &v| acc | (v >= q));
    let chunk = if words.len() <= SCAN_CHUNK {
        bad(words).then_some(0)
    } else {
        words.par_chunks(SCAN_CHUNK).position_first(bad)
    }?;
    let start = chunk * SCAN_CHUNK;
    words[start..].iter().position(|&v| v >= q).map(|j| start + j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn towers_refuse_empty_duplicate_and_too_many() {
        assert!(matches!(Towers::<u32>::new(8, vec![]), Err(Error::EmptyBasis)));
        assert!(matches!(Towers::new(8, vec![17u32, 97, 17]), Err(Error::DuplicatePrime { q: 17 })));
        let many: Vec<u64> = (0..=MAX_TOWERS as u64).collect();
        assert!(matches!(Towers::new(8, many), Err(Error::TooManyTowers { .. })));
    }

    #[test]
    fn the_range_check_finds_the_first_word_at_or_above_q() {
        let q = 1_000_003u64;
        let len = 3 * SCAN_CHUNK + 5;
        let clean: Vec<u64> = (0..len as u64).map(|i| (i * 7919) % q).collect();
        assert_eq!(first_at_least(&clean, q), None);
        assert_eq!(first_at_least(&clean[..100], q), None);
        // The first of several bad words, across chunk edges and in short slices.
        for at in [0, 1, SCAN_CHUNK - 1, SCAN_CHUNK, 2 * SCAN_CHUNK + 3, len - 1] {
            let mut w = clean.clone();
            w[at] = q;
            if at + 1 < len {
                w[len - 1] = u64::MAX;
            }
            assert_eq!(first_at_least(&w, q), Some(at), "bad word at {at}");
            let short = at.min(99);
            let mut s = clean[..100].to_vec();
            s[short] = q + 1;
            assert_eq!(first_at_least(&s, q), Some(short));
        }
    }

    #[test]
    fn layouts_of_lengths() {
        let t = Towers::new(4, vec![17u32, 97]).unwrap();
        assert_eq!(t.layout_of("x", 24).unwrap(), Layout { n: 4, towers: 2, batch: 3 });
        assert!(matches!(t.layout_of("x", 0), Err(Error::NotAMultipleOfN { got: 0, n: 8, .. })));
        assert!(matches!(t.layout_of("x", 12), Err(Error::NotAMultipleOfN { got: 12, n: 8, .. })));
        assert!(matches!(
            t.operands(24, &[("b", 16)]),
            Err(Error::LengthMismatch { got: 16, expected: 24, .. })
        ));
        assert_eq!(t.operands(24, &[("b", 24)]).unwrap().batch, 3);
        assert!(matches!(t.layout(0), Err(Error::NotAMultipleOfN { .. })));
        assert!(matches!(t.layout(usize::MAX), Err(Error::BatchTooLarge { .. })));
        // Any batch a buffer can hold has a shape; only launches are limited.
        let max = crate::params::max_batch(4);
        assert_eq!(t.shape(max + 1).unwrap().batch, max + 1);
        assert!(matches!(t.layout(max + 1), Err(Error::BatchTooLarge { .. })));
        assert_eq!(t.shape_of("x", 8 * (max + 1)).unwrap().batch, max + 1);
        assert!(matches!(t.layout_of("x", 8 * (max + 1)), Err(Error::BatchTooLarge { .. })));
        assert!(matches!(t.shape(0), Err(Error::NotAMultipleOfN { .. })));
        assert!(matches!(t.shape(usize::MAX), Err(Error::OutOfDeviceMemory { .. })));
    }

    #[test]
    fn words_are_checked_against_their_own_tower() {
        let t = Towers::new(2, vec![17u32, 97]).unwrap();
        // Two polynomials per tower: tower 0 is words 0..4 (< 17), tower 1 words 4..8 (< 97).
        assert!(t.check("a", &[16, 0, 1, 2, 96, 50, 20, 0]).is_ok());
        let e = t.check("a", &[16, 0, 1, 2, 96, 97, 20, 0]).unwrap_err();
        assert!(matches!(e, Error::CoefficientOutOfRange { index: 5, value: 97, q: 97, .. }));
        let e = t.check("a", &[17, 0, 1, 2, 0, 0, 0, 0]).unwrap_err();
        assert!(matches!(e, Error::CoefficientOutOfRange { index: 0, q: 17, .. }));
        assert!(matches!(t.check_pair(&[0; 8], &[0; 4]), Err(Error::LengthMismatch { .. })));
        assert!(matches!(
            t.check_pair(&[0; 8], &[0, 0, 0, 0, 0, 0, 0, 97]),
            Err(Error::CoefficientOutOfRange { what: "b", index: 7, .. })
        ));
    }
}
