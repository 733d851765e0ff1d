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
//! Every pass is written as per-thread phases (load, one stage, store)
//! separated by block barriers on the GPU; the host runs the same phases
//! thread by thread.

use super::radix2::Twiddles;
use crate::Word;
use crate::arith::{ModMul, add_mod, half_mod, sub_mod};
use crate::smem::Shared;

/// Where a block's tile lives and how it is shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileGeometry {
    /// `log2 N`.
    pub log_n: u32,
    /// Stages done by the strided pass (`0` when one tile holds the polynomial).
    pub l1: u32,
    /// `log2` of the words per tile.
    pub log_tile: u32,
}

impl TileGeometry {
    /// Global index of the first word of polynomial `poly`.
    #[inline(always)]
    fn poly_base(&self, poly: usize) -> usize {
        poly << self.log_n
    }

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

    /// Global index of local word `e` of block `blk` in the contiguous pass.
    #[inline(always)]
    pub fn contig_index(&self, blk: usize, e: usize) -> usize {
        let per = self.log_n - self.log_tile;
        self.poly_base(blk >> per) + ((blk & ((1 << per) - 1)) << self.log_tile) + e
    }

    /// Global index of local word `e` (row-major, `cols` per row) of block
    /// `blk` in the strided pass.
    #[inline(always)]
    pub fn strided_index(&self, blk: usize, e: usize) -> usize {
        let per = self.log_n - self.log_tile;
        let lc = self.log_cols();
        let (r, cc) = (e >> lc, e & ((1 << lc) - 1));
        let col0 = (blk & ((1 << per) - 1)) << lc;
        self.poly_base(blk >> per) + (r << (self.log_n - self.l1)) + col0 + cc
    }
}

/// Copies the block's tile from global memory into shared memory (`strided`
/// chooses the pass's layout). Thread `t` of `nt` copies words `t, t+nt, …`.
///
/// # Safety
/// `g` must hold the whole batch; the tile must fit in `s`.
#[inline(always)]
pub unsafe fn load<W: Word, S: Shared<W>>(
    g: *const W,
    s: &S,
    geo: &TileGeometry,
    strided: bool,
    blk: usize,
    t: usize,
    nt: usize,
) {
    let mut e = t;
    while e < 1 << geo.log_tile {
        let gi = if strided { geo.strided_index(blk, e) } else { geo.contig_index(blk, e) };
        // SAFETY: indices inside the batch and the tile (caller).
        unsafe { s.st(e, *g.add(gi)) };
        e += nt;
    }
}

/// Copies the tile back to global memory.
///
/// # Safety
/// As for [`load`].
#[inline(always)]
pub unsafe fn store<W: Word, S: Shared<W>>(
    g: *mut W,
    s: &S,
    geo: &TileGeometry,
    strided: bool,
    blk: usize,
    t: usize,
    nt: usize,
) {
    let mut e = t;
    while e < 1 << geo.log_tile {
        let gi = if strided { geo.strided_index(blk, e) } else { geo.contig_index(blk, e) };
        // SAFETY: indices inside the batch and the tile (caller).
        unsafe { *g.add(gi) = s.ld(e) };
        e += nt;
    }
}

/// The prepared twiddle `ti`.
///
/// # Safety
/// `ti < N` and `tw` holds `N` prepared words (and aux words if needed).
#[inline(always)]
unsafe fn twiddle<W: Word, R: ModMul<W>>(tw: Twiddles<W>, ti: usize) -> R::Op {
    // SAFETY: forwarded.
    unsafe {
        let aux = if R::NEEDS_AUX { *tw.aux.add(ti) } else { W::zero() };
        R::op(*tw.main.add(ti), aux)
    }
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
fn stage_shape(geo: &TileGeometry, blk: usize, log_m: u32) -> (u32, u32, usize) {
    if log_m < geo.l1 {
        (geo.l1 - 1 - log_m, geo.log_cols(), 0)
    } else {
        let per = geo.log_n - geo.log_tile;
        let chunk = blk & ((1 << per) - 1);
        // The contiguous pass's chunk holds 2^(log_m − l1) groups of this stage.
        (geo.log_n - 1 - log_m, 0, chunk << (log_m - geo.l1))
    }
}

/// One stage (`log_m`, global numbering) on the tile: thread `t` of `nt`
/// does butterflies `t, t+nt, …` of the `tile/2`; `inverse` selects the
/// ½-scaled GS butterfly.
///
/// # Safety
/// The tile must be loaded for the pass that owns stage `log_m`; `tw` must
/// hold `N` prepared twiddles.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn stage<W: Word, R: ModMul<W>, S: Shared<W>>(
    s: &S,
    tw: Twiddles<W>,
    geo: &TileGeometry,
    blk: usize,
    log_m: u32,
    inverse: bool,
    t: usize,
    nt: usize,
    red: &R,
) {
    let (log_k, row_shift, base) = stage_shape(geo, blk, log_m);
    let half = 1usize << (geo.log_tile - 1);
    let mut p = t;
    while p < half {
        let (b, cc) = (p >> row_shift, p & ((1 << row_shift) - 1));
        let i = b >> log_k;
        let j = (i << (log_k + 1)) | (b & ((1 << log_k) - 1));
        let (pu, pv) = ((j << row_shift) + cc, ((j + (1 << log_k)) << row_shift) + cc);
        // SAFETY: positions inside the tile, twiddle index < N (caller).
        unsafe {
            let xi = twiddle::<W, R>(tw, (1usize << log_m) + base + i);
            let (x, y) = butterfly(s.ld(pu), s.ld(pv), xi, inverse, red);
            s.st(pu, x);
            s.st(pv, y);
        }
        p += nt;
    }
}

