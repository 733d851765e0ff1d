//! The lazy NTT kernels (`polymul_kernels::ntt::lazy`) run on the CPU: every
//! block of every pass, step by step, each step for every thread of the
//! block before the next (what the block barriers guarantee on the GPU).

use crate::params::NttParams;
use crate::plan::lazy::{LazyPass, LazySchedule, product_tables, tables};
use crate::{Coeff, Error, Result};
use polymul_kernels::arith::harvey::ShoupPair;
use polymul_kernels::ntt::lazy::{self, PassArgs};
use polymul_kernels::smem::HostShared;

/// The lazy forward NTT as the GPU runs it (radix `2^log_r`; `None`: the
/// kernels' default). Equal to [`crate::expert::emulation::forward`] bit for bit.
///
/// # Errors
/// Those of [`NttParams::check_batch`]; [`Error::InvalidN`] where no lazy
/// kernel covers N (below 8 or above 2^21); [`Error::BadRadix`] for a radix
/// other than 8 or 16.
pub fn forward_lazy<W: Coeff>(p: &NttParams<W>, data: &mut [W], log_r: Option<u32>) -> Result<()> {
    transform(p, data, log_r, false)
}

/// The lazy inverse NTT (the `1/N` folded into its last stage) as the GPU
/// runs it. Equal to [`crate::expert::emulation::inverse`] bit for bit.
///
/// # Errors
/// As for [`forward_lazy`].
pub fn inverse_lazy<W: Coeff>(p: &NttParams<W>, data: &mut [W], log_r: Option<u32>) -> Result<()> {
    transform(p, data, log_r, true)
}

fn transform<W: Coeff>(p: &NttParams<W>, data: &mut [W], log_r: Option<u32>, inverse: bool) -> Result<()> {
    let batch = p.check_batch("data", data)?;
    transform_on(p, data, &schedule(p, log_r)?, inverse, batch)
}

/// The lazy transform on the latency schedule (`lazy::latency_split`: two
/// passes of two sub-transforms per block, what a plan launches for a
/// polynomial or a few at N = 2^10 to 2^16) at radix `2^log_r` (`None`:
/// `lazy::LATENCY_LOG_R`; 4, 8 or 16), as the GPU runs it. Equal to
/// [`crate::expert::emulation::forward`] / [`crate::expert::emulation::inverse`] bit for bit.
///
/// # Errors
/// Those of [`NttParams::check_batch`]; [`Error::InvalidN`] outside N = 2^10
/// to 2^16; [`Error::BadRadix`] for a radix other than 4, 8 or 16.
pub fn transform_lazy_latency<W: Coeff>(
    p: &NttParams<W>,
    data: &mut [W],
    inverse: bool,
    log_r: Option<u32>,
) -> Result<()> {
    let batch = p.check_batch("data", data)?;
    transform_on(p, data, &latency_schedule(p, log_r)?, inverse, batch)
}

/// [`polymul_lazy`] on the latency schedule ([`transform_lazy_latency`]).
///
/// # Errors
/// As for [`polymul_lazy`], [`Error::InvalidN`] outside N = 2^10 to 2^16 and
/// [`Error::BadRadix`] for a radix other than 4, 8 or 16.
pub fn polymul_lazy_latency<W: Coeff>(
    p: &NttParams<W>,
    a: &[W],
    b: &[W],
    log_r: Option<u32>,
) -> Result<Vec<W>> {
    product_on(p, a, b, &latency_schedule(p, log_r)?)
}

/// [`Error::BadRadix`] unless `log_r` is `None` or one of `radices`.
fn check_radix(log_r: Option<u32>, radices: &[u32]) -> Result<()> {
    match log_r.filter(|r| !radices.contains(r)) {
        Some(r) => Err(Error::BadRadix { radix: 1usize.checked_shl(r).unwrap_or(0) }),
        None => Ok(()),
    }
}

fn latency_schedule<W: Coeff>(p: &NttParams<W>, log_r: Option<u32>) -> Result<LazySchedule> {
    check_radix(log_r, &polymul_kernels::names::LATENCY_LOG_RADIX)?;
    LazySchedule::latency::<W>(p.log_n(), log_r).ok_or(Error::InvalidN {
        n: p.n(),
        min: 1 << 10,
        max: 1 << 16,
    })
}

