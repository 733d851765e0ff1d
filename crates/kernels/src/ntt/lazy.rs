//! The lazy NTT: Harvey's butterflies ([`crate::arith::harvey`]) on
//! register-resident radix-2^k units, with every shape fixed at compile time.
//!
//! A transform of `N = 2^log_n` words is one or two **passes** over global
//! memory. Each pass runs, per block, `S = 2^log_s` independent
//! **sub-transforms** of `2^l` points:
//!
//! * a **row pass** takes `S` consecutive chunks ("rows") of `2^l` words and
//!   runs the last `l` stages of the transform on each (`l = log_n`: the
//!   whole transform, one polynomial per row);
//! * a **column pass** takes `S` consecutive columns of the
//!   `2^(log_n − l) × 2^l`… view: column `c` of a polynomial is the `2^l`
//!   words `c + x · 2^(log_n − l)`, and the pass runs the first `l` stages on
//!   each column (their twiddles do not depend on the column).
//!
//! Forward: column pass (stages `0..l1`) then row pass (stages `l1..log_n`),
//! or one row pass. Inverse: the mirror, Gentleman–Sande butterflies without
//! the per-stage `½` of the other kernels: the `1/N` is folded into the last
//! stage ([`harvey::gs_last`]), so the inverse costs what the forward costs.
//!
//! Inside a pass a thread holds a radix-`2^k` unit (the `2^k` words of a
//! sub-transform that `k` consecutive stages connect) in registers, runs
//! the `k` stages and hands the words on through shared memory; the first
//! step reads them straight from global memory and the last writes them
//! straight back (both coalesced: the fastest thread index walks the
//! columns of a column pass and the words of a row). All offsets are
//! compile-time constants after inlining, so every shared-memory access is
//! one `LDS`/`STS` with an immediate offset. Values stay in `[0, 4q)`
//! (forward) or `[0, 2q)` (inverse) until the pass that finishes the
//! transform reduces them.
//!
//! Twiddles come from one table of [`ShoupPair`]s per direction: first the
//! plain `N + 1` pairs — pair `i` is `Ψ_br[i]` (or `Ψ⁻¹_br[i]`) with its
//! Shoup companion; the inverse table keeps `N⁻¹` in the unused pair 0 and
//! `Ψ⁻¹_br[1] · N⁻¹` in pair `N` — then a thread-ordered copy of the row
//! pass's twiddles past its first step ([`row_twiddle_index`]): there every
//! unit needs its own `2^k − 1` twiddles, and in the plain order a warp's
//! load would touch 32 scattered pairs.

use crate::Word;
use crate::arith::harvey::{self, ShoupPair};
use crate::arith::{Barrett4, ModMul};
use crate::gmem::Gmem;
use crate::smem::Shared;

/// Words per block tile for `word_bytes`-byte words: 32 KiB.
pub const fn tile_words(word_bytes: usize) -> u32 {
    (32 * 1024 / if word_bytes == 0 { 1 } else { word_bytes }) as u32
}

/// Largest `l` of a row pass (a row fits one block: 2^13 words).
pub const MAX_ROW_L: u32 = 13;
/// Smallest `l` of a row pass with a kernel.
pub const MIN_ROW_L: u32 = 3;
/// The `l` of the one-pass `u32` row kernels beyond [`MAX_ROW_L`]: 2^14
/// words in one 64 KiB tile, radix 16 only (1024 threads; radix 8 would
/// need 2048). One pass instead of two halves the memory traffic of a
/// memory-bound size.
pub const WIDE_ROW_L: u32 = 14;

/// The largest `log2 N` a lazy transform of `word_bytes`-byte words at
/// row radix `2^log_r` runs in one pass: the 32 KiB tile (2^12 `u64`, 2^13
/// `u32` words), or [`WIDE_ROW_L`] for `u32` at radix 16.
pub const fn one_pass_max(word_bytes: usize, log_r: u32) -> u32 {
    if word_bytes == 4 && log_r >= 4 { WIDE_ROW_L } else { tile_words(word_bytes).trailing_zeros() }
}
/// Largest `l` of a column pass (`S` columns of `2^l` words fill a 32 KiB
/// tile with at least 16 `u64` / 32 `u32` columns, 128 bytes per row).
pub const MAX_COL_L: u32 = 8;
/// Smallest `l` of a column pass with a kernel.
pub const MIN_COL_L: u32 = 5;

/// `log2` of the sub-transforms per block of the latency shapes
/// ([`Shape::latency`]): two rows or columns, so that one polynomial of
/// 2^16 words spreads over 128 blocks instead of the 8 (`u32`) or 16
/// (`u64`) of 32 KiB tiles, which left all but a few SMs idle (H100, Nsight
/// Compute without cache flush, one polynomial: the `u32` product pass of
/// 8 blocks took 11.6 µs, the `u64` one-pass 2^12 row of one block 10.7 µs).
pub const LATENCY_LOG_S: u32 = 1;

/// The `l` of the latency-shape kernels, rows and columns: the two passes
/// of N = 2^10 to 2^16.
pub const LATENCY_L: core::ops::RangeInclusive<u32> = MIN_COL_L..=MAX_COL_L;

/// The split of a latency-shape transform of `2^log_n` words: two passes
/// of `(l1, l2)` points, `l1 = ⌊log_n / 2⌋`, both in [`LATENCY_L`]; `None`
/// outside N = 2^10 to 2^16.
pub const fn latency_split(log_n: u32) -> Option<(u32, u32)> {
    let l1 = log_n / 2;
    let l2 = log_n - l1;
    if l1 >= MIN_COL_L && l2 <= MAX_COL_L { Some((l1, l2)) } else { None }
}

/// `log2` of the radix of the latency schedule's passes where the plan
/// asks for none.
pub const LATENCY_LOG_R: u32 = 2;

/// The smallest `log2 N` whose plans run the latency schedule for small
/// launches. Below, one block's one-pass transform is faster: H100, one
/// polynomial, `u32` N = 2^10 forward 4.07 µs back to back in one pass
/// against 5.48 in two latency passes (`u64`: 4.99 against 7.24); from
/// 2^12 the two passes win (`u64` N = 2^12: 10.16 against 7.78 µs).
pub const LATENCY_MIN_LOG_N: u32 = 12;

/// The compile-time shape of one pass kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// `log2` of the points of each sub-transform.
    pub l: u32,
    /// `log2` of the largest register radix (`k` of the widest step).
    pub log_r: u32,
    /// `log2` of the sub-transforms per block.
    pub log_s: u32,
    /// A column pass (`true`) or a row pass.
    pub strided: bool,
}

