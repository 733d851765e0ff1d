use crate::params::NttParams;
use crate::reduction::{Multiplicands, Reduction, Visitor};
use crate::{Coeff, Error, Result};
use polymul_kernels::arith::ModMul;
use polymul_kernels::ntt::radix2::{self, Twiddles};
use polymul_kernels::ntt::tiled::{self, Phase, TileGeometry};
use polymul_kernels::smem::HostShared;
use polymul_kernels::{microbench, pointwise};

/// Runs every stage of one transform with reduction `R`, calling the GPU
/// kernel's per-thread body for every thread `t < batch·N/2`.
struct Stages<'a, W> {
    p: &'a NttParams<W>,
    tw: &'a Multiplicands<W>,
    data: &'a mut [W],
    batch: usize,
    inverse: bool,
    /// Stages `0..stop` run (`log_n`: the whole transform).
    stop: u32,
}

impl<W: Coeff> Visitor<W> for Stages<'_, W> {
    type Out = ();
    fn visit<R: ModMul<W>>(self) {
        let (_, tw) = unpack::<W, R>(self.tw);
        let (log_n, threads) = (self.p.log_n(), (self.batch * self.p.n() / 2) as u32);
        let parts = self.tw.parts;
        let stop = self.stop;
        let stages: Vec<u32> = if self.inverse { (0..stop).rev().collect() } else { (0..stop).collect() };
        let words = &StageWords { a: self.data.as_mut_ptr(), tw };
        let inverse = self.inverse;
        for log_m in stages {
            // The threads `ts` of stage `log_m`, as the GPU's radix-2 kernel
            // runs them: one butterfly each, on a pair of words no other
            // thread of the stage touches.
            let run = |ts: std::ops::Range<u32>| {
                let red = R::from_parts(parts.0, parts.1, parts.2);
                let (a, tw) = (words.a, words.tw);
                for t in ts {
                    // SAFETY: the `# Safety` of `radix2::ct_butterfly` /
                    // `gs_butterfly_half` (polymul-kernels `ntt/radix2.rs`): `a` is
                    // `data`, `batch · N` words below `q` (`NttParams::check_batch`
                    // in `transform` / `fused_with`; the butterflies keep them
                    // reduced); `tw` is `Multiplicands::new` of the plan's table for
                    // the reduction `visit` dispatched on (auxiliary words where `R`
                    // needs them): N words in `transform`, the first N/2 in
                    // `fused_with`, whose stages stop below `log_n − 1` and so read
                    // only those (stage `log_m` reads twiddles below
                    // `2^(log_m + 1)`); `t < batch · N/2` (`threads`). Threads of
                    // one stage that run at once (`stage_threads`) touch disjoint
                    // pairs of words, as the GPU's threads of one launch do.
                    unsafe {
                        if inverse {
                            radix2::gs_butterfly_half(a, tw, t, log_n, log_m, &red)
                        } else {
                            radix2::ct_butterfly(a, tw, t, log_n, log_m, &red)
                        }
                    }
                }
            };
            stage_threads(threads, run);
        }
    }
}

/// `data`'s first word and the prepared twiddles of one [`Stages`] run,
/// shared by the workers of a stage.
#[derive(Clone, Copy)]
struct StageWords<W> {
    a: *mut W,
    tw: Twiddles<W>,
}

// SAFETY: the workers of one stage (`stage_threads`) write disjoint pairs of
// `a`'s words (each thread `t` its butterfly's pair, the radix-2 kernels'
// contract) and only read the twiddles, which nothing writes while `Stages`
// runs (`Multiplicands` borrowed for the whole run); `stage_threads` returns
// only when every worker of the stage is done, so stages never overlap, and
// `data` is borrowed mutably by `Stages` for the whole run.
unsafe impl<W: Send> Send for StageWords<W> {}
// SAFETY: as for `Send` above: shared references only copy the two pointers.
unsafe impl<W: Send> Sync for StageWords<W> {}

/// Butterflies (GPU threads) per task when a stage runs on several cores.
const STAGE_GRAIN: u32 = 1 << 13;