/// Two consecutive stages `log_m` and `log_m + 1` (same pass) at once, radix-4
/// style: each unit's four words stay in registers between the two stages,
/// halving the shared-memory traffic and the barriers. Forward runs
/// `log_m` then `log_m + 1`; inverse the reverse. Thread `t` of `nt` does
/// units `t, t+nt, …` of the `tile/4`.
///
/// # Safety
/// As for [`stage`]; both stages must belong to the loaded pass.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn stage_pair<W: Word, R: ModMul<W>, S: Shared<W>>(
    s: &S,
    tw: Twiddles<W>,
    geo: &TileGeometry,
    blk: usize,
    log_m: u32,
    inverse: bool,
    t: usize,
    nt: usize,
    red: &R,
) {
    // Shape of the first (wider) stage; its distance k = 2^log_k >= 2.
    let (log_k, row_shift, base) = stage_shape(geo, blk, log_m);
    let (_, _, base2) = stage_shape(geo, blk, log_m + 1);
    let quarter = 1usize << (geo.log_tile - 2);
    let mut p = t;
    while p < quarter {
        let (u, cc) = (p >> row_shift, p & ((1 << row_shift) - 1));
        // Unit u of group i covers rows j0, j0 + k/2, j0 + k, j0 + 3k/2.
        let i = u >> (log_k - 1);
        let j0 = (i << (log_k + 1)) | (u & ((1 << (log_k - 1)) - 1));
        let h = 1usize << (log_k - 1);
        let pos = |r: usize| (r << row_shift) + cc;
        let (p0, p1, p2, p3) = (pos(j0), pos(j0 + h), pos(j0 + 2 * h), pos(j0 + 3 * h));
        // SAFETY: positions inside the tile, twiddle indices < N (caller).
        unsafe {
            let w_outer = twiddle::<W, R>(tw, (1usize << log_m) + base + i);
            let w_lo = twiddle::<W, R>(tw, (2usize << log_m) + base2 + 2 * i);
            let w_hi = twiddle::<W, R>(tw, (2usize << log_m) + base2 + 2 * i + 1);
            let (mut a0, mut a1, mut a2, mut a3) = (s.ld(p0), s.ld(p1), s.ld(p2), s.ld(p3));
            if inverse {
                (a0, a1) = butterfly(a0, a1, w_lo, true, red);
                (a2, a3) = butterfly(a2, a3, w_hi, true, red);
                (a0, a2) = butterfly(a0, a2, w_outer, true, red);
                (a1, a3) = butterfly(a1, a3, w_outer, true, red);
            } else {
                (a0, a2) = butterfly(a0, a2, w_outer, false, red);
                (a1, a3) = butterfly(a1, a3, w_outer, false, red);
                (a0, a1) = butterfly(a0, a1, w_lo, false, red);
                (a2, a3) = butterfly(a2, a3, w_hi, false, red);
            }
            s.st(p0, a0);
            s.st(p1, a1);
            s.st(p2, a2);
            s.st(p3, a3);
        }
        p += nt;
    }
}

/// The steps that run stages `lo .. hi` of a pass: `(log_m, pair)` where
/// `pair` means [`stage_pair`] on `log_m, log_m + 1`, else [`stage`] on
/// `log_m`. With `pairs`, two stages at a time where possible (radix-4),
/// else one (radix-2); forward goes up from `lo`, inverse down from
/// `hi − 1`. A block barrier follows every step.
#[inline(always)]
pub fn steps(lo: u32, hi: u32, inverse: bool, pairs: bool) -> impl Iterator<Item = (u32, bool)> {
    let n = hi - lo;
    let singles = if pairs { 0 } else { n };
    (0..singles).map(move |i| (if inverse { hi - 1 - i } else { lo + i }, false)).chain(
        (0..(n - singles).div_ceil(2)).map(move |i| {
            let pair = 2 * i + 1 < n;
            let done = 2 * i;
            let log_m = match (inverse, pair) {
                (false, _) => lo + done,
                (true, true) => hi - done - 2,
                (true, false) => lo,
            };
            (log_m, pair)
        }),
    )
}

/// Runs one step of [`steps`] for thread `t` of `nt`.
///
/// # Safety
/// As for [`stage`] (and [`stage_pair`] when `pair`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn step<W: Word, R: ModMul<W>, S: Shared<W>>(
    s: &S,
    tw: Twiddles<W>,
    geo: &TileGeometry,
    blk: usize,
    (log_m, pair): (u32, bool),
    inverse: bool,
    t: usize,
    nt: usize,
    red: &R,
) {
    // SAFETY: forwarded.
    unsafe {
        if pair {
            stage_pair(s, tw, geo, blk, log_m, inverse, t, nt, red)
        } else {
            stage(s, tw, geo, blk, log_m, inverse, t, nt, red)
        }
    }
}
