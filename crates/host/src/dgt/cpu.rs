//! The DGT kernels' code run on the CPU: the launches of the plan's
//! schedule (`dgt::schedule`), every block and thread of each, phase by phase (a barrier
//! = the end of a loop over threads).

use super::config::DgtConfig;
use super::params::DgtParams;
use super::schedule::{ArgsContext, Buf, DgtPipeline, Schedule, Step, pass_args};
use super::tables::DgtTables;
use crate::{Coeff, Error, Result};
use polymul_kernels::args::{ArgsError, Buf as KBuf, TowerGrid};
use polymul_kernels::arith::{ModMul, Shoup};
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

fn shoup<W: Coeff>(p: &DgtParams<W>) -> Result<Shoup<W>> {
    Shoup::new(p.p()).map_err(|e| Error::from_modulus(p.p().as_u64(), W::BITS, e))
}

/// Runs `steps` (a [`Schedule`]'s operation) on `a` (and `b`), batches of
/// N words of one tower, launch by launch: every block of a pass kernel,
/// phase by phase, every thread of a phase before the next (a barrier).
fn run<W: Coeff>(p: &DgtParams<W>, t: &DgtTables<W>, steps: &[Step], a: &mut [W], b: &mut [W]) -> Result<()> {
    let red = shoup(p)?;
    let (n, m) = (p.n(), 1u32 << p.log_m());
    let batch = a.len() / n;
    let mut scratch =
        if steps.iter().any(Step::uses_scratch) { vec![W::zero(); a.len()] } else { Vec::new() };
    let (pa, pb, ps) = (a.as_mut_ptr(), b.as_mut_ptr(), scratch.as_mut_ptr());
    let (la, lb, ls) = (a.len(), b.len(), scratch.len());
    let buf = |x: Buf| match x {
        Buf::A => pa,
        Buf::B => pb,
        Buf::Scratch => ps,
    };
    let kbuf = |x: Buf| match x {
        Buf::A => KBuf::new(pa, la),
        Buf::B => KBuf::new(pb, lb),
        Buf::Scratch => KBuf::new(ps, ls),
    };
    let barrett = p.barrett();
    let bad = |e: ArgsError| Error::BadLaunch { kernel: "a DGT pass (CPU)", why: e.why() };
    let ctx = ArgsContext {
        tables: t.words.as_ptr(),
        tables_len: t.words.len(),
        layout: t,
        passes: &t.passes,
        batch: batch as u32,
        grid: TowerGrid::new(KBuf::none(), 1, a.len() as u64, t.words.len() as u32).map_err(bad)?,
        scalars: (p.p(), barrett.mu, barrett.m),
    };
    let polys = (0..batch).map(|i| i * n);
    for step in steps {
        // SAFETY: the `# Safety` of the DGT bodies run here (`DgtArgs::block` and
        // its phases, `pass::encode` / `decode` / `pointwise`, polymul-kernels
        // `dgt/pass.rs` and `dgt/codec.rs`): `a` holds `batch` polynomials of 2M
        // = N words below `p` (`check` in `forward` / `inverse` / `polymul`), and
        // so does `b` whenever a step names it (the polymul's: `check` and
        // `a.len() == b.len()`; a transform passes an empty `b` its steps never
        // name), the scratch `a.len()` words when a step uses it; the tables and
        // passes are `DgtTables::new`'s for `p` (`ArgsContext`: one tower, null
        // `moduli`, `data_words = a.len()`; the pass blocks' buffer and table
        // extents checked by `DgtArgs::new` in `pass_args`); thread ids below the launch's
        // threads, blocks below its blocks, the tile `shared_words()` words
        // (`HostShared` indexes logical words, no padding); phases in order,
        // every thread of one before the next (the barrier). Blocks of a pass
        // touch disjoint elements, so a pass may read and write one buffer.
        unsafe {
            match *step {
                Step::Pass(s) => {
                    let args = pass_args(&s, &ctx, kbuf).map_err(bad)?;
                    let mut tile = vec![W::zero(); args.shared_words()];
                    let sh = HostShared(tile.as_mut_ptr());
                    // Each thread's twiddle, carried from phase to phase.
                    let mut next = vec![pass::no_twiddle(); args.threads() as usize];
                    for blk in 0..args.blocks() {
                        let block = args.block(blk, 0);
                        for ph in 0..args.phases() {
                            for (tid, next) in (0..args.threads()).zip(next.iter_mut()) {
                                block.phase_of_op(&sh, ph, tid, next);
                            }
                        }
                    }
                }
                Step::Encode { from, to } | Step::Decode { from, to } => {
                    let decode = matches!(step, Step::Decode { .. });
                    let w = table(t, if decode { t.inv_weights } else { t.weights }, m);
                    for off in polys.clone() {
                        let (src, dst) = (buf(from).add(off) as *const W, buf(to).add(off));
                        for j in 0..m {
                            if decode {
                                pass::decode(src, dst, &t.passes[0], j, &w, &red);
                            } else {
                                pass::encode(src, dst, &t.passes[0], j, &w, &red);
                            }
                        }
                    }
                }
                Step::Pointwise => {
                    for off in polys.clone() {
                        for j in 0..m as usize {
                            pass::pointwise(pa.add(off), pb.add(off) as *const W, m as usize, j, barrett);
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

fn schedule<W: Coeff>(t: &DgtTables<W>, pipeline: DgtPipeline) -> Schedule {
    Schedule::new(pipeline, &t.passes, |_| true)
}

/// Forward DGT of every polynomial in `data` (N words each, planar
/// Gaussians `a_j + i·a_{j+M}`) as the default (fused) pipeline's kernels
/// compute it: weights, the passes of `config`. The result is in the
/// natural (in-place, bit-reversed frequency) order.
pub fn forward<W: Coeff>(p: &DgtParams<W>, config: &DgtConfig, data: &mut [W]) -> Result<()> {
    forward_with(p, config, DgtPipeline::Fused, data)
}

/// [`forward`] through the kernels of `pipeline` (the same words).
pub fn forward_with<W: Coeff>(
    p: &DgtParams<W>,
    config: &DgtConfig,
    pipeline: DgtPipeline,
    data: &mut [W],
) -> Result<()> {
    transform(p, config, pipeline, false, data)
}

/// Inverse of [`forward`] (`1/M` included): back to coefficients.
pub fn inverse<W: Coeff>(p: &DgtParams<W>, config: &DgtConfig, data: &mut [W]) -> Result<()> {
    inverse_with(p, config, DgtPipeline::Fused, data)
}

/// [`inverse`] through the kernels of `pipeline`.
pub fn inverse_with<W: Coeff>(
    p: &DgtParams<W>,
    config: &DgtConfig,
    pipeline: DgtPipeline,
    data: &mut [W],
) -> Result<()> {
    transform(p, config, pipeline, true, data)
}

fn transform<W: Coeff>(
    p: &DgtParams<W>,
    config: &DgtConfig,
    pipeline: DgtPipeline,
    inverse: bool,
    data: &mut [W],
) -> Result<()> {
    check(p, "data", data)?;
    let t = DgtTables::new(p, config)?;
    let s = schedule(&t, pipeline);
    run(p, &t, if inverse { &s.inverse } else { &s.forward }, data, &mut [])
}

/// Negacyclic products of each pair through the default pipeline's kernels.
pub fn polymul<W: Coeff>(p: &DgtParams<W>, config: &DgtConfig, a: &[W], b: &[W]) -> Result<Vec<W>> {
    polymul_with(p, config, DgtPipeline::Fused, a, b)
}

/// [`polymul`] through the kernels of `pipeline`.
pub fn polymul_with<W: Coeff>(
    p: &DgtParams<W>,
    config: &DgtConfig,
    pipeline: DgtPipeline,
    a: &[W],
    b: &[W],
) -> Result<Vec<W>> {
    check(p, "a", a)?;
    check(p, "b", b)?;
    if a.len() != b.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    let t = DgtTables::new(p, config)?;
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    run(p, &t, &schedule(&t, pipeline).polymul, &mut x, &mut y)?;
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dgt::dgt_primes;

    /// The fused pipeline's polymul without room for a product pass
    /// (transforms, the pointwise kernel, the inverse) gives the same words.
    #[test]
    fn polymul_without_a_product_pass_gives_the_same_words() {
        for (log_n, stages1, log_cluster1) in [(8, 7, 0), (10, 5, 1)] {
            let n = 1usize << log_n;
            let p = DgtParams::<u32>::new(n, dgt_primes(30, n, 1).unwrap()[0]).unwrap();
            let config = DgtConfig { stages1, log_cluster1, log_cluster2: 0, log_unit: 0 };
            let t = DgtTables::new(&p, &config).unwrap();
            let mut rng = crate::random::SplitMix64::new(log_n as u64);
            let (a, b) = (rng.coeffs(2 * n, p.p()), rng.coeffs(2 * n, p.p()));
            let (mut x, mut y) = (a.clone(), b.clone());
            let tight = Schedule::new(DgtPipeline::Fused, &t.passes, |_| false);
            assert!(tight.polymul.contains(&Step::Pointwise));
            run(&p, &t, &tight.polymul, &mut x, &mut y).unwrap();
            assert_eq!(x, polymul(&p, &config, &a, &b).unwrap());
        }
    }
}