/// Runs `run` over the threads `0..threads` of one stage: on the calling
/// thread for stages below `SERIAL_WORDS` words (and under Miri), else in
/// chunks of [`STAGE_GRAIN`] on rayon's pool; returns when all are done.
/// The emulated GPU threads of a stage are independent, so any split gives
/// the same words.
fn stage_threads(threads: u32, run: impl Fn(std::ops::Range<u32>) + Sync) {
    if cfg!(miri) || (threads as usize) * 2 < super::backend::SERIAL_WORDS {
        return run(0..threads);
    }
    use rayon::prelude::*;
    (0..threads.div_ceil(STAGE_GRAIN)).into_par_iter().for_each(|c| {
        let t0 = c * STAGE_GRAIN;
        run(t0..(t0 + STAGE_GRAIN).min(threads));
    });
}

/// The reduction constants and twiddle pointers of a prepared table.
fn unpack<W: Coeff, R: ModMul<W>>(p: &Multiplicands<W>) -> (R, Twiddles<W>) {
    let (q, k, m) = p.parts;
    let aux = p.aux.as_ref().map_or(std::ptr::null(), |a| a.as_ptr());
    (R::from_parts(q, k, m), Twiddles { main: p.main.as_ptr(), aux })
}

fn transform<W: Coeff>(p: &NttParams<W>, reduction: Reduction, data: &mut [W], inverse: bool) -> Result<()> {
    let batch = p.check_batch("data", data)?;
    let table = if inverse { p.inv_twiddles() } else { p.twiddles() };
    let tw = Multiplicands::new(reduction, p.q(), table)?;
    reduction.visit::<W, _>(Stages { p, tw: &tw, data, batch, inverse, stop: p.log_n() });
    Ok(())
}

/// The fused Hadamard step on the CPU: the kernel's per-pair body.
struct Fused<'a, W> {
    p: &'a NttParams<W>,
    tw: &'a Multiplicands<W>,
    a: &'a mut [W],
    b: &'a [W],
}

impl<W: Coeff> Visitor<W> for Fused<'_, W> {
    type Out = ();
    fn visit<R: ModMul<W>>(self) {
        let (red, tw) = unpack::<W, R>(self.tw);
        let pairs = (self.a.len() / 2) as u32;
        for t in 0..pairs {
            // SAFETY: the `# Safety` of `pointwise::fused_pair_at`
            // (polymul-kernels `pointwise.rs`): `a` and `b` are `fused_with`'s
            // `fa` and `fb`, the same whole batch of reduced words (`check_batch`
            // on both and the length check there; the truncated transforms keep
            // them reduced); `t < a.len() / 2 = batch · N/2`; `tw` holds the
            // first N/2 prepared forward twiddles (`fused_with`).
            unsafe {
                pointwise::fused_pair_at(
                    self.a.as_mut_ptr(),
                    self.b.as_ptr(),
                    tw,
                    t,
                    self.p.log_n(),
                    &red,
                    self.p.barrett(),
                )
            };
        }
    }
}

/// The fused polymul of Algorithm 8 on the CPU, as a fused GPU plan runs it:
/// truncated forward transforms (last stage omitted) of `a` and `b`, the
/// Karatsuba-fused step, the truncated inverse (first stage omitted); only
/// the first half of each twiddle table is used. Equal to [`polymul_with`]
/// bit for bit. Needs N ≥ 4.
pub fn polymul_fused<W: Coeff>(p: &NttParams<W>, reduction: Reduction, a: &[W], b: &[W]) -> Result<Vec<W>> {
    fused_with(p, reduction, a, b, None)
}

/// [`polymul_fused`] with the truncated transforms run by the shared-memory
/// kernels' code (`cfg`, its `truncated` flag forced on), as a fused GPU plan
/// with a tiled or 2D kernel runs them.
pub fn polymul_fused_tiled<W: Coeff>(
    p: &NttParams<W>,
    reduction: Reduction,
    a: &[W],
    b: &[W],
    cfg: TiledConfig,
) -> Result<Vec<W>> {
    fused_with(p, reduction, a, b, Some(TiledConfig { truncated: true, ..cfg }))
}

