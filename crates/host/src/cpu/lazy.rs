//! The lazy NTT kernels (`polymul_kernels::ntt::lazy`) run on the CPU: every
//! block of every pass, step by step, each step for every thread of the
//! block before the next (what the block barriers guarantee on the GPU).

use crate::params::NttParams;
use crate::plan::lazy::{LazySchedule, tables};
use crate::{Coeff, Error, Result};
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
    if let Some(r) = log_r.filter(|r| !polymul_kernels::names::LAZY_LOG_RADIX.contains(r)) {
        return Err(Error::BadRadix { radix: 1usize.checked_shl(r).unwrap_or(0) });
    }
    let log_n = p.log_n();
    let sched = LazySchedule::new::<W>(log_n, log_r)
        .ok_or(Error::InvalidN { n: p.n(), min: 1 << lazy::MIN_ROW_L, max: 1 << 21 })?;
    let (fwd, inv) = tables(p)?;
    let table = if inverse { &inv } else { &fwd };
    for pass in sched.passes(inverse) {
        let shape = pass.shape;
        let args = PassArgs {
            data: data.as_mut_ptr(),
            tw: table.as_ptr(),
            q: p.q(),
            log_n,
            subs: pass.subs(log_n, batch),
        };
        let mut tile = vec![W::zero(); shape.smem_words(std::mem::size_of::<W>()) as usize];
        let s = HostShared(tile.as_mut_ptr());
        for blk in 0..pass.blocks(log_n, batch) {
            for e in 0..shape.steps() {
                for t in 0..shape.threads() {
                    // SAFETY: the schedule's shapes, a table of N + 1 pairs,
                    // a tile of smem_words words, blk below the block count.
                    unsafe {
                        if inverse {
                            lazy::step::<W, _, true>(shape, &args, &s, blk, t, e)
                        } else {
                            lazy::step::<W, _, false>(shape, &args, &s, blk, t, e)
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
