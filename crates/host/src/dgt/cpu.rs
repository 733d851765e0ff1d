//! The DGT kernels' code run on the CPU: every block and thread of every
//! launch, phase by phase (a barrier = the end of a loop over threads).

use super::config::DgtConfig;
use super::params::DgtParams;
use super::tables::DgtTables;
use crate::{Coeff, Error, Result};
use polymul_kernels::arith::{ModMul, Shoup};
use polymul_kernels::dgt::layout::PassGeometry;
use polymul_kernels::dgt::pass::{self, GaussTable};
use polymul_kernels::smem::HostShared;

fn check<W: Coeff>(p: &DgtParams<W>, what: &'static str, data: &[W]) -> Result<usize> {
    let n = p.n();
    if data.is_empty() || !data.len().is_multiple_of(n) {
        return Err(Error::NotAMultipleOfN { what, got: data.len(), n });
    }
    if let Some((index, v)) = data.iter().enumerate().find(|(_, v)| **v >= p.p()) {
        return Err(Error::CoefficientOutOfRange { what, index, value: v.as_u64(), q: p.p().as_u64() });
    }
    Ok(data.len() / n)
}

fn table<W: Coeff>(t: &DgtTables<W>, at: usize, len: u32) -> GaussTable<W> {
    GaussTable { base: t.words[at..].as_ptr(), len }
}

/// One pass over every polynomial of `src` into `dst` (equal lengths).
#[allow(clippy::too_many_arguments)]
fn run_pass<W: Coeff>(
    geo: &PassGeometry,
    src: &[W],
    dst: &mut [W],
    inverse: bool,
    packed_in: bool,
    packed_out: bool,
    tw: &GaussTable<W>,
    red: &Shoup<W>,
) {
    let words = 2usize << geo.log_m;
    let mut tile = vec![W::zero(); pass::shared_words(geo)];
    let s = HostShared(tile.as_mut_ptr());
    for (src, dst) in src.chunks(words).zip(dst.chunks_mut(words)) {
        for b in 0..geo.blocks_per_poly() {
            let set0 = b << geo.log_cluster;
            // SAFETY: thread ids below geo.threads(), buffers of 2M words,
            // the tile of shared_words, the table of the pass.
            unsafe {
                for t in 0..geo.threads() {
                    pass::load(src.as_ptr(), &s, geo, set0, t, packed_in);
                }
                for n in 0..geo.k() {
                    for t in 0..geo.threads() {
                        pass::step(&s, geo, set0, n, t, inverse, tw, red);
                    }
                }
                for t in 0..geo.threads() {
                    pass::store(dst.as_mut_ptr(), &s, geo, set0, t, packed_out);
                }
            }
        }
    }
}

fn shoup<W: Coeff>(p: &DgtParams<W>) -> Result<Shoup<W>> {
    Shoup::new(p.p()).map_err(|e| Error::from_modulus(p.p().as_u64(), W::BITS, e))
}

/// Forward DGT of every polynomial in `data` (N words each, planar
/// Gaussians `a_j + i·a_{j+M}`): weights, packing, the passes of
/// `config`. The result is in the natural (in-place, bit-reversed frequency)
/// order.
pub fn forward<W: Coeff>(p: &DgtParams<W>, config: &DgtConfig, data: &mut [W]) -> Result<()> {
    check(p, "data", data)?;
    let t = DgtTables::new(p, config)?;
    forward_with(p, &t, data)
}

fn forward_with<W: Coeff>(p: &DgtParams<W>, t: &DgtTables<W>, data: &mut [W]) -> Result<()> {
    let red = shoup(p)?;
    let m = 1u32 << p.log_m();
    let mut scratch = vec![W::zero(); data.len()];
    let w = table(t, t.weights, m);
    for (src, dst) in data.chunks(2 * m as usize).zip(scratch.chunks_mut(2 * m as usize)) {
        for j in 0..m {
            // SAFETY: j < M, both chunks 2M words.
            unsafe { pass::encode(src.as_ptr(), dst.as_mut_ptr(), &t.passes[0], j, &w, &red) };
        }
    }
    let tw0 = table(t, t.fwd[0], t.passes[0].twiddle_len());
    run_pass(&t.passes[0], &scratch, data, false, true, false, &tw0, &red);
    if let Some(g1) = t.passes.get(1) {
        let copy = data.to_vec();
        run_pass(g1, &copy, data, false, true, true, &table(t, t.fwd[1], g1.twiddle_len()), &red);
    }
    Ok(())
}

/// Inverse of [`forward`] (`1/M` included): back to coefficients.
pub fn inverse<W: Coeff>(p: &DgtParams<W>, config: &DgtConfig, data: &mut [W]) -> Result<()> {
    check(p, "data", data)?;
    let t = DgtTables::new(p, config)?;
    inverse_with(p, &t, data)
}

fn inverse_with<W: Coeff>(p: &DgtParams<W>, t: &DgtTables<W>, data: &mut [W]) -> Result<()> {
    let red = shoup(p)?;
    let m = 1u32 << p.log_m();
    if let Some(g1) = t.passes.get(1) {
        let copy = data.to_vec();
        run_pass(g1, &copy, data, true, true, true, &table(t, t.inv[1], g1.twiddle_len()), &red);
    }
    let mut scratch = vec![W::zero(); data.len()];
    let tw0 = table(t, t.inv[0], t.passes[0].twiddle_len());
    run_pass(&t.passes[0], data, &mut scratch, true, false, true, &tw0, &red);
    let w = table(t, t.inv_weights, m);
    for (src, dst) in scratch.chunks(2 * m as usize).zip(data.chunks_mut(2 * m as usize)) {
        for j in 0..m {
            // SAFETY: j < M, both chunks 2M words.
            unsafe { pass::decode(src.as_ptr(), dst.as_mut_ptr(), &t.passes[0], j, &w, &red) };
        }
    }
    Ok(())
}

/// Negacyclic products of each pair through the DGT kernels' code.
pub fn polymul<W: Coeff>(p: &DgtParams<W>, config: &DgtConfig, a: &[W], b: &[W]) -> Result<Vec<W>> {
    check(p, "a", a)?;
    check(p, "b", b)?;
    if a.len() != b.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    let t = DgtTables::new(p, config)?;
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    forward_with(p, &t, &mut x)?;
    forward_with(p, &t, &mut y)?;
    let m = 1usize << p.log_m();
    for (xa, yb) in x.chunks_mut(2 * m).zip(y.chunks(2 * m)) {
        for j in 0..m {
            // SAFETY: j < M, both chunks 2M words.
            unsafe { pass::pointwise(xa.as_mut_ptr(), yb.as_ptr(), m, j, p.barrett()) };
        }
    }
    inverse_with(p, &t, &mut x)?;
    Ok(x)
}
