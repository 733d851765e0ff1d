//! Shared-memory NTT passes: many stages per trip through global memory.
//!
//! A transform of `N = 2^log_n` words is split at stage `l1`:
//!
//! * the **contiguous pass** runs stages `l1 .. log_n` (forward) — in those
//!   stages every butterfly stays inside one chunk of `C = N >> l1`
//!   consecutive words, so one block loads a chunk into shared memory
//!   (coalesced), runs all those stages between barriers and writes it back.
//!   With `l1 = 0` this is the whole transform in one block (LOS-NTT);
//! * the **strided pass** runs stages `0 .. l1`: there the `2^l1` words
//!   `j, j + N/2^l1, j + 2N/2^l1, …` of each column `j` form an independent
//!   `2^l1`-point transform whose twiddles do not depend on `j`. One block
//!   takes `cols` consecutive columns, so every row it loads is `cols`
//!   consecutive words (coalesced), laid out row-major in shared memory.
//!
//! Forward: strided pass, then contiguous pass. Inverse (GS, ½-scaled):
//! contiguous pass (stages `log_n−1 … l1`), then strided pass (`l1−1 … 0`).
//! Every pass is written as per-thread phases (load, one radix-`r` step of
//! `log2 r` stages, store) separated by block barriers on the GPU; the host
//! runs the same phases thread by thread. The first step may read straight
//! from global memory and the last write straight to it (see [`direct_io`]).

use super::radix2::Twiddles;
use crate::Word;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf, TowerGrid, one_tower_modulus, span};
use crate::arith::{ModMul, add_mod, half_mod, sub_mod};
use crate::gmem::Gmem;
use crate::smem::Shared;
use crate::towers::Towers;

/// The argument block of the shared-memory pass kernels
/// (`ntt_{fwd,inv}_tiled_r<R>_<reduction>_<word>`,
/// [`crate::names::TiledKernel`]): one `#[repr(C)]` value, the kernel's
/// only parameter, which the host fills field by field, so the two sides
/// cannot disagree on order or types. One block per tile (grid x =
/// `batch ·` [`TileGeometry::blocks_per_poly`], y = towers), at least
/// [`block_threads`] threads and a padded tile of dynamic shared memory.
///
/// # Invariants
///
/// What the `unsafe` blocks of `ntt_{fwd,inv}_tiled_*` rely on
/// (`N = 2^geo.log_n`):
///
/// * `towers` satisfies the invariants of [`Towers`] with
///   `data_words = batch · N`; `a` points to `rows · batch · N` words of
///   global memory, tower `y`'s each below its modulus;
/// * `tw.main` (and `tw.aux` where the reduction has auxiliary words) holds
///   `N` prepared words per tower, `towers.tw_words` apart;
/// * `geo` is a valid geometry (`l1 <= log_tile <= log_n`), the grid has
///   one block per tile (x = `batch ·` [`TileGeometry::blocks_per_poly`]),
///   the block a power of two of threads and at least
///   `padded_words(2^log_tile)` words of dynamic shared memory;
/// * `1 <= log_radix <= 4`, `stop <= log_n`;
/// * a one-tower launch's `(q, k, m)` are [`ModMul::parts`] of the
///   reduction for a modulus it accepts.
///
/// [`TiledArgs::new`] (host only) checks what it can see: the tower table
/// ([`TowerGrid`]); `geo` valid (`l1 ≤ log_tile ≤ log_n`, `1 ≤ log_n < 32`,
/// `data_words` a non-zero multiple of `N`); `a` non-null and holding the
/// `batch · N` words of the last tower, `data_words` after the previous
/// one's (a pipelined launch covers one polynomial of a bigger batch);
/// `1 ≤ log_radix ≤ 4`, `stop ≤ log_n`, `strided ≤ 1` (and `0` for a
/// geometry without a strided pass); `tw.main` (and a non-null `tw.aux`)
/// holding the `2^stop` words per tower the transform reads; a one-tower
/// modulus in `3..2^(β−1)`. The words' reduction, the tables' contents,
/// `tw.aux` being there where the reduction needs it, the constants
/// matching the kernel's reduction, the grid, threads and shared memory
/// stay the caller's.
///
/// Established by `polymul::plan::launch::tiled_passes` (host, through
/// [`TiledArgs::new`]: grid, threads, shared memory), with the geometry from `polymul::params::tile_geometry` /
/// `polymul::params::geometry_2d` that `polymul::plan::engine::NttEngine::new` checked against
/// the device's shared memory, and the buffers checked by
/// `NttEngine::batch_of` (`polymul::layout::Towers::layout_of`).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct TiledArgs<W> {
    /// The batch, tower 0's (tower `y` is `towers.data_words · y` further).
    pub(crate) a: *mut W,
    /// Tower 0's prepared twiddles of the direction, `N` words per tower.
    pub(crate) tw: Twiddles<W>,
    /// The RNS tower arguments ([`crate::towers`]).
    pub(crate) towers: Towers<W>,
    /// The transform's split and tile.
    pub(crate) geo: TileGeometry,
    /// `1`: the strided pass (stages `0..l1`); `0`: the contiguous pass
    /// (stages `l1..log_n`).
    pub(crate) strided: u32,
    /// Stages per shared-memory round trip (`log2` of the radix), clamped
    /// to the kernel's own largest radix.
    pub(crate) log_radix: u32,
    /// `1`: the pass's first step reads from and its last writes to global
    /// memory where that stays coalesced ([`direct_io`]).
    pub(crate) direct: u32,
    /// Stages run: `log_n`, or `log_n − 1` for the fused polymul's
    /// truncated transforms.
    pub(crate) stop: u32,
    /// A one-tower launch's third reduction constant (`m` of
    /// [`ModMul::parts`]; a null tower table reads `q`, `k`, `m` from here).
    pub(crate) m: u32,
    /// A one-tower launch's modulus.
    pub(crate) q: W,
    /// A one-tower launch's second reduction constant.
    pub(crate) k: W,
}