impl Shape {
    /// The shape of the kernel for `l`, radix `2^log_r` and `word_bytes`:
    /// as many sub-transforms as fill [`tile_words`] (at least one).
    pub const fn new(l: u32, log_r: u32, strided: bool, word_bytes: usize) -> Shape {
        let lt = tile_words(word_bytes).trailing_zeros();
        let log_s = lt.saturating_sub(l);
        let log_r = if log_r > l { l } else { log_r };
        Shape { l, log_r, log_s, strided }
    }

    /// The latency shape of the same pass: [`LATENCY_LOG_S`] sub-transforms
    /// (`log2`) per block instead of a full tile, for launches too small to
    /// give every SM a block ([`LATENCY_L`]).
    pub const fn latency(l: u32, log_r: u32, strided: bool) -> Shape {
        let log_r = if log_r > l { l } else { log_r };
        Shape { l, log_r, log_s: LATENCY_LOG_S, strided }
    }

    /// `log2` of the words of one block's tile.
    pub const fn log_tile(&self) -> u32 {
        self.l + self.log_s
    }

    /// Threads per block: one per radix-`2^log_r` unit of the tile.
    pub const fn threads(&self) -> u32 {
        1 << (self.log_tile() - self.log_r)
    }

    /// Register steps per pass: `⌈l / log_r⌉`.
    pub const fn steps(&self) -> u32 {
        self.l.div_ceil(self.log_r)
    }

    /// Forward step `j`: `(stages before it in this pass, stages in it)`;
    /// the `l` stages are split as evenly as possible, wider steps first.
    pub const fn step(&self, j: u32) -> (u32, u32) {
        let n = self.steps();
        let (small, extra) = (self.l / n, self.l % n);
        let k = small + if j < extra { 1 } else { 0 };
        let before = j * small + if j < extra { j } else { extra };
        (before, k)
    }

    /// `log2` of the words after which the row layout skips one padding word
    /// (128 bytes: a shared-memory bank row), `0` for a column pass (no
    /// padding: its warps already touch 128 consecutive bytes).
    pub const fn log_pad(&self, word_bytes: usize) -> u32 {
        if self.strided { 0 } else { (128 / word_bytes).trailing_zeros() }
    }

    /// Physical words of the tile in shared memory (padding included).
    pub const fn smem_words(&self, word_bytes: usize) -> u32 {
        let w = 1u32 << self.log_tile();
        match self.log_pad(word_bytes) {
            0 => w,
            p => w + (w >> p),
        }
    }
}

/// Pairs before the thread-ordered region of the row-pass step with `g`
/// stages before it, not counting the `N + 1` pairs of the plain table and
/// in units of `2^l1` (rows per polynomial): `Σ (2^k' − 1) · 2^g'` over the
/// earlier steps with `g' > 0`.
pub const fn row_region_before(shape: Shape, g: u32) -> u32 {
    let mut sum = 0;
    let mut j = 1;
    while j < shape.steps() {
        let (gj, kj) = shape.step(j);
        if gj >= g {
            break;
        }
        sum += ((1 << kj) - 1) << gj;
        j += 1;
    }
    sum
}

/// Pairs of one direction's table for a plan whose row pass has `shape`
/// (`l1 = log_n − shape.l` column stages before it): the plain `N + 1`
/// pairs, then the thread-ordered copy of every row-pass twiddle past the
/// pass's first step (see [`row_twiddle_index`]).
pub const fn table_pairs(shape: Shape, log_n: u32) -> usize {
    (1usize << log_n) + 1 + ((row_region_before(shape, shape.l) as usize) << (log_n - shape.l))
}

/// Where the row pass's twiddle for row `rr` of its polynomial (`rr <
/// 2^l1`), step `(g, k)` (`g > 0`), slot `2^d − 1 + b` of the unit's
/// `2^k − 1` twiddles (level `d`, sub-group `b`) and group `i < 2^g` lives:
/// `N + 1 + 2^l1 · before + (rr · (2^k − 1) + slot) · 2^g + i`. It holds the
/// plain table's pair `((2^l1 + rr) << (g + d)) + (i << d) + b`.
#[inline(always)]
pub const fn row_twiddle_index(
    shape: Shape,
    log_n: u32,
    g: u32,
    k: u32,
    rr: u32,
    slot: u32,
    i: u32,
) -> usize {
    let l1 = log_n - shape.l;
    let base = (1usize << log_n) + 1 + ((row_region_before(shape, g) as usize) << l1);
    base + ((((rr as usize) * ((1 << k) - 1) + slot as usize) << g) | i as usize)
}

/// The polynomials per row-pass block that `log_polys` asks for, as the
/// kernels use it: at most the block's `2^log_s` rows, and at least as many
/// as make the block's rows fit one polynomial's `2^l1` rows (`l1 = log_n −
/// shape.l`; a one-pass transform has one row per polynomial).
#[inline(always)]
pub const fn clamp_polys_log(shape: Shape, log_n: u32, log_polys: u32) -> u32 {
    let l1 = log_n - shape.l;
    let lo = shape.log_s.saturating_sub(l1);
    let lp = if log_polys > shape.log_s { shape.log_s } else { log_polys };
    if lp < lo { lo } else { lp }
}

/// The row (`poly · 2^l1 + rr`, `rr < 2^l1`) that sub-transform `sub` of
/// row-pass block `blk` works on, with `2^lp` polynomials per block
/// (`lp` from [`clamp_polys_log`]): the block holds rows `rr .. rr + 2^(log_s
/// − lp)` of `2^lp` consecutive polynomials, the polynomial varying fastest
/// with `sub`. Rows with the same `rr` need the same twiddles, so the
/// block's threads that work on the same place of different polynomials
/// load the same pairs (one L2 request, then L1 hits) instead of each row
/// bringing its own: the row pass of a 2^16-point `u32` transform read
/// twice as many twiddle bytes as data bytes with one polynomial per block.
/// With `lp = 0` this is `blk · 2^log_s + sub` (consecutive rows of one
/// polynomial), with `l1 = 0` one polynomial per row.
#[inline(always)]
pub const fn row_of(shape: Shape, log_n: u32, lp: u32, blk: u32, sub: u32) -> u32 {
    let l1 = log_n - shape.l;
    let lrows = shape.log_s - lp;
    let lgroups = l1 - lrows;
    let poly = ((blk >> lgroups) << lp) + (sub & ((1 << lp) - 1));
    let rr = ((blk & ((1 << lgroups) - 1)) << lrows) + (sub >> lp);
    (poly << l1) + rr
}