fn transform_on<W: Coeff>(
    p: &NttParams<W>,
    data: &mut [W],
    sched: &LazySchedule,
    inverse: bool,
    batch: usize,
) -> Result<()> {
    let (fwd, inv) = tables(p, sched)?;
    for pass in sched.passes(inverse) {
        run_pass(p, pass, data, None, (&fwd, &inv), batch);
    }
    Ok(())
}

/// The fused lazy transform (`lazy::fused_item`: both passes in one launch)
/// as the GPU runs it, one ticket after the other: first-pass blocks run
/// their pass, second-pass blocks theirs (both passes at the row pass's
/// radix, row blocks of up to 4 polynomials as `launch::fused_ntt` asks
/// for), in ticket order with lag `lag` (at least 4, as the host gives it).
/// Each second-pass block asserts that every first-pass block of its
/// polynomials came before it (where the GPU block would wait). Equal to
/// [`crate::expert::emulation::forward`] / [`crate::expert::emulation::inverse`] bit for bit.
///
/// # Errors
/// As for [`forward_lazy`], and [`Error::InvalidN`] for an N without fused
/// kernels (`lazy::fused_sizes`).
pub fn transform_lazy_fused<W: Coeff>(
    p: &NttParams<W>,
    data: &mut [W],
    inverse: bool,
    lag: u32,
) -> Result<()> {
    let batch = p.check_batch("data", data)?;
    let (log_n, w) = (p.log_n(), std::mem::size_of::<W>());
    let sizes = lazy::fused_sizes(w);
    if !sizes.contains(&log_n) {
        return Err(Error::InvalidN { n: p.n(), min: 1 << sizes.start(), max: 1 << sizes.end() });
    }
    let sched = schedule(p, None)?;
    let (fwd, inv) = tables(p, &sched)?;
    let row = sched.row_shape();
    let col = lazy::Shape::new(sched.forward[0].shape.l, row.log_r, true, w);
    let (first, second) = if inverse { (row, col) } else { (col, row) };
    let per_poly = lazy::fused_per_poly(log_n, w);
    let ptr = data.as_mut_ptr();
    let args = |shape| whole_pass_args(p, ptr, (&fwd, &inv), batch, shape);
    // The row pass may hold rows of several polynomials per block.
    let lp = lazy::row_polys_log(row, log_n, batch);
    let args = |shape: lazy::Shape| PassArgs { log_polys: if shape.strided { 0 } else { lp }, ..args(shape) };
    let (a1, a2) = (args(first), args(second));
    let lag = lag.max(1 << lazy::ROW_POLYS_LOG_MAX);
    let target = lazy::fused_target(inverse, lp, per_poly);
    let mut tile = vec![W::zero(); lazy::fused_smem_words(col, row, w) as usize];
    let s = HostShared(tile.as_mut_ptr());
    let mut held = [W::zero(); lazy::MAX_HELD];
    let mut done = vec![0u32; batch];
    for tk in 0..2 * batch as u32 * per_poly {
        let (is_second, blk) = lazy::fused_item(tk, batch as u32, per_poly, lag);
        let shape = if is_second { second } else { first };
        let (p0, np) = lazy::fused_polys(!shape.strided, lp, blk, per_poly);
        let polys = p0 as usize..(p0 + np) as usize;
        if is_second {
            // The GPU block would wait here; the schedule puts it after them.
            assert!(
                done[polys.clone()].iter().all(|&d| d == target),
                "ticket {tk}: second pass before its first"
            );
        }
        let mode = if inverse { lazy::INVERSE } else { lazy::FORWARD };
        for e in 0..lazy::exec_steps(shape, mode, w) {
            for t in 0..shape.threads() {
                // SAFETY: the `# Safety` of `lazy::step` / `lazy::step_l2`
                // (polymul-kernels `ntt/lazy/pass.rs`): `a1` and `a2` are
                // `whole_pass_args` over `data`, `batch · N` words below `q`
                // (`check_batch` above), with this schedule's tables
                // (`plan::lazy::tables`); the shapes are the schedule's row shape
                // and its first pass's columns for a `log_n` in `fused_sizes`
                // (checked above); `s` holds `fused_smem_words(col, row)` words,
                // either pass's tile; `blk` comes from `fused_item` over the
                // `2 · batch · per_poly` tickets, below its pass's block count;
                // `t < shape.threads()`. `step_l2` needs the first pass of its
                // polynomials done: the `assert!` on `done` above.
                unsafe {
                    match (inverse, is_second) {
                        (false, false) => {
                            lazy::step::<W, _, { lazy::FORWARD }>(shape, &a1, &s, &mut held, blk, t, e)
                        }
                        (false, true) => lazy::step_l2::<W, _, { lazy::FORWARD }>(shape, &a2, &s, blk, t, e),
                        (true, false) => {
                            lazy::step::<W, _, { lazy::INVERSE }>(shape, &a1, &s, &mut held, blk, t, e)
                        }
                        (true, true) => lazy::step_l2::<W, _, { lazy::INVERSE }>(shape, &a2, &s, blk, t, e),
                    }
                }
            }
        }
        if !is_second {
            done[polys].iter_mut().for_each(|d| *d += 1);
        }
    }
    Ok(())
}