/// A tiled launch's pass choices as [`TiledArgs::new`] takes them.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TiledPass {
    /// The transform's split and tile.
    pub geo: TileGeometry,
    /// `true`: the strided pass; `false`: the contiguous pass.
    pub strided: bool,
    /// Stages per shared-memory round trip (`log2` of the radix).
    pub log_radix: u32,
    /// Direct global I/O ([`direct_io`]).
    pub direct: bool,
    /// Stages run.
    pub stop: u32,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> TiledArgs<W> {
    /// The block of one pass over `batch` polynomials per tower starting at
    /// `a` with the prepared twiddles `(main, aux)` (`aux`: [`Buf::none`] for
    /// a reduction without auxiliary words) and a one-tower launch's
    /// `(q, k, m)` ([`ModMul::parts`]). Checks what the [`TiledArgs`] docs
    /// say.
    pub fn new(
        a: Buf<W>,
        (main, aux): (Buf<W>, Buf<W>),
        grid: &TowerGrid<W>,
        batch: u64,
        pass: TiledPass,
        (q, k, m): (W, W, u32),
    ) -> Result<Self, ArgsError> {
        let geo = pass.geo;
        grid.batch(geo.log_n, 1)?;
        if geo.l1 > geo.log_tile
            || geo.log_tile > geo.log_n
            || !(1..=4).contains(&pass.log_radix)
            || pass.stop > geo.log_n
            || (pass.strided && geo.l1 == 0)
        {
            return Err(ArgsError::Size);
        }
        if batch == 0 {
            return Err(ArgsError::Count);
        }
        grid.data(&a, span(batch, 1 << geo.log_n, 0)?)?;
        let tw = grid.twiddles(&main, &aux, 1u64 << pass.stop)?;
        one_tower_modulus(grid, q, W::BITS - 1)?;
        Ok(TiledArgs {
            a: a.mut_ptr(),
            tw,
            towers: grid.towers(),
            geo,
            strided: u32::from(pass.strided),
            log_radix: pass.log_radix,
            direct: u32::from(pass.direct),
            stop: pass.stop,
            m,
            q,
            k,
        })
    }
}