/// The most polynomials (`log2`) a row-pass block takes rows of where it
/// has the choice. Measured on an H100 (N = 2^16, CUDA events, one run,
/// docs/ntt.md): 4 polynomials per block against 1, `u32` forward /
/// inverse / polymul 236 / 214 / 607 → 231 / 213 / 588 µs at batch 512 and
/// 25.7 / 22.4 / 48.7 → 24.0 / 21.5 / 45.8 µs at batch 32 (`u64` at batch
/// 32: 43.4 / 43.0 / 118.8 → 42.1 / 41.6 / 116.9); a whole block of 32
/// polynomials (one row each) made the `u32` forward slower (0.436 →
/// 0.455 µs per polynomial): rows 256 KiB apart instead of runs of
/// consecutive rows.
pub const ROW_POLYS_LOG_MAX: u32 = 2;

/// `log2` of the polynomials per row-pass block a launch over `batch`
/// polynomials asks for: the most (up to [`ROW_POLYS_LOG_MAX`] and the
/// block's rows) that divide the batch, so that no block is left
/// part-empty ([`row_of`]).
pub const fn row_polys_log(shape: Shape, log_n: u32, batch: usize) -> u32 {
    let tz = if batch == 0 { 0 } else { batch.trailing_zeros() };
    clamp_polys_log(shape, log_n, if tz > ROW_POLYS_LOG_MAX { ROW_POLYS_LOG_MAX } else { tz })
}

/// Blocks of a row pass over `batch` polynomials with `2^lp` polynomials
/// per block ([`row_of`]): `⌈batch / 2^lp⌉ · 2^(l1 − log_s + lp)`.
pub const fn row_blocks(shape: Shape, log_n: u32, lp: u32, batch: usize) -> u32 {
    let l1 = log_n - shape.l;
    (batch.div_ceil(1 << lp) << (l1 + lp - shape.log_s)) as u32
}

/// What one launch of a pass works on (one tower: the entry point resolves
/// the tower's data, table and modulus).
#[derive(Debug, Clone, Copy)]
pub struct PassArgs<W> {
    /// The tower's data (`batch · N` words).
    pub data: *mut W,
    /// The tower's forward twiddle table ([`table_pairs`] pairs, see the
    /// module docs): what the forward steps read.
    pub tw: *const ShoupPair<W>,
    /// The tower's inverse twiddle table: what the inverse steps read.
    pub tw_inv: *const ShoupPair<W>,
    /// The modulus (`4q < 2^β`).
    pub q: W,
    /// `log2 N`.
    pub log_n: u32,
    /// Sub-transforms in the whole batch: rows (`batch · 2^(log_n − l)`) or
    /// columns (the same count). Units past it do nothing.
    pub subs: u32,
    /// The product pass's second operand (transformed, reduced), laid out
    /// as `data`; unused by the other passes.
    pub b: *const W,
    /// Algorithm 4's constants for `q`: the product pass's pointwise
    /// multiplication.
    pub barrett: Barrett4<W>,
    /// `log2` of the polynomials whose rows share a row-pass block
    /// ([`row_polys_log`]; clamped by [`row_of`]); column passes ignore it.
    pub log_polys: u32,
}

/// The arguments of every lazy pass kernel, passed by value as one
/// `#[repr(C)]` block: the host fills this very struct, so the two sides
/// cannot disagree on order or types.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct LaunchArgs<W> {
    /// The batch, tower after tower.
    pub data: *mut W,
    /// The forward twiddle tables, `tw_pairs` pairs per tower.
    pub tw: *const ShoupPair<W>,
    /// The inverse twiddle tables, `tw_pairs` pairs per tower.
    pub tw_inv: *const ShoupPair<W>,
    /// `TOWER_WORDS` constants per tower ([`crate::towers`]), or null for
    /// one tower (then `q` is used).
    pub moduli: *const W,
    /// Words between consecutive towers' data.
    pub data_words: u64,
    /// Pairs between consecutive towers' tables (`N + 1`).
    pub tw_pairs: u32,
    /// `log2 N`.
    pub log_n: u32,
    /// Sub-transforms per tower ([`PassArgs::subs`]).
    pub subs: u32,
    /// Algorithm 4's bit length `m` of a one-tower launch's modulus (the
    /// product pass's pointwise multiplication).
    pub qbits: u32,
    /// [`PassArgs::log_polys`].
    pub log_polys: u32,
    /// The modulus of a one-tower launch.
    pub q: W,
    /// Algorithm 4's `µ` of a one-tower launch's modulus.
    pub mu: W,
    /// The product pass's second operand, transformed (null for the other
    /// passes), laid out as `data`.
    pub b: *const W,
    /// A fused launch's control words ([`fused_ctrl_words`] per tower, all
    /// zero), null for the other kernels.
    pub ctrl: *mut u32,
    /// A fused launch's lag in polynomials ([`fused_item`]).
    pub lag: u32,
}

impl<W: Word> PassArgs<W> {
    /// The operand and block of block `blk` of a forward pass launched over
    /// two operands (`b` non-null, twice the blocks of one): the first half
    /// of the blocks transforms `data`, the second half `b` (in place). A
    /// polymul's two column passes are one launch this way, with twice the
    /// blocks in flight.
    #[inline(always)]
    pub fn pair_operand(self, shape: Shape, blk: u32) -> (PassArgs<W>, u32) {
        let blocks = self.subs.div_ceil(1 << shape.log_s);
        if self.b.is_null() || blk < blocks {
            (self, blk)
        } else {
            (PassArgs { data: self.b as *mut W, ..self }, blk - blocks)
        }
    }
}

impl<W: Word> LaunchArgs<W> {
    /// Tower `y`'s [`PassArgs`].
    ///
    /// # Safety
    /// A non-null `moduli` holds at least `y + 1` rows.
    #[inline(always)]
    pub unsafe fn tower(&self, y: u32) -> PassArgs<W> {
        use crate::towers::{MU, Q, QBITS, TOWER_WORDS};
        let (q, mu, qbits) = if self.moduli.is_null() {
            (self.q, self.mu, self.qbits)
        } else {
            // SAFETY: row y exists (caller).
            unsafe {
                let row = self.moduli.add(y as usize * TOWER_WORDS);
                (*row.add(Q), *row.add(MU), (*row.add(QBITS)).as_u64() as u32)
            }
        };
        let off = y as usize * self.data_words as usize;
        PassArgs {
            data: self.data.wrapping_add(off),
            tw: self.tw.wrapping_add(y as usize * self.tw_pairs as usize),
            tw_inv: self.tw_inv.wrapping_add(y as usize * self.tw_pairs as usize),
            q,
            log_n: self.log_n,
            subs: self.subs,
            b: self.b.wrapping_add(off),
            barrett: Barrett4 { q, mu, m: qbits },
            log_polys: self.log_polys,
        }
    }
}