/// The negacyclic product of each pair of `a` and `b` as a lazy GPU plan
/// runs it: the forward column pass of both operands (if any; one launch),
/// the product row pass (`b`'s forward row steps, then `a`'s, the
/// pointwise product and the inverse row steps, in one kernel), the
/// inverse column pass. Equal to [`crate::expert::emulation::polymul`] bit for bit.
///
/// # Errors
/// As for [`forward_lazy`], and [`Error::LengthMismatch`] for operands of
/// different lengths.
pub fn polymul_lazy<W: Coeff>(p: &NttParams<W>, a: &[W], b: &[W], log_r: Option<u32>) -> Result<Vec<W>> {
    product_on(p, a, b, &schedule(p, log_r)?)
}

fn product_on<W: Coeff>(p: &NttParams<W>, a: &[W], b: &[W], sched: &LazySchedule) -> Result<Vec<W>> {
    let batch = p.check_batch("a", a)?;
    p.check_batch("b", b)?;
    if a.len() != b.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    let (fwd, inv) = product_tables(p, sched)?;
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    let tables = (&fwd[..], &inv[..]);
    let cols = sched.forward.len() > 1;
    if cols {
        run_pass(p, &sched.forward[0], &mut a, Some(&mut b), tables, batch);
    }
    run_pass(p, &sched.product, &mut a, Some(&mut b), tables, batch);
    if cols {
        run_pass(p, &sched.inverse[1], &mut a, None, tables, batch);
    }
    Ok(a)
}

/// The ciphertext tensor product ([`crate::Tensor`]) of `a` and `b`
/// (`2m` polynomials each) as a lazy GPU plan with the tensor-source
/// kernel runs it: both forwards, then the inverse of the three products,
/// whose first (row) pass reads the products itself
/// (`polymul_kernels::ntt::lazy::step_tensor`). Equal to the CPU backend's
/// tensor product bit for bit.
///
/// # Errors
/// As for [`forward_lazy`]; [`Error::InvalidN`] where the schedule's
/// inverse row pass has no tensor-source kernel
/// (`polymul_kernels::ntt::lazy::has_tensor_rows`: N = 2^8 and 2^16);
/// [`Error::LengthMismatch`] for operands of different lengths, and
/// [`Error::NotCiphertexts`] for an odd number of polynomials.
pub fn tensor_lazy<W: Coeff>(p: &NttParams<W>, a: &[W], b: &[W]) -> Result<Vec<W>> {
    let batch = p.check_batch("a", a)?;
    p.check_batch("b", b)?;
    if a.len() != b.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    if !batch.is_multiple_of(2) {
        return Err(Error::NotCiphertexts { what: "a", polys: batch });
    }
    let sched = schedule(p, None)?;
    let first = sched.inverse[0];
    let k = first.kernel;
    if k.strided || !lazy::has_tensor_rows(std::mem::size_of::<W>(), k.mode, k.l, k.log_r) {
        return Err(Error::InvalidN { n: p.n(), min: 1 << lazy::TENSOR_L, max: 1 << (2 * lazy::TENSOR_L) });
    }
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    transform_on(p, &mut a, &sched, false, batch)?;
    transform_on(p, &mut b, &sched, false, batch)?;
    let (fwd, inv) = tables(p, &sched)?;
    let out_batch = batch / 2 * 3;
    let mut out = vec![W::zero(); out_batch * p.n()];
    let tensor = LazyPass { kernel: polymul_kernels::names::LazyKernel { tensor: true, ..k }, ..first };
    run_pass_from(p, &tensor, &mut out, None, Some((&a, &b)), (&fwd, &inv), out_batch);
    for pass in sched.inverse.iter().skip(1) {
        run_pass(p, pass, &mut out, None, (&fwd, &inv), out_batch);
    }
    Ok(out)
}

