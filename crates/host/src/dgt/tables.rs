//! The device tables of one DGT tower: packed twiddles of every pass
//! (Coala's twiddle packing), weights and inverse weights, prepared for
//! Shoup's multiplication.

use super::config::DgtConfig;
use super::params::{DgtParams, G};
use crate::{Coeff, Result};
use polymul_kernels::arith::{ModMul, Shoup};
use polymul_kernels::dgt::layout::PassGeometry;

/// One tower's tables, each a `GaussTable` (`[re | re' | im | im']`, `len`
/// entries each) back to back in `words`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DgtTables<W> {
    /// The passes of the configuration.
    pub passes: Vec<PassGeometry>,
    /// All tables, concatenated.
    pub words: Vec<W>,
    /// Offset of pass `i`'s forward twiddles.
    pub fwd: Vec<usize>,
    /// Offset of pass `i`'s inverse twiddles.
    pub inv: Vec<usize>,
    /// Offset of the weights `ξ^j`.
    pub weights: usize,
    /// Offset of the inverse weights `ξ^−j / M`.
    pub inv_weights: usize,
}

fn push_table<W: Coeff>(words: &mut Vec<W>, red: &Shoup<W>, values: &[G]) -> usize {
    let at = words.len();
    let prep = |v: u64| red.prepare(W::from_u64(v));
    let re: Vec<(W, W)> = values.iter().map(|g| prep(g.0)).collect();
    let im: Vec<(W, W)> = values.iter().map(|g| prep(g.1)).collect();
    words.extend(re.iter().map(|x| x.0));
    words.extend(re.iter().map(|x| x.1));
    words.extend(im.iter().map(|x| x.0));
    words.extend(im.iter().map(|x| x.1));
    at
}

/// The packed twiddles of one pass: entry `twiddle_index(c, t, i)` holds
/// `root^twiddle_exponent(c, t, i)`.
pub fn pass_twiddles(geo: &PassGeometry, roots: &[G]) -> Vec<G> {
    let mut out = vec![(0, 0); geo.twiddle_len() as usize];
    for c in 0..1u32 << geo.log_low() {
        for t in 0..geo.k() {
            for i in 0..1u32 << (geo.k() - 1) {
                out[geo.twiddle_index(c, t, i) as usize] = roots[geo.twiddle_exponent(c, t, i) as usize];
            }
        }
    }
    out
}

impl<W: Coeff> DgtTables<W> {
    /// The tables of `params` for `config`.
    pub fn new(params: &DgtParams<W>, config: &DgtConfig) -> Result<Self> {
        let passes = config.passes(params.log_m())?;
        let p = params.p();
        let red = Shoup::<W>::new(p).map_err(|e| crate::Error::from_modulus(p.as_u64(), W::BITS, e))?;
        let (roots, inv_roots) = (params.roots(false), params.roots(true));
        let mut words = Vec::new();
        let fwd = passes.iter().map(|g| push_table(&mut words, &red, &pass_twiddles(g, &roots))).collect();
        let inv =
            passes.iter().map(|g| push_table(&mut words, &red, &pass_twiddles(g, &inv_roots))).collect();
        let weights = push_table(&mut words, &red, &params.weights());
        let inv_weights = push_table(&mut words, &red, &params.inv_weights());
        Ok(Self { passes, words, fwd, inv, weights, inv_weights })
    }
}