/// What ticket `t` of a fused two-pass launch ([`fused_item`]) works on:
/// `(second, blk)` — block `blk` of the first pass (`second = false`) or
/// of the second. `polys` polynomials of `per_poly` blocks in each pass
/// (both passes' tiles hold the same number of words, so the counts are
/// equal, and block `blk` belongs to polynomial `blk / per_poly` in both);
/// the second pass of a polynomial trails its first by `lag` polynomials:
/// the first `lag · per_poly` tickets are first-pass blocks, then first-
/// and second-pass blocks alternate, then the remaining second-pass blocks.
/// Every second-pass block comes after all the first-pass blocks of its
/// polynomial (for `lag ≥ 1`; of its group of `2^lp` polynomials where a
/// pass holds rows of several, for `lag ≥ 2^lp`), so a block that waits for them waits only
/// for blocks that took earlier tickets, and those are running or done:
/// tickets, not `blockIdx`, order the work, so no launch order can
/// deadlock it.
#[inline(always)]
pub const fn fused_item(t: u32, polys: u32, per_poly: u32, lag: u32) -> (bool, u32) {
    let lag = if lag > polys {
        polys
    } else if lag == 0 {
        1
    } else {
        lag
    };
    let head = lag * per_poly;
    if t < head {
        return (false, t);
    }
    let u = t - head;
    let both = (polys - lag) * per_poly;
    if u < 2 * both {
        if u & 1 == 0 { (false, head + u / 2) } else { (true, u / 2) }
    } else {
        (true, u - both)
    }
}

/// The polynomials block `blk` of one pass of a fused launch works on:
/// `(first, count)`. A column pass block holds columns of one polynomial;
/// a row pass block rows of `2^lp` consecutive polynomials ([`row_of`];
/// `lp` from [`clamp_polys_log`]), `2^lp · per_poly` blocks per group.
#[inline(always)]
pub const fn fused_polys(row: bool, lp: u32, blk: u32, per_poly: u32) -> (u32, u32) {
    if row { ((blk / (per_poly << lp)) << lp, 1 << lp) } else { (blk / per_poly, 1) }
}

/// The count a polynomial's counter reaches once every first-pass block
/// that touches it is done: `per_poly`, or `2^lp · per_poly` where the first
/// pass is a row pass of `2^lp` polynomials per block (each of a group's
/// blocks touches all its polynomials).
#[inline(always)]
pub const fn fused_target(first_is_row: bool, lp: u32, per_poly: u32) -> u32 {
    if first_is_row { per_poly << lp } else { per_poly }
}

/// Blocks per polynomial of each pass of a fused launch: a polynomial's
/// words over one tile's.
pub const fn fused_per_poly(log_n: u32, word_bytes: usize) -> u32 {
    let lt = tile_words(word_bytes).trailing_zeros();
    if log_n > lt { 1 << (log_n - lt) } else { 1 }
}

/// Physical words of a fused kernel's tile: the larger of its two passes'
/// (the ticket's shared slot follows it).
pub const fn fused_smem_words(col: Shape, row: Shape, word_bytes: usize) -> u32 {
    let (a, b) = (col.smem_words(word_bytes), row.smem_words(word_bytes));
    if a > b { a } else { b }
}

/// The sizes (`log2 N`) with fused kernels for `word_bytes`-byte words:
/// the `u32` two-pass sizes (2^15 to 2^21; 2^14 is one pass), none for
/// `u64`. Measured on an H100 (docs/ntt.md): the fused `u32` transform at
/// N = 2^16, batch 512, reads and writes device memory once (134.8 MB read,
/// 114.8 MB written for 134 MB of words) and took 214.6 / 191.1 µs against
/// 234.7 / 213.8 µs for the two launches (forward / inverse); the `u64`
/// kernels, compute-bound, were 5% slower fused (525 against 501 µs).
pub const fn fused_sizes(word_bytes: usize) -> core::ops::RangeInclusive<u32> {
    if word_bytes == 4 {
        15..=21
    } else {
        #[allow(clippy::reversed_empty_ranges)] // none
        {
            1..=0
        }
    }
}

/// Words of a fused launch's control block per tower: the ticket counter,
/// the finished-block counter, then one counter per polynomial (its
/// first-pass blocks that have finished). Every launch leaves them zero.
pub const fn fused_ctrl_words(batch: usize) -> usize {
    batch + 2
}

/// The forward transform's pass kernels.
pub const FORWARD: u8 = 0;
/// The inverse transform's pass kernels.
pub const INVERSE: u8 = 1;
/// The product row pass: the forward row steps of the second operand `b`
/// (which has had only its column pass: the row pass finishes its
/// transform, and `b` is never written), whose last step keeps its words in
/// registers; then the forward steps of the row pass on `data`, the
/// pointwise product with `b`'s words held by the same threads, and the
/// inverse steps of the same row pass, with no trip through global memory
/// in between (the forward's last step and the inverse's first work on the
/// same units, so they are one step). A polymul is then the column pass of
/// both operands (one launch, [`PassArgs::pair_operand`]), this pass and
/// the inverse column pass; below the one-pass limit, this pass alone.
pub const PRODUCT: u8 = 2;

/// Words a thread holds between the product pass's steps (`b`'s transform,
/// one radix-`2^log_r` unit's worth): at most radix 16.
pub const MAX_HELD: usize = 16;

/// Whether the product pass keeps `b`'s transformed words in a second tile
/// (the pass's shared memory doubled: [`pass_smem_words`]) instead of
/// registers, for `word_bytes`-byte words. The unit's thread writes and
/// later reads the same places, so no barrier is added. For `u32`, held in
/// registers, the radix-16 pass needed 64 registers, two 512-thread blocks
/// per SM (Nsight Compute: 50% occupancy, latency-bound between its
/// barriers); in the tile it runs at 40, three blocks per SM, and a polymul
/// at N = 2^16, batch 512 took 562 instead of 588 µs (H100, docs/ntt.md).
/// For `u64` the registers stay: three blocks of 256 threads per SM
/// already, and 64 KiB tiles would allow no more.
pub const fn held_in_tile(word_bytes: usize) -> bool {
    word_bytes == 4
}

/// Words of dynamic shared memory a pass kernel of `mode` with `shape`
/// needs: [`Shape::smem_words`], twice that for a product pass that keeps
/// `b`'s words in the tile ([`held_in_tile`]).
pub const fn pass_smem_words(shape: Shape, mode: u8, word_bytes: usize) -> u32 {
    let w = shape.smem_words(word_bytes);
    if mode == PRODUCT && held_in_tile(word_bytes) { 2 * w } else { w }
}

/// Execution steps of a pass kernel of `MODE` with `shape`: `steps()`, or
/// `3·steps() − 1` for the product pass (`b`'s forward steps, then
/// `data`'s forward and inverse steps with the middle one shared).
pub const fn exec_steps(shape: Shape, mode: u8) -> u32 {
    if mode == PRODUCT { 3 * shape.steps() - 1 } else { shape.steps() }
}