fn schedule<W: Coeff>(p: &NttParams<W>, log_r: Option<u32>) -> Result<LazySchedule> {
    check_radix(log_r, &polymul_kernels::names::LAZY_LOG_RADIX)?;
    LazySchedule::new::<W>(p.log_n(), log_r).ok_or(Error::InvalidN {
        n: p.n(),
        min: 1 << lazy::MIN_ROW_L,
        max: 1 << 21,
    })
}

/// The arguments of a one-tower pass of `shape` over `batch` polynomials at
/// `data` (no second operand, one polynomial per row block): what the
/// cluster and fused emulations give each of their two passes.
fn whole_pass_args<W: Coeff>(
    p: &NttParams<W>,
    data: *mut W,
    (fwd, inv): (&[ShoupPair<W>], &[ShoupPair<W>]),
    batch: usize,
    shape: lazy::Shape,
) -> PassArgs<W> {
    PassArgs {
        data,
        tw: fwd.as_ptr(),
        tw_inv: inv.as_ptr(),
        q: p.q(),
        log_n: p.log_n(),
        subs: (batch << (p.log_n() - shape.l)) as u32,
        b: std::ptr::null(),
        barrett: *p.barrett(),
        log_polys: 0,
        ta: std::ptr::null(),
        tb: std::ptr::null(),
    }
}

/// Runs one pass kernel over the batch, block by block, step by step, as
/// its launch would: a forward pass with a second operand `b` over twice
/// the blocks (both operands), the product pass with `b` as its second
/// operand, each thread's held registers kept across the steps.
fn run_pass<W: Coeff>(
    p: &NttParams<W>,
    pass: &LazyPass,
    data: &mut [W],
    b: Option<&mut [W]>,
    (fwd, inv): (&[ShoupPair<W>], &[ShoupPair<W>]),
    batch: usize,
) {
    run_pass_from(p, pass, data, b, None, (fwd, inv), batch)
}