/// Where a block's tile lives and how it is shaped (`#[repr(C)]`: part of
/// [`TiledArgs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct TileGeometry {
    /// `log2 N`.
    pub log_n: u32,
    /// Stages done by the strided pass (`0` when one tile holds the polynomial).
    pub l1: u32,
    /// `log2` of the words per tile.
    pub log_tile: u32,
}

impl TileGeometry {
    /// `log2` of the columns per strided tile: `log_tile − l1`.
    #[inline(always)]
    pub fn log_cols(&self) -> u32 {
        self.log_tile - self.l1
    }

    /// Blocks per polynomial (the same for both passes): `N / tile`.
    #[inline(always)]
    pub fn blocks_per_poly(&self) -> usize {
        1 << (self.log_n - self.log_tile)
    }

    /// Global index of the block's first word: where its polynomial starts
    /// plus its chunk (contiguous pass) or first column (strided pass). The
    /// only 64-bit index arithmetic of a pass; the rest are 32-bit offsets
    /// from here ([`TileGeometry::offset`]).
    #[inline(always)]
    pub fn block_base(&self, blk: usize, strided: bool) -> usize {
        let per = self.log_n - self.log_tile;
        let b = blk & ((1 << per) - 1);
        let first = if strided { b << self.log_cols() } else { b << self.log_tile };
        ((blk >> per) << self.log_n) + first
    }

    /// Offset from [`TileGeometry::block_base`] of local word `e` (row-major,
    /// `cols` words per row in the strided pass). Below `N`.
    #[inline(always)]
    pub fn offset(&self, strided: bool, e: u32) -> u32 {
        if strided {
            let lc = self.log_cols();
            ((e >> lc) << (self.log_n - self.l1)) + (e & ((1 << lc) - 1))
        } else {
            e
        }
    }

    /// Global index of local word `e` of block `blk` in the contiguous pass.
    #[inline(always)]
    pub fn contig_index(&self, blk: usize, e: usize) -> usize {
        self.block_base(blk, false) + self.offset(false, e as u32) as usize
    }

    /// Global index of local word `e` (row-major, `cols` per row) of block
    /// `blk` in the strided pass.
    #[inline(always)]
    pub fn strided_index(&self, blk: usize, e: usize) -> usize {
        self.block_base(blk, true) + self.offset(true, e as u32) as usize
    }
}

/// Copies the block's tile from global memory into shared memory (`strided`
/// chooses the pass's layout). Thread `t` of `nt` copies words `t, t+nt, …`.
///
/// # Safety
/// `g` must hold the whole batch; the tile must fit in `s`.
#[inline(always)]
pub unsafe fn load<W: Gmem, S: Shared<W>>(
    g: *const W,
    s: &S,
    geo: &TileGeometry,
    strided: bool,
    blk: usize,
    t: usize,
    nt: usize,
) {
    // SAFETY: the block's words lie inside the batch (caller).
    let gb = unsafe { g.add(geo.block_base(blk, strided)) };
    let (mut e, nt, tile) = (t as u32, nt as u32, 1u32 << geo.log_tile);
    while e < tile {
        // SAFETY: offsets inside the block's words, e inside the tile.
        unsafe { s.st(e as usize, W::ld(gb.add(geo.offset(strided, e) as usize))) };
        e += nt;
    }
}

/// Copies the tile back to global memory.
///
/// # Safety
/// As for [`load`].
#[inline(always)]
pub unsafe fn store<W: Gmem, S: Shared<W>>(
    g: *mut W,
    s: &S,
    geo: &TileGeometry,
    strided: bool,
    blk: usize,
    t: usize,
    nt: usize,
) {
    // SAFETY: the block's words lie inside the batch (caller).
    let gb = unsafe { g.add(geo.block_base(blk, strided)) };
    let (mut e, nt, tile) = (t as u32, nt as u32, 1u32 << geo.log_tile);
    while e < tile {
        // SAFETY: offsets inside the block's words, e inside the tile.
        unsafe { W::st(gb.add(geo.offset(strided, e) as usize), s.ld(e as usize)) };
        e += nt;
    }
}