/// Where a pass's last step sends its words instead of global memory: the
/// other pass's tiles in a thread-block cluster ([`super::cluster`]).
pub trait Sink<W> {
    /// Whether the pass ends in this sink (`false`: in global memory).
    const ACTIVE: bool;
    /// Sends word `y` of sub-transform `gsub` (indices as in the pass).
    ///
    /// # Safety
    /// `gsub` and `y` come from a valid pass of the sink's shape.
    unsafe fn put(&self, gsub: u32, y: u32, v: W);
}

/// The ordinary end of a pass: global memory.
#[derive(Debug, Clone, Copy)]
pub struct ToGlobal;

impl<W> Sink<W> for ToGlobal {
    const ACTIVE: bool = false;
    #[inline(always)]
    unsafe fn put(&self, _: u32, _: u32, _: W) {}
}

/// Runs execution step `e` (`0..exec_steps`) of block `blk` for thread `t`:
/// the units of this thread, read from global memory (first step) or the
/// tile, `k` stages (forward, inverse, or for the product pass's middle
/// step forward, pointwise product and inverse), written to the tile or
/// global memory (last step). The GPU puts a block barrier between
/// consecutive steps; the host runs a step for every thread of the block
/// before the next.
///
/// # Safety
/// `args` describe a valid batch and table for `shape` (`l <= log_n`, a
/// row pass with `l1 = log_n − l` and a column pass with `l` stages, a
/// table of [`table_pairs`] pairs, for `PRODUCT` a row pass and `b` a
/// transformed batch like `data`), `s` holds [`Shape::smem_words`] words,
/// `blk` is below the launch's block count and `t` below
/// [`Shape::threads`].
/// `held` is the thread's registers that live across the steps (the
/// product pass keeps `b`'s words there; the other passes ignore it).
#[inline(always)]
pub unsafe fn step<W: Gmem, S: Shared<W>, const MODE: u8>(
    shape: Shape,
    args: &PassArgs<W>,
    s: &S,
    held: &mut [W; MAX_HELD],
    blk: u32,
    t: u32,
    e: u32,
) {
    // SAFETY: forwarded.
    unsafe { exec::<W, S, ToGlobal, MODE>(shape, args, s, &ToGlobal, (true, false), held, blk, t, e) }
}

/// [`step`] with the pass's ends chosen: its first step reads global memory
/// if `from_global` (else the tile, filled by another pass's [`Sink`]) and
/// its last step writes to `sink` if that is active (else global memory).
///
/// # Safety
/// As for [`step`]; a tile the first step reads holds the pass's words in
/// its layout.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn step_io<W: Gmem, S: Shared<W>, K: Sink<W>, const MODE: u8>(
    shape: Shape,
    args: &PassArgs<W>,
    s: &S,
    sink: &K,
    from_global: bool,
    blk: u32,
    t: u32,
    e: u32,
) {
    let mut held = [W::zero(); MAX_HELD];
    // SAFETY: forwarded.
    unsafe { exec::<W, S, K, MODE>(shape, args, s, sink, (from_global, false), &mut held, blk, t, e) }
}

/// [`step`] for the second pass of a fused kernel ([`fused_item`]): its
/// first step reads global memory from L2 (`ld.global.cg`), where other
/// blocks of the same launch wrote the first pass's words (an SM's L1 may
/// hold the words that were there before).
///
/// # Safety
/// As for [`step`]; the first pass of the block's polynomial has finished
/// and its writes are visible (the fused kernels' counters).
#[inline(always)]
pub unsafe fn step_l2<W: Gmem, S: Shared<W>, const MODE: u8>(
    shape: Shape,
    args: &PassArgs<W>,
    s: &S,
    blk: u32,
    t: u32,
    e: u32,
) {
    let mut held = [W::zero(); MAX_HELD];
    // SAFETY: forwarded.
    unsafe { exec::<W, S, ToGlobal, MODE>(shape, args, s, &ToGlobal, (true, true), &mut held, blk, t, e) }
}

/// What a unit does at the ends of its step.
#[derive(Clone, Copy)]
struct Io {
    /// Reads its words from global memory (else from the tile).
    from_global: bool,
    /// Reads global memory from L2 (`ld.global.cg`): words another block
    /// of the launch wrote.
    cg: bool,
    /// The pass's last step (writes to the sink or global memory).
    last: bool,
    /// Works on `b` (the product pass's first steps) instead of `data`.
    src_b: bool,
    /// Keeps its results in the held registers instead of storing them
    /// (`b`'s last forward step).
    keep: bool,
    /// Multiplies by the held registers (the product pass's middle step).
    use_held: bool,
}

/// [`step`] and [`step_io`] in one: execution step `e` with the held
/// registers.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn exec<W: Gmem, S: Shared<W>, K: Sink<W>, const MODE: u8>(
    shape: Shape,
    args: &PassArgs<W>,
    s: &S,
    sink: &K,
    (from_global, cg): (bool, bool),
    held: &mut [W; MAX_HELD],
    blk: u32,
    t: u32,
    e: u32,
) {
    let n = shape.steps();
    // The product pass runs `b`'s forward steps first (e < n), then
    // `data`'s from e = n on.
    let b_steps = MODE == PRODUCT && e < n;
    let ed = if MODE == PRODUCT && !b_steps { e - n } else { e };
    // Forward step index (the inverse runs the steps backwards) and which
    // halves of the butterfly work run.
    let (j, fwd, inv) = match MODE {
        FORWARD => (ed, true, false),
        INVERSE => (n - 1 - ed, false, true),
        _ if b_steps || ed + 1 < n => (ed, true, false),
        _ if ed + 1 == n => (ed, true, true),
        _ => (2 * n - 2 - ed, false, true),
    };
    let (g, k) = shape.step(j);
    let io = Io {
        from_global: ed == 0 && from_global,
        cg,
        last: e + 1 == exec_steps(shape, MODE),
        src_b: b_steps,
        keep: b_steps && ed + 1 == n,
        use_held: MODE == PRODUCT && fwd && inv,
    };
    let s = &mut (s, sink, held);
    // SAFETY: forwarded.
    unsafe {
        match (k, fwd, inv) {
            (4, true, false) => units::<W, S, K, true, false, 16>(shape, args, s, blk, t, g, io),
            (3, true, false) => units::<W, S, K, true, false, 8>(shape, args, s, blk, t, g, io),
            (2, true, false) => units::<W, S, K, true, false, 4>(shape, args, s, blk, t, g, io),
            (_, true, false) => units::<W, S, K, true, false, 2>(shape, args, s, blk, t, g, io),
            (4, false, _) => units::<W, S, K, false, true, 16>(shape, args, s, blk, t, g, io),
            (3, false, _) => units::<W, S, K, false, true, 8>(shape, args, s, blk, t, g, io),
            (2, false, _) => units::<W, S, K, false, true, 4>(shape, args, s, blk, t, g, io),
            (_, false, _) => units::<W, S, K, false, true, 2>(shape, args, s, blk, t, g, io),
            (4, true, true) => units::<W, S, K, true, true, 16>(shape, args, s, blk, t, g, io),
            (3, true, true) => units::<W, S, K, true, true, 8>(shape, args, s, blk, t, g, io),
            (2, true, true) => units::<W, S, K, true, true, 4>(shape, args, s, blk, t, g, io),
            (_, true, true) => units::<W, S, K, true, true, 2>(shape, args, s, blk, t, g, io),
        }
    }
}