/// [`run_pass`] with a tensor source (`ta`, `tb`: the tensor-source
/// inverse row pass, `pass.kernel.tensor`; `data` holds `3/2` of their
/// words).
fn run_pass_from<W: Coeff>(
    p: &NttParams<W>,
    pass: &LazyPass,
    data: &mut [W],
    b: Option<&mut [W]>,
    source: Option<(&[W], &[W])>,
    (fwd, inv): (&[ShoupPair<W>], &[ShoupPair<W>]),
    batch: usize,
) {
    let (log_n, shape) = (p.log_n(), pass.shape);
    let pair = b.is_some() && pass.kernel.mode == lazy::FORWARD;
    let args = PassArgs {
        data: data.as_mut_ptr(),
        tw: fwd.as_ptr(),
        tw_inv: inv.as_ptr(),
        q: p.q(),
        log_n,
        subs: pass.subs(log_n, batch),
        b: b.map_or(std::ptr::null(), |b| b.as_mut_ptr().cast_const()),
        barrett: *p.barrett(),
        log_polys: pass.log_polys(log_n, batch),
        ta: source.map_or(std::ptr::null(), |s| s.0.as_ptr()),
        tb: source.map_or(std::ptr::null(), |s| s.1.as_ptr()),
    };
    let mut tile =
        vec![W::zero(); lazy::pass_smem_words(shape, pass.kernel.mode, std::mem::size_of::<W>()) as usize];
    let s = HostShared(tile.as_mut_ptr());
    let mut held = vec![[W::zero(); lazy::MAX_HELD]; shape.threads() as usize];
    // A latency kernel's prefetched twiddles, per thread (`lazy::step_latency`).
    let latency = pass.kernel.latency;
    let mut pre = vec![lazy::Prefetch::<W>::new(); if latency { shape.threads() as usize } else { 0 }];
    let blocks = pass.blocks(log_n, batch) * if pair { 2 } else { 1 };
    for blk in 0..blocks {
        let (args, blk) =
            if pass.kernel.mode == lazy::FORWARD { args.pair_operand(shape, blk) } else { (args, blk) };
        for e in 0..pass.steps::<W>() {
            for (t, h) in (0..shape.threads()).zip(held.iter_mut()) {
                let pre = pre.get_mut(t as usize);
                // SAFETY: the `# Safety` of `lazy::step` (polymul-kernels
                // `ntt/lazy/pass.rs`): `args` covers `data`, `batch · N` words
                // below `q` (the callers `transform`, `transform_lazy_latency`,
                // `product_on` ran `check_batch`), and `b` (a pair or product
                // pass) of the same length (`product_on` checks
                // `a.len() == b.len()`); the tables are `tables` /
                // `product_tables` of the schedule `pass` belongs to; `s` holds
                // `pass_smem_words(shape, mode)` words; `blk` below the pass's
                // block count (twice for a pair, split by `pair_operand`);
                // `t < shape.threads()`, `h` that thread's registers.
                // A computed-row kernel (`pass.kernel.computed`) has the
                // computed tables (`tables` of a schedule with
                // `computed_rows`, which sets it).
                // A latency kernel's `pre` is that thread's, kept across the steps.
                // A tensor-source pass (`pass.kernel.tensor`, only from
                // `tensor_lazy`) has `ta` and `tb`: `2/3` of `data`'s words
                // each, the forward transforms' (reduced), apart from `data`.
                unsafe {
                    use lazy::{FORWARD as F, INVERSE as I, PRODUCT as P, step_latency, step_with};
                    if pass.kernel.tensor && source.is_some() {
                        lazy::step_tensor::<W, _>(shape, &args, &s, h, blk, t, e);
                        continue;
                    }
                    match (pass.kernel.mode, pass.kernel.computed, pre) {
                        (F, _, Some(pre)) => step_latency::<W, _, F>(shape, &args, &s, h, pre, blk, t, e),
                        (I, _, Some(pre)) => step_latency::<W, _, I>(shape, &args, &s, h, pre, blk, t, e),
                        (_, _, Some(pre)) => step_latency::<W, _, P>(shape, &args, &s, h, pre, blk, t, e),
                        (F, false, None) => step_with::<W, _, F, false>(shape, &args, &s, h, blk, t, e),
                        (I, false, None) => step_with::<W, _, I, false>(shape, &args, &s, h, blk, t, e),
                        (_, false, None) => step_with::<W, _, P, false>(shape, &args, &s, h, blk, t, e),
                        (F, true, None) => step_with::<W, _, F, true>(shape, &args, &s, h, blk, t, e),
                        (I, true, None) => step_with::<W, _, I, true>(shape, &args, &s, h, blk, t, e),
                        (_, true, None) => step_with::<W, _, P, true>(shape, &args, &s, h, blk, t, e),
                    }
                }
            }
        }
    }
}