/// The prepared twiddle `ti`.
///
/// # Safety
/// `ti < N` and `tw` holds `N` prepared words (and aux words if needed).
#[inline(always)]
unsafe fn twiddle<W: Gmem, R: ModMul<W>>(tw: Twiddles<W>, ti: u32) -> R::Op {
    // SAFETY: `ti < N` and `tw` holds `N` prepared words (and auxiliary words if `R` needs them):
    // this function's contract, which `tiled::level` establishes.
    unsafe { tw.get::<R>(ti as usize) }
}

/// One butterfly: merged CT (forward) or ½-scaled merged GS (inverse).
#[inline(always)]
fn butterfly<W: Word, R: ModMul<W>>(u: W, v: W, xi: R::Op, inverse: bool, red: &R) -> (W, W) {
    let q = red.q();
    if inverse {
        (half_mod(add_mod(u, v, q), q), half_mod(red.mul(sub_mod(u, v, q), xi), q))
    } else {
        let v = red.mul(v, xi);
        (add_mod(u, v, q), sub_mod(u, v, q))
    }
}

/// How stage `log_m` looks inside the tile: `(log_k, row_shift, group_base)`
/// — the butterfly distance (in rows of the strided layout, or words),
/// `log2` of the words per row, and the index of the tile's first group.
#[inline(always)]
fn stage_shape(geo: &TileGeometry, blk: usize, log_m: u32) -> (u32, u32, u32) {
    if log_m < geo.l1 {
        (geo.l1 - 1 - log_m, geo.log_cols(), 0)
    } else {
        let per = geo.log_n - geo.log_tile;
        let chunk = (blk & ((1 << per) - 1)) as u32;
        // The tile starts at word `chunk · tile` of its polynomial; stage
        // `log_m`'s groups are `2^(log_n − log_m)` words wide.
        (geo.log_n - 1 - log_m, 0, (chunk << geo.log_tile) >> (geo.log_n - log_m))
    }
}

/// Where a step's words come from and go to: the shared tile, or straight
/// from / to global memory (skipping a shared-memory round trip).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepIo {
    /// Read the unit's words from global memory (first step of a pass).
    pub from_global: bool,
    /// Write the unit's words to global memory (last step of a pass).
    pub to_global: bool,
}

impl StepIo {
    /// Shared memory in, shared memory out.
    pub const SHARED: StepIo = StepIo { from_global: false, to_global: false };
}