/// Every radix-`R` unit of thread `t` in the step with `g` stages before
/// it; `io = (from global, to global)`.
///
/// # Safety
/// As for [`step`].
#[inline(always)]
unsafe fn units<W: Gmem, S: Shared<W>, K: Sink<W>, const FWD: bool, const INV: bool, const R: usize>(
    shape: Shape,
    args: &PassArgs<W>,
    (s, sink, held): &mut (&S, &K, &mut [W; MAX_HELD]),
    blk: u32,
    t: u32,
    g: u32,
    io: Io,
) {
    let k = R.trailing_zeros();
    let per_thread = 1u32 << (shape.log_r - k);
    let threads = shape.threads();
    for v in 0..per_thread {
        // The unit's slice of the held registers (2^log_r words per thread).
        let h = &mut held[(v as usize) * R..(v as usize + 1) * R];
        // SAFETY: forwarded.
        unsafe { unit::<W, S, K, FWD, INV, R>(shape, args, (s, sink, h), blk, t + v * threads, g, io) };
    }
}

/// Radix-`R` unit `p` of block `blk` (see [`units`]).
///
/// # Safety
/// As for [`step`].
#[inline(always)]
unsafe fn unit<W: Gmem, S: Shared<W>, K: Sink<W>, const FWD: bool, const INV: bool, const R: usize>(
    shape: Shape,
    args: &PassArgs<W>,
    (s, sink, held): (&S, &K, &mut [W]),
    blk: u32,
    p: u32,
    g: u32,
    Io { from_global, cg, last, src_b, keep, use_held }: Io,
) {
    let to_global = last && !K::ACTIVE;
    let src: *const W = if src_b { args.b } else { args.data };
    let (l, log_s) = (shape.l, shape.log_s);
    let k = R.trailing_zeros();
    let word_bytes = core::mem::size_of::<W>();
    // Which sub-transform and which unit of it: the fastest-varying thread
    // index walks the columns (column pass) or the units of a row.
    let (sub, u) = if shape.strided {
        (p & ((1 << log_s) - 1), p >> log_s)
    } else {
        (p >> (l - k), p & ((1 << (l - k)) - 1))
    };
    let gsub = if shape.strided {
        (blk << log_s) + sub
    } else {
        row_of(shape, args.log_n, clamp_polys_log(shape, args.log_n, args.log_polys), blk, sub)
    };
    if gsub >= args.subs {
        return;
    }
    // The unit's words are j0 + x·h, x < R; i is its group at stage g.
    let lh = l - g - k;
    let h = 1u32 << lh;
    let i = u >> lh;
    let j0 = (i << (l - g)) | (u & (h - 1));
    let log_cols = args.log_n - l;
    // Global word of the unit's first word, and the distance between words.
    let (gbase, gstride) = if shape.strided {
        let poly = (gsub >> log_cols) as usize;
        let col = (gsub & ((1 << log_cols) - 1)) as usize;
        ((poly << args.log_n) + col + ((j0 as usize) << log_cols), (h as usize) << log_cols)
    } else {
        (((gsub as usize) << l) + j0 as usize, h as usize)
    };
    // Physical tile word of the unit's first word; word x sits at
    // `sbase + x·sstride + pad(x·h)` (see `Shape::log_pad`: the unit never
    // straddles a padding word in a way that breaks this).
    let log_pad = shape.log_pad(word_bytes);
    let (sbase, sstride) = if shape.strided {
        ((j0 << log_s) + sub, h << log_s)
    } else {
        let o = (sub << l) + j0;
        (o + (o >> log_pad), h)
    };
    let soff = |x: usize| -> u32 {
        let xh = (x as u32) << lh;
        let pad = if shape.strided { 0 } else { xh >> log_pad };
        sbase + (x as u32) * sstride + pad
    };
    // Twiddle index at stage g + d for sub-group b: (T0 << (g+d)) + (i << d) + b.
    let t0 = if shape.strided {
        1
    } else {
        let l1 = log_cols;
        (1u32 << l1) + (gsub & ((1 << l1) - 1))
    };
    let (q, q2) = (args.q, args.q + args.q);
    let mut a = [W::zero(); R];
    // SAFETY: every index is inside the batch, the tile and the table
    // (caller: a valid shape and launch).
    unsafe {
        // A row unit of consecutive words moves in 16-byte vectors.
        let run = !shape.strided && lh == 0 && R * word_bytes >= 16;
        if from_global && run && cg {
            W::ld_run_cg(src.add(gbase), &mut a);
        } else if from_global && run {
            W::ld_run(src.add(gbase), &mut a);
        } else if from_global && cg {
            for (x, v) in a.iter_mut().enumerate() {
                *v = W::ld_cg(src.add(gbase + x * gstride));
            }
        } else if from_global {
            for (x, v) in a.iter_mut().enumerate() {
                *v = W::ld(src.add(gbase + x * gstride));
            }
        } else {
            for (x, v) in a.iter_mut().enumerate() {
                *v = s.ld_at(soff(x));
            }
        }
        // The inverse's stage 0 (in the step with g = 0 of a pass that
        // ends the transform) carries the 1/N.
        let scale_last = INV && g == 0 && (shape.strided || log_cols == 0);
        // Row-pass steps after the first read their twiddles from the
        // thread-ordered region (`row_twiddle_index`): consecutive units,
        // consecutive pairs, so every load instruction is coalesced.
        let row_region = !shape.strided && g > 0;
        let rr = gsub & ((1 << log_cols) - 1);
        let tw_at = |table: *const ShoupPair<W>, d: u32, b: usize| -> ShoupPair<W> {
            let idx = if row_region {
                row_twiddle_index(shape, args.log_n, g, k, rr, (1 << d) - 1 + b as u32, i)
            } else {
                (((t0 << (g + d)) + (i << d)) as usize) + b
            };
            W::ld_pair(table.add(idx))
        };
        let (fwd_tw, inv_tw) = (|d, b| tw_at(args.tw, d, b), |d, b| tw_at(args.tw_inv, d, b));
        if FWD {
            for d in 0..k {
                level::<W, R, false>(&mut a, d, &fwd_tw, q, q2);
            }
            // The row pass ends every forward transform.
            if !shape.strided && g + k == l {
                for v in a.iter_mut() {
                    *v = harvey::reduce4(*v, q, q2);
                }
            }
        }
        // Where `b`'s words wait for the product ([`held_in_tile`]): the
        // tile's second half, at this unit's places.
        let held_at = shape.smem_words(word_bytes);
        if FWD && INV && use_held {
            // The product pass: the pointwise product with the second
            // operand's words at the same places (both reduced), which this
            // thread's unit computed in `b`'s last forward step.
            for x in 0..R {
                let h = if held_in_tile(word_bytes) { s.ld_at(held_at + soff(x)) } else { held[x] };
                a[x] = args.barrett.mul(a[x], h);
            }
        }
        if INV {
            for d in (0..k).rev() {
                if d == 0 && scale_last {
                    let ninv = W::ld_pair(args.tw_inv);
                    let wn = W::ld_pair(args.tw_inv.add(1 << args.log_n));
                    for x in 0..R / 2 {
                        (a[x], a[x + R / 2]) = harvey::gs_last(a[x], a[x + R / 2], ninv, wn, q, q2);
                    }
                } else {
                    level::<W, R, true>(&mut a, d, &inv_tw, q, q2);
                }
            }
        }
        if keep && held_in_tile(word_bytes) {
            for (x, v) in a.iter().enumerate() {
                s.st_at(held_at + soff(x), *v);
            }
        } else if keep {
            held[..R].copy_from_slice(&a);
        } else if last && K::ACTIVE {
            for (x, v) in a.iter().enumerate() {
                sink.put(gsub, j0 + ((x as u32) << lh), *v);
            }
        } else if to_global && run {
            W::st_run(args.data.add(gbase), &a);
        } else if to_global {
            for (x, v) in a.iter().enumerate() {
                W::st(args.data.add(gbase + x * gstride), *v);
            }
        } else {
            for (x, v) in a.iter().enumerate() {
                s.st_at(soff(x), *v);
            }
        }
    }
}