fn fused_with<W: Coeff>(
    p: &NttParams<W>,
    reduction: Reduction,
    a: &[W],
    b: &[W],
    tiled: Option<TiledConfig>,
) -> Result<Vec<W>> {
    p.check_batch("a", a)?;
    let batch = p.check_batch("b", b)?;
    if a.len() != b.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    if p.log_n() < 2 {
        return Err(Error::InvalidN { n: p.n(), min: 4, max: crate::params::MAX_N });
    }
    let half = p.n() / 2;
    let tw = Multiplicands::new(reduction, p.q(), &p.twiddles()[..half])?;
    let itw = Multiplicands::new(reduction, p.q(), &p.inv_twiddles()[..half])?;
    let stop = p.log_n() - 1;
    let (mut fa, mut fb) = (a.to_vec(), b.to_vec());
    match tiled {
        None => {
            reduction.visit::<W, _>(Stages { p, tw: &tw, data: &mut fa, batch, inverse: false, stop });
            reduction.visit::<W, _>(Stages { p, tw: &tw, data: &mut fb, batch, inverse: false, stop });
        }
        Some(cfg) => {
            tiled_transform(p, reduction, &mut fa, cfg, false)?;
            tiled_transform(p, reduction, &mut fb, cfg, false)?;
        }
    }
    reduction.visit::<W, _>(Fused { p, tw: &tw, a: &mut fa, b: &fb });
    match tiled {
        None => reduction.visit::<W, _>(Stages { p, tw: &itw, data: &mut fa, batch, inverse: true, stop }),
        Some(cfg) => tiled_transform(p, reduction, &mut fa, cfg, true)?,
    }
    Ok(fa)
}

/// Forward merged-CT NTT of every polynomial in `data` (a batch stored back to
/// back), running the GPU kernel's per-thread body for every thread, with
/// the default reduction ([`Reduction::default`]).
pub fn forward<W: Coeff>(p: &NttParams<W>, data: &mut [W]) -> Result<()> {
    transform(p, Reduction::default(), data, false)
}

/// [`forward`] with the butterflies' products reduced by `reduction`.
pub fn forward_with<W: Coeff>(p: &NttParams<W>, reduction: Reduction, data: &mut [W]) -> Result<()> {
    transform(p, reduction, data, false)
}

/// Inverse merged-GS NTT with ½-scaling (so including the `1/N`), as the GPU
/// runs it.
pub fn inverse<W: Coeff>(p: &NttParams<W>, data: &mut [W]) -> Result<()> {
    transform(p, Reduction::default(), data, true)
}

/// [`inverse`] with the butterflies' products reduced by `reduction`.
pub fn inverse_with<W: Coeff>(p: &NttParams<W>, reduction: Reduction, data: &mut [W]) -> Result<()> {
    transform(p, reduction, data, true)
}

/// `acc[i] ← acc[i] · other[i] mod q`, as the GPU's pointwise kernel
/// (Algorithm 4).
pub fn pointwise_mul<W: Coeff>(p: &NttParams<W>, acc: &mut [W], other: &[W]) -> Result<()> {
    p.check_batch("acc", acc)?;
    p.check_batch("other", other)?;
    if acc.len() != other.len() {
        return Err(Error::LengthMismatch { what: "other", got: other.len(), expected: acc.len() });
    }
    for i in 0..acc.len() {
        let a = acc.as_mut_ptr();
        // SAFETY: the `# Safety` of `pointwise::mul_at`:
        // `i < acc.len() = other.len()` (checked above), `out` is `a` exactly,
        // and both words are below `q` (`check_batch` on both above).
        unsafe { pointwise::mul_at(a, a, other.as_ptr(), i, p.barrett()) }
    }
    Ok(())
}

/// Negacyclic product of each pair of polynomials in `a` and `b`:
/// forward, forward, pointwise, inverse (equation (2) of the SEED paper).
pub fn polymul<W: Coeff>(p: &NttParams<W>, a: &[W], b: &[W]) -> Result<Vec<W>> {
    polymul_with(p, Reduction::default(), a, b)
}