/// A radix-`R` step: `log2 R` consecutive stages from `log_m` (same pass) at
/// once. Each unit's `R` words stay in registers for all of them, so the
/// tile makes one shared-memory round trip (and the block one barrier) per
/// `log2 R` stages. Forward runs `log_m` upward; inverse the reverse. Thread
/// `t` of `nt` does units `t, t+nt, …` of the `tile/R`.
///
/// A unit of group `i` (of stage `log_m`, distance `K`) holds the rows
/// `j0 + x·h`, `x < R`, `h = 2K/R`; in the level for stage `log_m + d` its
/// registers form `2^d` sub-groups whose twiddles are consecutive.
///
/// # Safety
/// The tile must be loaded for the pass that owns the stages (or `io`
/// reads them from `g`, the whole batch); `tw` must hold `N` prepared
/// twiddles; `log_m + log2 R` must not pass the end of the pass.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn group<W: Gmem, R: ModMul<W>, S: Shared<W>, const RADIX: usize>(
    g: *mut W,
    s: &S,
    tw: Twiddles<W>,
    geo: &TileGeometry,
    blk: usize,
    (log_m, io): (u32, StepIo),
    inverse: bool,
    t: usize,
    nt: usize,
    red: &R,
) {
    let k = RADIX.trailing_zeros();
    let (log_k, row_shift, base) = stage_shape(geo, blk, log_m);
    // Unit spacing in rows: h = 2K / R.
    let log_h = log_k + 1 - k;
    let units = 1u32 << (geo.log_tile - k);
    let strided = log_m < geo.l1;
    // Global rows are N / 2^l1 words apart in the strided pass; in the
    // contiguous pass a row is a word.
    let log_row_stride = if strided { geo.log_n - geo.l1 } else { 0 };
    // SAFETY: the block's words lie inside the batch (caller).
    let gb = unsafe { g.add(geo.block_base(blk, strided)) };
    let (mut p, nt) = (t as u32, nt as u32);
    while p < units {
        let (u, cc) = (p >> row_shift, p & ((1 << row_shift) - 1));
        let i = u >> log_h;
        let j0 = (i << (log_k + 1)) | (u & ((1 << log_h) - 1));
        let row = |x: usize| j0 + ((x as u32) << log_h);
        let pos = |x: usize| ((row(x) << row_shift) + cc) as usize;
        let goff = |x: usize| ((row(x) << log_row_stride) + cc) as usize;
        let mut a = [W::zero(); RADIX];
        // SAFETY: positions inside the tile, global offsets inside the
        // block's words, twiddle indices < N (caller).
        unsafe {
            if io.from_global {
                for (x, v) in a.iter_mut().enumerate() {
                    *v = W::ld(gb.add(goff(x)));
                }
            } else {
                for (x, v) in a.iter_mut().enumerate() {
                    *v = s.ld(pos(x));
                }
            }
            // Levels as const generics, so every register index is a
            // constant after inlining (a run-time level would put `a` in
            // local memory).
            let first = |d: u32| {
                let base_d = if d == 0 { base } else { stage_shape(geo, blk, log_m + d).2 };
                (1u32 << (log_m + d)) + base_d + (i << d)
            };
            if inverse {
                level::<W, R, RADIX, 3>(&mut a, tw, &first, true, red);
                level::<W, R, RADIX, 2>(&mut a, tw, &first, true, red);
                level::<W, R, RADIX, 1>(&mut a, tw, &first, true, red);
                level::<W, R, RADIX, 0>(&mut a, tw, &first, true, red);
            } else {
                level::<W, R, RADIX, 0>(&mut a, tw, &first, false, red);
                level::<W, R, RADIX, 1>(&mut a, tw, &first, false, red);
                level::<W, R, RADIX, 2>(&mut a, tw, &first, false, red);
                level::<W, R, RADIX, 3>(&mut a, tw, &first, false, red);
            }
            if io.to_global {
                for (x, v) in a.iter().enumerate() {
                    W::st(gb.add(goff(x)), *v);
                }
            } else {
                for (x, v) in a.iter().enumerate() {
                    s.st(pos(x), *v);
                }
            }
        }
        p += nt;
    }
}

/// Level `D` of a radix-`RADIX` unit (stage `log_m + D`): `2^D` sub-groups
/// of `RADIX / 2^D` registers, sub-group `b` using twiddle `first(D) + b`.
/// A no-op when `2^D >= RADIX`.
///
/// # Safety
/// `first + 2^D <= N` when the level runs.
#[inline(always)]
unsafe fn level<W: Gmem, R: ModMul<W>, const RADIX: usize, const D: u32>(
    a: &mut [W; RADIX],
    tw: Twiddles<W>,
    first: &impl Fn(u32) -> u32,
    inverse: bool,
    red: &R,
) {
    if (1usize << D) >= RADIX {
        return;
    }
    let first = first(D);
    let (span, width) = (RADIX >> (D + 1), RADIX >> D);
    for b in 0..1usize << D {
        // SAFETY: twiddle index < N (caller).
        let xi = unsafe { twiddle::<W, R>(tw, first + b as u32) };
        for x in 0..span {
            let x = b * width + x;
            (a[x], a[x + span]) = butterfly(a[x], a[x + span], xi, inverse, red);
        }
    }
}

