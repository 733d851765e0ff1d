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
    let q = red.q();
    let strided = log_m < geo.l1;
    // Within the tile: the butterfly distance `k` (in words of the tile),
    // and how a butterfly number maps to positions and twiddles.
    let (log_k, row_shift) = if strided {
        // Rows of `cols` words; the column transform has 2^l1 points.
        (geo.l1 - 1 - log_m, geo.log_cols())
    } else {
        (geo.log_n - 1 - log_m, 0)
    };
    let per = geo.log_n - geo.log_tile;
    let chunk = blk & ((1 << per) - 1);
    let half = 1usize << (geo.log_tile - 1);
    let mut p = t;
    while p < half {
        let (b, cc) = (p >> row_shift, p & ((1 << row_shift) - 1));
        let i = b >> log_k;
        let j = (i << (log_k + 1)) | (b & ((1 << log_k) - 1));
        let (pu, pv) = ((j << row_shift) + cc, ((j + (1 << log_k)) << row_shift) + cc);
        // Group index in the whole transform: the contiguous pass's chunk
        // holds 2^(log_m − l1) groups of this stage.
        let group = if strided { i } else { (chunk << (log_m - geo.l1)) + i };
        let ti = (1usize << log_m) + group;
        // SAFETY: positions inside the tile, twiddle index < N (caller).
        unsafe {
            let aux = if R::NEEDS_AUX { *tw.aux.add(ti) } else { W::zero() };
            let xi = R::op(*tw.main.add(ti), aux);
            let (u, v) = (s.ld(pu), s.ld(pv));
            let (x, y) = if inverse {
                (half_mod(add_mod(u, v, q), q), half_mod(red.mul(sub_mod(u, v, q), xi), q))
            } else {
                let v = red.mul(v, xi);
                (add_mod(u, v, q), sub_mod(u, v, q))
            };
            s.st(pu, x);
            s.st(pv, y);
        }
        p += nt;
    }
}