/// [`polymul`] with the transforms' products reduced by `reduction`.
pub fn polymul_with<W: Coeff>(p: &NttParams<W>, reduction: Reduction, a: &[W], b: &[W]) -> Result<Vec<W>> {
    p.check_batch("a", a)?;
    p.check_batch("b", b)?;
    if a.len() != b.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    let mut fa = a.to_vec();
    let mut fb = b.to_vec();
    forward_with(p, reduction, &mut fa)?;
    forward_with(p, reduction, &mut fb)?;
    pointwise_mul(p, &mut fa, &fb)?;
    inverse_with(p, reduction, &mut fa)?;
    Ok(fa)
}

struct Chains<'a, W> {
    ops: &'a Multiplicands<W>,
    select: bool,
    data: &'a mut [W],
    t: usize,
    iters: u32,
}

impl<W: Coeff> Visitor<W> for Chains<'_, W> {
    type Out = ();
    fn visit<R: ModMul<W>>(self) {
        let (q, k, m) = self.ops.parts;
        let red = R::from_parts(q, k, m);
        let aux = self.ops.aux.as_ref().map_or(std::ptr::null(), |a| a.as_ptr());
        let (d, main) = (self.data.as_mut_ptr(), self.ops.main.as_ptr());
        // SAFETY: the `# Safety` of `microbench::modmul_chains`: the only caller,
        // `modmul_chains` below, passes `t = 0`, 4 words of `start` (below `q`:
        // `ModMulBench::new` drew them so) and one prepared word (`main`, and
        // `aux` where the reduction has it) of the same `Multiplicands`.
        unsafe {
            if self.select {
                microbench::modmul_chains::<W, R, true>(d, main, aux, self.t, self.iters, &red)
            } else {
                microbench::modmul_chains::<W, R, false>(d, main, aux, self.t, self.iters, &red)
            }
        }
    }
}

/// The microbenchmark's thread `t` on the CPU: its four chains from `start`
/// after `iters` steps, multiplying by `ops` entry `t`.
pub(crate) fn modmul_chains<W: Coeff>(
    ops: &Multiplicands<W>,
    select: bool,
    start: &[W],
    t: usize,
    iters: u32,
) -> [W; 4] {
    let mut data = start[4 * t..4 * t + 4].to_vec();
    let one = Multiplicands {
        reduction: ops.reduction,
        parts: ops.parts,
        main: vec![ops.main[t]],
        aux: ops.aux.as_ref().map(|a| vec![a[t]]),
    };
    ops.reduction.visit::<W, _>(Chains { ops: &one, select, data: &mut data, t: 0, iters });
    [data[0], data[1], data[2], data[3]]
}

/// Runs one tiled pass (all blocks, `nt` emulated threads per block) with
/// reduction `R`: the same per-thread phases the GPU runs between barriers.
struct TiledPass<'a, W> {
    tw: &'a Multiplicands<W>,
    data: &'a mut [W],
    geo: TileGeometry,
    blocks: usize,
    strided: bool,
    inverse: bool,
    cfg: TiledConfig,
    stop: u32,
}