/// The steps that run stages `lo .. hi` of a pass with radix at most
/// `2^log_radix`: `(log_m, log2 r)` — `r` consecutive stages from `log_m`
/// at once. The stages are split into `⌈(hi − lo) / log_radix⌉` steps as
/// evenly as possible (wider steps first); forward goes up from `lo`,
/// inverse down from `hi − 1`. A block barrier follows every step.
#[inline(always)]
pub fn steps(
    lo: u32,
    hi: u32,
    inverse: bool,
    log_radix: u32,
) -> impl ExactSizeIterator<Item = (u32, u32)> + Clone {
    let n = hi - lo;
    let lr = log_radix.max(1);
    let count = n.div_ceil(lr);
    // `count` steps: the first `extra` take `small + 1` stages.
    let (small, extra) = (n.checked_div(count).unwrap_or(0), n.checked_rem(count).unwrap_or(0));
    let size = move |s: u32| small + u32::from(s < extra);
    // Stages before step `s` (in the direction of travel).
    let before = move |s: u32| s * small + s.min(extra);
    (0..count).map(move |s| {
        let k = size(s);
        if inverse { (hi - before(s) - k, k) } else { (lo + before(s), k) }
    })
}

/// Runs one step of [`steps`] for thread `t` of `nt`: a radix-`2^k` group
/// of [`group`].
///
/// # Safety
/// As for [`group`]; `1 <= k <= MAX_LOG_RADIX <= 4` (the steps come from
/// [`steps`] with `log_radix <= MAX_LOG_RADIX`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn step<W: Gmem, R: ModMul<W>, S: Shared<W>, const MAX_LOG_RADIX: u32>(
    g: *mut W,
    s: &S,
    tw: Twiddles<W>,
    geo: &TileGeometry,
    blk: usize,
    (log_m, k, io): (u32, u32, StepIo),
    inverse: bool,
    t: usize,
    nt: usize,
    red: &R,
) {
    let st = (log_m, io);
    // Only units up to `MAX_LOG_RADIX` are compiled in: a kernel's
    // registers are those of its widest unit.
    let k = k.min(MAX_LOG_RADIX);
    // SAFETY: the contract of `group` holds: it is this function's (its `# Safety`), established by
    // its caller; `k` is `1..=MAX_LOG_RADIX` by `steps`.
    unsafe {
        match k {
            4 => group::<W, R, S, 16>(g, s, tw, geo, blk, st, inverse, t, nt, red),
            3 => group::<W, R, S, 8>(g, s, tw, geo, blk, st, inverse, t, nt, red),
            2 => group::<W, R, S, 4>(g, s, tw, geo, blk, st, inverse, t, nt, red),
            _ => group::<W, R, S, 2>(g, s, tw, geo, blk, st, inverse, t, nt, red),
        }
    }
}

/// Which steps of a pass may skip shared memory: the first may read from
/// global memory and the last write to it when every warp access stays
/// coalesced — when a thread run of consecutive words covers at least
/// `min_run` words (one 32-byte sector). Returns `(first, last)`.
#[inline(always)]
pub fn direct_io(
    geo: &TileGeometry,
    strided: bool,
    first: (u32, u32),
    last: (u32, u32),
    min_run: usize,
) -> (bool, bool) {
    // Contiguous run of words that consecutive threads touch in one access.
    let run = |(log_m, k): (u32, u32)| -> usize {
        if strided {
            1 << geo.log_cols()
        } else {
            // Unit spacing h = 2K/R of the group's first (widest) stage.
            1 << (geo.log_n - log_m - k)
        }
    };
    (run(first) >= min_run, run(last) >= min_run)
}

/// The threads a block of a tiled pass runs with: one per radix-`2^log_radix`
/// unit of a `2^log_tile` tile, between one warp and 512.
#[inline(always)]
pub fn block_threads(log_tile: u32, log_radix: u32) -> u32 {
    (1u32 << (log_tile - log_radix.min(log_tile))).clamp(32, 512)
}

/// One phase of a block's pass; the GPU puts a block barrier after each
/// phase that [`Phase::barrier_after`] asks for, the host runs each phase for
/// every emulated thread before the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Copy the tile from global to shared memory ([`load`]).
    Load,
    /// A radix-`2^k` step `(log_m, k, io)` ([`step`]).
    Step(u32, u32, StepIo),
    /// Copy the tile back to global memory ([`store`]).
    Store,
}

impl Phase {
    /// Whether the block must synchronise before the next phase.
    #[inline(always)]
    pub fn barrier_after(&self) -> bool {
        match self {
            Phase::Load => true,
            Phase::Step(_, _, io) => !io.to_global,
            Phase::Store => false,
        }
    }
}