/// Level `d` of a radix-`R` unit: `2^d` sub-groups of `R / 2^d` registers,
/// sub-group `b` with twiddle `tw(d, b)`.
#[inline(always)]
fn level<W: Word, const R: usize, const INV: bool>(
    a: &mut [W; R],
    d: u32,
    tw: &impl Fn(u32, usize) -> ShoupPair<W>,
    q: W,
    q2: W,
) {
    let (span, width) = (R >> (d + 1), R >> d);
    for b in 0..1usize << d {
        let w = tw(d, b);
        for x in 0..span {
            let x = b * width + x;
            (a[x], a[x + span]) = if INV {
                harvey::gs(a[x], a[x + span], w, q, q2)
            } else {
                harvey::ct(a[x], a[x + span], w, q, q2)
            };
        }
    }
}

/// `log2` of the register radix a plan uses by default for a pass of
/// `l`-point sub-transforms on `word_bytes`-byte words (`strided`: a column
/// pass; `mode`: [`FORWARD`] or [`INVERSE`]), from timings on an H100
/// (docs/ntt.md): radix 16, except the `u64` row passes of 2^8 points,
/// where radix 8 (more threads, fewer registers) is faster — but not the
/// `u64` product pass of 2^8 points, which with its register cap
/// ([`max_regs`]) is 4% faster at radix 16 (a polymul at N = 2^16, batch
/// 512). The `u32` forward column pass alone was faster at radix 8 in
/// Nsight Compute at batch 512, but where it runs (polymuls, whose column
/// launch transforms both operands, and transforms below the fused
/// kernels' batches) radix 16 measured as fast or faster: `u32` polymuls at
/// N = 2^16 of batch 20 / 42 / 128 / 512 in 41.4 / 57.4 / 152 / 552 µs
/// against 42.6 / 63.0 / 157 / 563, forwards of batch 42 in 30.0 against
/// 35.0 µs. The forward and inverse row passes of one plan share one
/// radix, because they share the thread-ordered twiddle region, whose
/// layout follows the row pass's steps; a product pass of another radix
/// gets tables of its own.
pub const fn log_radix(word_bytes: usize, l: u32, strided: bool, mode: u8) -> u32 {
    let lr = match (strided, word_bytes, mode) {
        (false, 8, FORWARD | INVERSE) if l == 8 => 3,
        _ => 4,
    };
    if lr > l { l } else { lr }
}

/// The register cap (PTX `.maxnreg`) of the pass kernel for `word_bytes`-byte
/// words, `mode`, pass kind, `l` and `log2` radix, or `None` for the
/// compiler's choice. Registers decide how many blocks share an SM (64 Ki
/// per SM): uncapped, the `u64` product pass at radix 8 (66 registers ×
/// 512 threads) ran one block per SM, 25% occupancy. Each cap buys one
/// more block per SM for at most ~30% fewer registers (a few bytes of
/// spills at most), and stays where it measured faster on an H100 (the
/// goals table with and without the caps in one run, docs/ntt.md):
/// `u64` 2^16 forward 0.981 → 0.954 µs, inverse 0.995 → 0.955, polymul
/// 3.23 → 2.98; `u32` 2^16 forward 0.462 → 0.437, inverse 0.414 → 0.394,
/// polymul 1.29 → 1.19. The `u64` one-pass rows (`l >= 11`) measured 2%
/// slower capped and keep the compiler's choice, as do the `u64` radix-16
/// product passes there (110–128 registers: a cap would cost a third of
/// them). The `u64` radix-8 product pass of 2^13 points (1024 threads)
/// needs its cap to launch at all (66 × 1024 registers > 64 Ki).
pub const fn max_regs(word_bytes: usize, mode: u8, strided: bool, l: u32, log_r: u32) -> Option<u32> {
    let r16 = log_r >= 4 && l >= 4;
    match (word_bytes, mode, strided, r16) {
        (8, PRODUCT, _, true) if l <= 10 => Some(80),
        (8, PRODUCT, _, true) => None,
        (8, PRODUCT, _, false) => Some(64),
        (8, _, true, true) => Some(64),
        (8, _, false, true) if l <= 10 => Some(64),
        (8, _, _, false) => Some(40),
        (4, PRODUCT, _, true) if l <= MAX_ROW_L && held_in_tile(4) => Some(40),
        (4, PRODUCT, _, true) => Some(64),
        (4, FORWARD, false, true) if l == 8 => Some(40),
        (4, FORWARD | INVERSE, _, true) => Some(32),
        _ => None,
    }
}