/// The one-pass cluster kernels (`polymul_kernels::ntt::cluster`) as the GPU
/// runs them: per polynomial, every block of the cluster runs its first
/// pass (handing its words to the other blocks' tiles), then every block its
/// second. Equal to [`crate::expert::emulation::forward`] (or, with `inverse`,
/// [`crate::expert::emulation::inverse`]) bit for bit.
///
/// # Errors
/// [`Error::InvalidN`] for an N without cluster kernels (only 2^16), and
/// those of [`forward_lazy`].
pub fn transform_cluster<W: Coeff>(p: &NttParams<W>, data: &mut [W], inverse: bool) -> Result<()> {
    use polymul_kernels::ntt::cluster::{ClusterShape, SHAPES, ToCols, ToRows};
    use polymul_kernels::smem::HostCluster;
    let batch = p.check_batch("data", data)?;
    let log_n = p.log_n();
    let &(_, l1, log_cs) = SHAPES.iter().find(|s| s.0 == log_n).ok_or(Error::InvalidN {
        n: p.n(),
        min: 1 << SHAPES[0].0,
        max: 1 << SHAPES[0].0,
    })?;
    let sched = schedule(p, None)?;
    let (fwd, inv) = tables(p, &sched)?;
    let c = ClusterShape::new(log_n, l1, log_cs, sched.row_shape().log_r);
    let w = std::mem::size_of::<W>();
    let cs = c.cluster_blocks() as usize;
    let mut col_tiles = vec![vec![W::zero(); c.col.smem_words(w) as usize]; cs];
    let mut row_tiles = vec![vec![W::zero(); c.row.smem_words(w) as usize]; cs];
    let ptr = data.as_mut_ptr();
    let args = |shape| whole_pass_args(p, ptr, (&fwd, &inv), batch, shape);
    let (cargs, rargs) = (args(c.col), args(c.row));
    for poly in 0..batch as u32 {
        let col_ptrs: Vec<*mut W> = col_tiles.iter_mut().map(|t| t.as_mut_ptr()).collect();
        let row_ptrs: Vec<*mut W> = row_tiles.iter_mut().map(|t| t.as_mut_ptr()).collect();
        // First pass of every block, into the other pass's tiles.
        for rank in 0..cs as u32 {
            let blk = poly * cs as u32 + rank;
            let (shape, a, own) = if inverse {
                (c.row, &rargs, row_ptrs[rank as usize])
            } else {
                (c.col, &cargs, col_ptrs[rank as usize])
            };
            let s = HostShared(own);
            for e in 0..shape.steps() {
                for t in 0..c.threads() {
                    // SAFETY: the `# Safety` of `lazy::step_io` (polymul-kernels
                    // `ntt/lazy/pass.rs`) and of the cluster sinks (`ToCols` /
                    // `ToRows`, `ntt/cluster.rs`): `cargs` and `rargs` are
                    // `whole_pass_args` over `data`, `batch · N` words below `q`
                    // (`check_batch` above), with this schedule's tables; the
                    // shapes are `ClusterShape::new`'s for an N of `SHAPES`
                    // (checked above); every tile holds its shape's `smem_words`,
                    // one per rank; `blk = poly · cs + rank < batch · cs`;
                    // `t < c.threads()`; the first pass reads global memory.
                    unsafe {
                        if inverse {
                            let sink = ToCols { tiles: HostCluster { tiles: &col_ptrs }, shape: c };
                            lazy::step_io::<W, _, _, { lazy::INVERSE }>(shape, a, &s, &sink, true, blk, t, e)
                        } else {
                            let sink = ToRows {
                                tiles: HostCluster { tiles: &row_ptrs },
                                shape: c,
                                log_pad: c.row.log_pad(w),
                            };
                            lazy::step_io::<W, _, _, { lazy::FORWARD }>(shape, a, &s, &sink, true, blk, t, e)
                        }
                    }
                }
            }
        }
        // The cluster barrier, then every block's second pass from its tile.
        for rank in 0..cs as u32 {
            let blk = poly * cs as u32 + rank;
            let (shape, a, own) = if inverse {
                (c.col, &cargs, col_ptrs[rank as usize])
            } else {
                (c.row, &rargs, row_ptrs[rank as usize])
            };
            let s = HostShared(own);
            for e in 0..shape.steps() {
                for t in 0..c.threads() {
                    // SAFETY: as above; the second pass reads its own tile, which
                    // holds the block's words: every rank's first pass, run above
                    // (the cluster barrier), wrote them through the sink.
                    unsafe {
                        if inverse {
                            lazy::step_io::<W, _, _, { lazy::INVERSE }>(
                                shape,
                                a,
                                &s,
                                &lazy::ToGlobal,
                                false,
                                blk,
                                t,
                                e,
                            )
                        } else {
                            lazy::step_io::<W, _, _, { lazy::FORWARD }>(
                                shape,
                                a,
                                &s,
                                &lazy::ToGlobal,
                                false,
                                blk,
                                t,
                                e,
                            )
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! The computed row twiddles (`LazySchedule::computed_rows`): the
    //! emulated kernels with them against the radix-2 reference, the
    //! schoolbook product and the table path, bit for bit.

    use super::*;
    use crate::cpu::emulation;
    use crate::random::SplitMix64;

    /// `s` with computed row twiddles in every row pass, whether or not
    /// its kernels have computed variants (`LazySchedule::with_computed_rows`
    /// asks for those): the emulation runs any shape.
    fn forced(mut s: LazySchedule) -> LazySchedule {
        for p in s.forward.iter_mut().chain(s.inverse.iter_mut()).chain([&mut s.product]) {
            p.kernel.computed = !p.kernel.strided;
        }
        LazySchedule { computed_rows: true, ..s }
    }

    /// A batch of three: random, all `q − 1`, sparse edge values (0, 1, q − 1).
    fn inputs<W: Coeff>(n: usize, q: W, rng: &mut SplitMix64) -> Vec<W> {
        let mut v = rng.coeffs(n, q);
        v.extend(std::iter::repeat_n(q - W::one(), n));
        let mut edge = vec![W::zero(); n];
        edge[0] = q - W::one();
        edge[n - 1] = W::one();
        edge[n / 2] = q - W::one();
        v.extend(edge);
        v
    }

    /// The computed tables reproduce every plain pair a row pass reads:
    /// `pair_times(lo[e mod 2^m], hi[e >> m])` is pair `i` (`e` = `i`
    /// bit-reversed) of both directions, for every `i` in `2..N`.
    fn check_tables<W: Coeff>(log_n: u32, bits: u32) {
        use polymul_kernels::arith::harvey::{PairFactor, pair_times};
        let p = NttParams::<W>::with_prime_bits(1 << log_n, bits).unwrap();
        let sched = forced(schedule(&p, None).unwrap());
        let (fwd, inv) = tables(&p, &sched).unwrap();
        assert_eq!((fwd.len(), inv.len()), (sched.table_pairs(), sched.table_pairs()));
        for t in [&fwd, &inv] {
            for i in 2..1u32 << log_n {
                let e = lazy::twiddle_exponent(i, log_n);
                let (lo, hi) = lazy::computed_row_index(log_n, e);
                let got = pair_times(t[lo].w, PairFactor::from_pairs(t[hi], t[hi + 1]), p.q());
                assert_eq!(got, t[i as usize], "2^{log_n} {bits}-bit pair {i}");
            }
        }
    }

    #[test]
    fn computed_tables_reproduce_every_row_pair() {
        for log_n in [3, 4, 10, 13, 16] {
            check_tables::<u32>(log_n, 30);
            check_tables::<u64>(log_n, 62);
        }
        check_tables::<u64>(11, 40);
    }

    /// Forward, inverse and the product with computed row twiddles equal the
    /// radix-2 reference and the table path bit for bit.
    fn check_sizes<W: Coeff>(log_ns: &[u32], bits: u32) {
        for &log_n in log_ns {
            let n = 1usize << log_n;
            let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
            let mut rng = SplitMix64::new(u64::from(log_n) << 8 | u64::from(bits));
            let x = inputs(n, p.q(), &mut rng);
            let y = inputs(n, p.q(), &mut rng);
            let mut want = x.clone();
            emulation::forward(&p, &mut want).unwrap();
            let mut want_inv = x.clone();
            emulation::inverse(&p, &mut want_inv).unwrap();
            let want_mul = emulation::polymul(&p, &x, &y).unwrap();
            let radices: &[Option<u32>] =
                if log_n >= 4 { &[None, Some(3), Some(4)] } else { &[None, Some(3)] };
            for &log_r in radices {
                let sched = schedule(&p, log_r).unwrap();
                // `forced`: the computed path emulated also where no kernel
                // of it is compiled (small N, other radices).
                for computed in [true, false] {
                    let s = if computed { forced(sched.clone()) } else { sched.clone() };
                    let tag = format!("u{} 2^{log_n} r{log_r:?} computed={computed}", W::BITS);
                    let mut got = x.clone();
                    transform_on(&p, &mut got, &s, false, 3).unwrap();
                    assert_eq!(got, want, "forward {tag}");
                    let mut got = x.clone();
                    transform_on(&p, &mut got, &s, true, 3).unwrap();
                    assert_eq!(got, want_inv, "inverse {tag}");
                    assert_eq!(product_on(&p, &x, &y, &s).unwrap(), want_mul, "polymul {tag}");
                }
            }
        }
    }

    #[test]
    fn computed_rows_match_the_reference_u32() {
        check_sizes::<u32>(&[3, 5, 8, 10, 11, 12, 13, 14, 15, 16], 30);
    }

    #[test]
    fn computed_rows_match_the_reference_u64() {
        check_sizes::<u64>(&[3, 5, 8, 10, 11, 12, 13, 14, 15, 16], 62);
    }

    #[test]
    fn computed_rows_match_the_reference_at_2_17() {
        check_sizes::<u32>(&[17], 30);
        check_sizes::<u64>(&[17], 62);
    }

    #[test]
    fn computed_rows_polymul_matches_the_schoolbook_product() {
        for log_n in [5u32, 9, 10] {
            let n = 1usize << log_n;
            let p = NttParams::<u64>::with_prime_bits(n, 62).unwrap();
            let mut rng = SplitMix64::new(77 + u64::from(log_n));
            let (a, b) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
            let want = crate::cpu::negacyclic_naive(&a, &b, p.q()).unwrap();
            let s = forced(schedule(&p, None).unwrap());
            assert_eq!(product_on(&p, &a, &b, &s).unwrap(), want, "u64 2^{log_n}");
            let p = NttParams::<u32>::with_prime_bits(n, 30).unwrap();
            let (a, b) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
            let wide = |v: &[u32]| v.iter().map(|&x| x as u64).collect::<Vec<_>>();
            let want = crate::cpu::negacyclic_naive(&wide(&a), &wide(&b), p.q() as u64).unwrap();
            let s = forced(schedule(&p, None).unwrap());
            assert_eq!(wide(&product_on(&p, &a, &b, &s).unwrap()), want, "u32 2^{log_n}");
        }
    }

    /// RNS products of the two bases of the issue (20 × 62-bit on `u64`,
    /// 42 × 30-bit on `u32`), tower by tower with computed row twiddles,
    /// against the CPU's RNS product: as an `RnsPlan` asked for them runs
    /// them at N = 2^16 (the size with computed kernels), forced at other
    /// sizes (the emulation runs the computed path at any size).
    fn check_rns<W: Coeff>(log_n: u32, bits: u32, towers: usize) {
        let n = 1usize << log_n;
        let basis = crate::rns::RnsBasis::<W>::new(n, bits, towers).unwrap();
        let mut rng = SplitMix64::new(u64::from(bits) * 31 + towers as u64);
        let res = |rng: &mut SplitMix64| -> Vec<W> {
            basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect()
        };
        let (mut a, b) = (res(&mut rng), res(&mut rng));
        // Edge operands in the first tower: all q − 1.
        a[..n].fill(basis.towers()[0].q() - W::one());
        let want = emulation::rns_polymul(&basis, &a, &b).unwrap();
        for (i, p) in basis.towers().iter().enumerate() {
            let plain = schedule(p, None).unwrap();
            let s = plain.clone().with_computed_rows::<W>(true);
            // Kernels exist for the row passes of N = 2^16 only.
            assert_eq!(s.computed_rows, log_n == 16, "2^{log_n}");
            let s = if s.computed_rows { s } else { forced(plain) };
            assert!(s.computed_rows && s.product.kernel.computed);
            let got = product_on(p, &a[i * n..(i + 1) * n], &b[i * n..(i + 1) * n], &s).unwrap();
            assert_eq!(got, want[i * n..(i + 1) * n], "tower {i} of {towers} x {bits}-bit, 2^{log_n}");
        }
    }

    #[test]
    fn computed_rows_rns_products() {
        check_rns::<u64>(11, 62, 20);
        check_rns::<u32>(11, 30, 42);
        check_rns::<u64>(16, 62, 2);
        check_rns::<u32>(16, 30, 2);
    }
}