impl<W: Coeff> Visitor<W> for TiledPass<'_, W> {
    type Out = ();
    fn visit<R: ModMul<W>>(self) {
        let (red, tw) = unpack::<W, R>(self.tw);
        let (geo, cfg, strided, inverse) = (self.geo, self.cfg, self.strided, self.inverse);
        let w = std::mem::size_of::<W>();
        let phases: Vec<Phase> =
            tiled::phases(&geo, strided, inverse, cfg.log_radix, cfg.direct, w, self.stop).collect();
        let mut tile = vec![W::zero(); 1 << geo.log_tile];
        let s = HostShared(tile.as_mut_ptr());
        let g = self.data.as_mut_ptr();
        let nt = cfg.threads.max(1);
        for blk in 0..self.blocks {
            for &ph in &phases {
                for t in 0..nt {
                    // SAFETY: the `# Safety` of `tiled::run_phase`
                    // (polymul-kernels `ntt/tiled.rs`): `g` is `data`,
                    // `batch · N` words (`check_batch` in `tiled_transform`),
                    // covering the `blocks = batch · blocks_per_poly` tiles; `s`
                    // is `tile`, `2^log_tile` words (`HostShared` indexes logical
                    // words, no padding); `tw` holds N prepared words, or the
                    // first N/2 for `fused_with`'s truncated transforms
                    // (`stop = log_n − 1`), the only ones they read; `geo` comes
                    // from `params::tile_geometry` / `geometry_2d`
                    // (`TiledConfig::geometry`, which validate it), `log_radix`
                    // in 1..=4 (checked in `tiled_transform`), the phases from
                    // `tiled::phases` in order, every thread of a phase before
                    // the next (the barrier), `t < nt`.
                    unsafe {
                        tiled::run_phase::<W, R, _, 4>(
                            g, &s, tw, &geo, blk, ph, strided, inverse, t, nt, &red,
                        )
                    };
                }
            }
        }
    }
}

/// How the host emulates the tiled kernels: tile size, threads per block,
/// radix, direct global I/O and the split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TiledConfig {
    /// `log2` of the largest tile in words.
    pub log_max_tile: u32,
    /// Emulated threads per block (any number ≥ 1 gives the same result).
    pub threads: usize,
    /// `log2` of the largest radix: stages per shared-memory round trip (1..=4).
    pub log_radix: u32,
    /// Let a pass's first/last step read/write global memory directly.
    pub direct: bool,
    /// The balanced 2D split ([`crate::params::geometry_2d`]) instead of [`crate::params::tile_geometry`].
    pub two_d: bool,
    /// Omit the forward transform's last stage / the inverse's first (the
    /// fused polymul's truncated transforms).
    pub truncated: bool,
}

impl TiledConfig {
    /// The geometry this configuration gives for `N = 2^log_n`.
    pub fn geometry(&self, log_n: u32) -> Result<TileGeometry> {
        if self.two_d {
            crate::params::geometry_2d(log_n, self.log_max_tile)
        } else {
            crate::params::tile_geometry(log_n, self.log_max_tile)
        }
    }
}

/// The shared-memory (tiled) forward NTT exactly as the GPU runs it. Its
/// result equals [`forward_with`]'s bit for bit.
pub fn forward_tiled<W: Coeff>(
    p: &NttParams<W>,
    reduction: Reduction,
    data: &mut [W],
    cfg: TiledConfig,
) -> Result<()> {
    tiled_transform(p, reduction, data, cfg, false)
}

/// The shared-memory (tiled) inverse NTT as the GPU runs it.
pub fn inverse_tiled<W: Coeff>(
    p: &NttParams<W>,
    reduction: Reduction,
    data: &mut [W],
    cfg: TiledConfig,
) -> Result<()> {
    tiled_transform(p, reduction, data, cfg, true)
}

fn tiled_transform<W: Coeff>(
    p: &NttParams<W>,
    reduction: Reduction,
    data: &mut [W],
    cfg: TiledConfig,
    inverse: bool,
) -> Result<()> {
    let batch = p.check_batch("data", data)?;
    if !(1..=4).contains(&cfg.log_radix) {
        return Err(Error::BadRadix { radix: 1usize.checked_shl(cfg.log_radix).unwrap_or(0) });
    }
    let geo = cfg.geometry(p.log_n())?;
    let table = if inverse { p.inv_twiddles() } else { p.twiddles() };
    let tw = Multiplicands::new(reduction, p.q(), table)?;
    let blocks = batch * geo.blocks_per_poly();
    // Forward: strided pass (if any) then contiguous; inverse: the reverse.
    let order: &[bool] = match (geo.l1 > 0, inverse) {
        (false, _) => &[false],
        (true, false) => &[true, false],
        (true, true) => &[false, true],
    };
    for &strided in order {
        let stop = p.log_n() - u32::from(cfg.truncated);
        reduction.visit::<W, _>(TiledPass { tw: &tw, data, geo, blocks, strided, inverse, cfg, stop });
    }
    Ok(())
}
