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
/// `root^twiddle_exponent(c, t, i)`; `roots[e]` is `root^e` for
/// `e < max(1, M/2)` ([`DgtParams::roots`]).
///
/// # Errors
/// [`crate::Error::BadDgtConfig`] for a geometry no configuration gives
/// (no stages, `s1 > log_m`, more than [`super::MAX_PASS_STAGES`] stages,
/// `M` above [`super::MAX_N`]` / 2`); [`crate::Error::LengthMismatch`] if
/// `roots` is shorter than `max(1, M/2)`.
pub fn pass_twiddles(geo: &PassGeometry, roots: &[G]) -> Result<Vec<G>> {
    let max_log_m = super::MAX_N.ilog2() - 1;
    let why = if geo.log_m > max_log_m {
        Some("N is above the DGT's largest, 2^21")
    } else if geo.s1 <= geo.s0 || geo.s1 > geo.log_m {
        Some("a pass needs stages s0 < s1 <= log2(N/2)")
    } else if geo.k() > super::MAX_PASS_STAGES {
        Some("a kernel runs at most 10 stages (1024 threads per block)")
    } else {
        None
    };
    if let Some(why) = why {
        let what = format!("pass s0={} s1={} of log2(N/2)={}", geo.s0, geo.s1, geo.log_m);
        let n = if geo.log_m < usize::BITS - 1 { 2usize << geo.log_m } else { usize::MAX };
        return Err(crate::Error::BadDgtConfig { what, n, why });
    }
    let needed = ((1usize << geo.log_m) / 2).max(1);
    if roots.len() < needed {
        return Err(crate::Error::LengthMismatch { what: "roots", got: roots.len(), expected: needed });
    }
    let mut out = vec![(0, 0); geo.twiddle_len() as usize];
    for c in 0..1u32 << geo.log_low() {
        for t in 0..geo.k() {
            for i in 0..1u32 << (geo.k() - 1) {
                // Exponents are below M/2 (checked by the tests of the layout).
                let root = roots.get(geo.twiddle_exponent(c, t, i) as usize).copied().unwrap_or((0, 0));
                if let Some(slot) = out.get_mut(geo.twiddle_index(c, t, i) as usize) {
                    *slot = root;
                }
            }
        }
    }
    Ok(out)
}

impl<W: Coeff> DgtTables<W> {
    /// The tables of `params` for `config`.
    ///
    /// # Errors
    /// [`crate::Error::BadDgtConfig`] if `config` does not fit N
    /// ([`DgtConfig::passes`]).
    pub fn new(params: &DgtParams<W>, config: &DgtConfig) -> Result<Self> {
        let passes = config.passes(params.log_m())?;
        let p = params.p();
        let red = Shoup::<W>::new(p).map_err(|e| crate::Error::from_modulus(p.as_u64(), W::BITS, e))?;
        let (roots, inv_roots) = (params.roots(false), params.roots(true));
        let mut words = Vec::new();
        let mut fwd = Vec::with_capacity(passes.len());
        for g in &passes {
            fwd.push(push_table(&mut words, &red, &pass_twiddles(g, &roots)?));
        }
        let mut inv = Vec::with_capacity(passes.len());
        for g in &passes {
            inv.push(push_table(&mut words, &red, &pass_twiddles(g, &inv_roots)?));
        }
        let weights = push_table(&mut words, &red, &params.weights());
        let inv_weights = push_table(&mut words, &red, &params.inv_weights());
        Ok(Self { passes, words, fwd, inv, weights, inv_weights })
    }
}