/// The phases of one pass (`strided`: stages `0..l1`, else `l1..stop`;
/// `stop` is `log_n` for a whole transform, `log_n − 1` for the truncated
/// ones of the fused polymul) with steps of radix at most `2^log_radix`; with
/// `direct`, the first step reads from and the last writes to global memory
/// wherever every warp access still covers a whole 32-byte sector
/// (`word_bytes` per word).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn phases(
    geo: &TileGeometry,
    strided: bool,
    inverse: bool,
    log_radix: u32,
    direct: bool,
    word_bytes: usize,
    stop: u32,
) -> impl Iterator<Item = Phase> {
    let (lo, hi) = if strided { (0, geo.l1.min(stop)) } else { (geo.l1, stop.max(geo.l1)) };
    let st = steps(lo, hi, inverse, log_radix);
    let count = st.len();
    let (df, dl) = match (st.clone().next(), st.clone().last()) {
        (Some(first), Some(last)) if direct => direct_io(geo, strided, first, last, 32 / word_bytes),
        _ => (false, false),
    };
    let load = (!df).then_some(Phase::Load);
    let store = (!dl).then_some(Phase::Store);
    let body = st.enumerate().map(move |(i, (log_m, k))| {
        Phase::Step(log_m, k, StepIo { from_global: df && i == 0, to_global: dl && i + 1 == count })
    });
    load.into_iter().chain(body).chain(store)
}

/// Runs `phase` of block `blk` for thread `t` of `nt`.
///
/// # Safety
/// `g` holds the whole batch, `s` a tile, `tw` `N` prepared twiddles, the
/// geometry is valid and the phases come from [`phases`] in order.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn run_phase<W: Gmem, R: ModMul<W>, S: Shared<W>, const MAX_LOG_RADIX: u32>(
    g: *mut W,
    s: &S,
    tw: Twiddles<W>,
    geo: &TileGeometry,
    blk: usize,
    phase: Phase,
    strided: bool,
    inverse: bool,
    t: usize,
    nt: usize,
    red: &R,
) {
    // SAFETY: `g`, `s`, `tw`, the geometry and the phase order are this function's contract (its
    // `# Safety`), established by its caller (the tiled kernels: the invariants of `TiledArgs`).
    unsafe {
        match phase {
            Phase::Load => load(g, s, geo, strided, blk, t, nt),
            Phase::Step(log_m, k, io) => {
                step::<W, R, S, MAX_LOG_RADIX>(g, s, tw, geo, blk, (log_m, k, io), inverse, t, nt, red)
            }
            Phase::Store => store(g, s, geo, strided, blk, t, nt),
        }
    }
}

/// The geometry rules: which tiles cover `N = 2^log_n` with tiles of at
/// most `2^log_max_tile` words (beside the geometry they produce; the host
/// plans and the CPU emulation both ask here).
impl TileGeometry {
    /// The tiled kernel's split: one tile if the polynomial fits, else a
    /// strided pass over the first `log_n − log_tile` stages and a
    /// contiguous pass over the rest. `None` when such tiles cannot cover
    /// `N` in two passes (or `log_max_tile = 0`).
    pub const fn tiled(log_n: u32, log_max_tile: u32) -> Option<Self> {
        let log_tile = if log_n < log_max_tile { log_n } else { log_max_tile };
        let l1 = log_n - log_tile;
        if log_tile == 0 || l1 > log_tile { None } else { Some(Self { log_n, l1, log_tile }) }
    }

    /// The 2D split: `N = n1 × n2` with `n1 = 2^⌊log_n/2⌋` rows of
    /// `n2 = N/n1` words, a column pass then a row pass, each block holding
    /// as many columns or rows as a tile takes. `None` for `N < 4` or when
    /// such tiles cannot hold a row or a column.
    pub const fn two_d(log_n: u32, log_max_tile: u32) -> Option<Self> {
        let l1 = log_n / 2;
        let log_tile = if log_n < log_max_tile { log_n } else { log_max_tile };
        if log_n < 2 || log_n - l1 > log_tile { None } else { Some(Self { log_n, l1, log_tile }) }
    }
}
