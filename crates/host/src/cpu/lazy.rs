//! The lazy NTT kernels (`polymul_kernels::ntt::lazy`) run on the CPU: every
//! block of every pass, step by step, each step for every thread of the
//! block before the next (what the block barriers guarantee on the GPU).

use crate::params::NttParams;
use crate::plan::lazy::{LazyPass, LazySchedule, tables};
use crate::{Coeff, Error, Result};
use polymul_kernels::arith::harvey::ShoupPair;
use polymul_kernels::ntt::lazy::{self, PassArgs};
use polymul_kernels::smem::HostShared;

/// The lazy forward NTT as the GPU runs it (radix `2^log_r`; `None`: the
/// kernels' default). Equal to [`super::forward`] bit for bit.
///
/// # Errors
/// Those of [`NttParams::check_batch`]; [`Error::InvalidN`] where no lazy
/// kernel covers N (below 8 or above 2^21); [`Error::BadRadix`] for a radix
/// other than 8 or 16.
pub fn forward_lazy<W: Coeff>(p: &NttParams<W>, data: &mut [W], log_r: Option<u32>) -> Result<()> {
    transform(p, data, log_r, false)
}

/// The lazy inverse NTT (the `1/N` folded into its last stage) as the GPU
/// runs it. Equal to [`super::inverse`] bit for bit.
///
/// # Errors
/// As for [`forward_lazy`].
pub fn inverse_lazy<W: Coeff>(p: &NttParams<W>, data: &mut [W], log_r: Option<u32>) -> Result<()> {
    transform(p, data, log_r, true)
}

fn transform<W: Coeff>(p: &NttParams<W>, data: &mut [W], log_r: Option<u32>, inverse: bool) -> Result<()> {
    let batch = p.check_batch("data", data)?;
    let sched = schedule(p, log_r)?;
    let (fwd, inv) = tables(p, &sched)?;
    for pass in sched.passes(inverse) {
        run_pass(p, pass, data, None, (&fwd, &inv), batch);
    }
    Ok(())
}

/// The negacyclic product of each pair of `a` and `b` as a lazy GPU plan
/// runs it: the forward transform of `b`, the forward column pass of `a`
/// (if any), the product row pass (forward row steps, pointwise product
/// with `b`'s transform, inverse row steps, in one kernel), the inverse
/// column pass. Equal to [`super::polymul`] bit for bit.
///
/// # Errors
/// As for [`forward_lazy`], and [`Error::LengthMismatch`] for operands of
/// different lengths.
pub fn polymul_lazy<W: Coeff>(p: &NttParams<W>, a: &[W], b: &[W], log_r: Option<u32>) -> Result<Vec<W>> {
    let batch = p.check_batch("a", a)?;
    p.check_batch("b", b)?;
    if a.len() != b.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    let sched = schedule(p, log_r)?;
    let (fwd, inv) = tables(p, &sched)?;
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    let tables = (&fwd[..], &inv[..]);
    for pass in &sched.forward {
        run_pass(p, pass, &mut b, None, tables, batch);
    }
    let cols = sched.forward.len() > 1;
    if cols {
        run_pass(p, &sched.forward[0], &mut a, None, tables, batch);
    }
    run_pass(p, &sched.product, &mut a, Some(&b), tables, batch);
    if cols {
        run_pass(p, &sched.inverse[1], &mut a, None, tables, batch);
    }
    Ok(a)
}

fn schedule<W: Coeff>(p: &NttParams<W>, log_r: Option<u32>) -> Result<LazySchedule> {
    if let Some(r) = log_r.filter(|r| !polymul_kernels::names::LAZY_LOG_RADIX.contains(r)) {
        return Err(Error::BadRadix { radix: 1usize.checked_shl(r).unwrap_or(0) });
    }
    LazySchedule::new::<W>(p.log_n(), log_r)
        .ok_or(Error::InvalidN { n: p.n(), min: 1 << lazy::MIN_ROW_L, max: 1 << 21 })
}

/// Runs one pass kernel over the batch, block by block, step by step.
fn run_pass<W: Coeff>(
    p: &NttParams<W>,
    pass: &LazyPass,
    data: &mut [W],
    b: Option<&[W]>,
    (fwd, inv): (&[ShoupPair<W>], &[ShoupPair<W>]),
    batch: usize,
) {
    let (log_n, shape) = (p.log_n(), pass.shape);
    let args = PassArgs {
        data: data.as_mut_ptr(),
        tw: fwd.as_ptr(),
        tw_inv: inv.as_ptr(),
        q: p.q(),
        log_n,
        subs: pass.subs(log_n, batch),
        b: b.map_or(std::ptr::null(), |b| b.as_ptr()),
        barrett: *p.barrett(),
    };
    let mut tile = vec![W::zero(); shape.smem_words(std::mem::size_of::<W>()) as usize];
    let s = HostShared(tile.as_mut_ptr());
    for blk in 0..pass.blocks(log_n, batch) {
        for e in 0..pass.steps() {
            for t in 0..shape.threads() {
                // SAFETY: the schedule's shapes, a table of the schedule's
                // pairs, a tile of smem_words words, blk below the block count,
                // `b` (product pass) as long as `data`.
                unsafe {
                    match pass.kernel.mode {
                        lazy::FORWARD => lazy::step::<W, _, { lazy::FORWARD }>(shape, &args, &s, blk, t, e),
                        lazy::INVERSE => lazy::step::<W, _, { lazy::INVERSE }>(shape, &args, &s, blk, t, e),
                        _ => lazy::step::<W, _, { lazy::PRODUCT }>(shape, &args, &s, blk, t, e),
                    }
                }
            }
        }
    }
}