/// The split of a `2^log_n`-point transform into passes: `(l1, l2)` —
/// `l1` stages in a column pass (0: none) and `l2` in a row pass — or
/// `None` where no lazy kernel covers `log_n` (it needs
/// `MIN_ROW_L <= log_n <= MAX_COL_L + MAX_ROW_L`); `one_pass_max` is
/// [`one_pass_max`] (at most [`WIDE_ROW_L`], for the word that has it).
pub const fn split(log_n: u32, one_pass_max: u32) -> Option<(u32, u32)> {
    if log_n < MIN_ROW_L || log_n > MAX_COL_L + MAX_ROW_L {
        return None;
    }
    if log_n <= one_pass_max {
        return Some((0, log_n));
    }
    if log_n < 2 * MIN_COL_L {
        return if log_n <= MAX_ROW_L { Some((0, log_n)) } else { None };
    }
    let half = log_n / 2;
    let l1 = if half > MAX_COL_L { MAX_COL_L } else { half };
    let l2 = log_n - l1;
    if l2 > MAX_ROW_L { None } else { Some((l1, l2)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_cover_the_stages_once_each() {
        for l in 1..=MAX_ROW_L {
            for lr in 1..=4 {
                let sh = Shape::new(l, lr, false, 8);
                let mut next = 0;
                for j in 0..sh.steps() {
                    let (g, k) = sh.step(j);
                    assert_eq!(g, next);
                    assert!(k >= 1 && k <= sh.log_r);
                    next = g + k;
                }
                assert_eq!(next, l);
            }
        }
    }

    #[test]
    fn register_caps_let_every_capped_kernel_launch() {
        // A capped kernel's block must fit an SM's 64 Ki registers, and the
        // cap must be one ptxas accepts (a multiple of 8 up to 255).
        for wb in [4usize, 8] {
            for k in crate::names::LazyKernel::all_for(wb) {
                let Some(cap) = max_regs(wb, k.mode, k.strided, k.l, k.log_r) else { continue };
                let threads = k.shape(wb).threads();
                assert!(threads <= 1024 && cap * threads <= 65536, "{wb}-byte {k:?}");
                assert!(cap % 8 == 0 && cap <= 255);
            }
        }
        // The u64 radix-8 product pass of 2^13 points needs its cap to launch.
        assert_eq!(max_regs(8, PRODUCT, false, 13, 3), Some(64));
    }

    #[test]
    fn product_tiles_fit_an_sm90_block() {
        // A product pass that keeps `b` in a second tile doubles its shared
        // memory; every one must stay within sm_80/sm_90's opt-in limits
        // (163 / 227 KiB), and the two-pass sizes' (l <= 13) must leave
        // room for three blocks per sm_90 SM (228 KiB).
        for wb in [4usize, 8] {
            for k in crate::names::LazyKernel::all_for(wb).filter(|k| k.mode == PRODUCT) {
                let shape = k.shape(wb);
                let bytes = pass_smem_words(shape, PRODUCT, wb) as usize * wb;
                assert!(bytes <= 163 * 1024, "{wb}-byte {k:?}: {bytes}");
                if k.l <= MAX_ROW_L {
                    assert!(3 * (bytes + 1024) <= 228 * 1024, "{wb}-byte {k:?}: {bytes}");
                }
            }
        }
        assert_eq!(
            pass_smem_words(Shape::new(8, 4, false, 4), PRODUCT, 4),
            2 * Shape::new(8, 4, false, 4).smem_words(4)
        );
        assert_eq!(
            pass_smem_words(Shape::new(8, 4, false, 8), PRODUCT, 8),
            Shape::new(8, 4, false, 8).smem_words(8)
        );
    }

    #[test]
    fn row_blocks_cover_every_row_once() {
        // Every (block, sub) of a row pass names a distinct row, rows below
        // batch · 2^l1 are all named, and `row_blocks` launches exactly
        // the blocks needed, for every polynomials-per-block choice.
        for (log_n, l, wb) in
            [(16u32, 8u32, 4usize), (16, 8, 8), (14, 7, 4), (12, 12, 8), (13, 10, 4), (11, 11, 4)]
        {
            let shape = Shape::new(l, 4, false, wb);
            let l1 = log_n - l;
            for batch in [1usize, 2, 3, 4, 6, 8, 12, 32, 40] {
                for want in 0..=shape.log_s + 1 {
                    let lp = clamp_polys_log(shape, log_n, want);
                    assert!(lp <= shape.log_s && shape.log_s - lp <= l1);
                    let blocks = row_blocks(shape, log_n, lp, batch);
                    let mut seen = [0u8; 1 << 15];
                    assert!(((blocks as usize) << shape.log_s) <= seen.len());
                    let rows = batch << l1;
                    for blk in 0..blocks {
                        for sub in 0..1 << shape.log_s {
                            let r = row_of(shape, log_n, lp, blk, sub) as usize;
                            if r < rows {
                                seen[r] += 1;
                            }
                        }
                    }
                    assert!(seen[..rows].iter().all(|&c| c == 1), "{log_n} {l} {batch} {lp}");
                }
                let lp = row_polys_log(shape, log_n, batch);
                if (1usize << lp) <= batch && batch % (1 << lp) == 0 {
                    assert_eq!(
                        row_blocks(shape, log_n, lp, batch) as usize,
                        (batch << l1).div_ceil(1 << shape.log_s)
                    );
                }
            }
        }
    }

    #[test]
    fn fused_tickets_are_every_block_once_and_never_wait_on_later_ones() {
        for (polys, per_poly) in [(1u32, 8u32), (3, 8), (32, 8), (20, 16), (7, 4), (512, 8)] {
            for lag in [0u32, 1, 2, 5, 25, 1000] {
                let total = 2 * polys * per_poly;
                let mut first_done = [0u32; 512];
                let mut seen = [0u8; 2 * 4096];
                for t in 0..total {
                    let (second, blk) = fused_item(t, polys, per_poly, lag);
                    assert!(blk < polys * per_poly, "{polys} {per_poly} {lag} {t}");
                    let k = (blk + if second { polys * per_poly } else { 0 }) as usize;
                    seen[k] += 1;
                    let p = (blk / per_poly) as usize;
                    if second {
                        // Every first-pass block of its polynomial has an earlier ticket.
                        assert_eq!(first_done[p], per_poly, "{polys} {per_poly} {lag} {t}");
                    } else {
                        first_done[p] += 1;
                    }
                }
                assert!(seen[..total as usize].iter().all(|&c| c == 1));
            }
        }
    }

    #[test]
    fn splits_cover_every_size_they_claim() {
        for log_n in 0..30 {
            match split(log_n, 12) {
                Some((l1, l2)) => {
                    assert_eq!(l1 + l2, log_n);
                    assert!((MIN_ROW_L..=MAX_ROW_L).contains(&l2));
                    assert!(l1 == 0 || (MIN_COL_L..=MAX_COL_L).contains(&l1));
                }
                None => assert!(!(MIN_ROW_L..=21).contains(&log_n), "{log_n}"),
            }
        }
    }
}
