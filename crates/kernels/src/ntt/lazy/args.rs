//! The lazy kernels' arguments: [`LaunchArgs`], the `#[repr(C)]` block
//! every lazy, fused and cluster kernel takes (the host fills this very
//! struct), and [`PassArgs`], one tower's view of it that the pass code
//! reads.

use crate::Word;
use crate::arith::Barrett4;
use crate::arith::harvey::ShoupPair;

use super::geometry::Shape;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf, TowerGrid, one_tower_modulus, span};

/// What one launch of a pass works on (one tower: the entry point resolves
/// the tower's data, table and modulus).
#[derive(Debug, Clone, Copy)]
///
/// Its fields stay `pub`: the host's CPU emulation (`polymul::cpu::lazy`)
/// builds it per tower as the entry points do; it is no kernel's argument
/// block, and a kernel only ever gets one from [`LaunchArgs::tower`].
pub struct PassArgs<W> {
    /// The tower's data (`batch · N` words).
    pub data: *mut W,
    /// The tower's forward twiddle table ([`table_pairs`](super::table_pairs) pairs, see the
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
    /// ([`row_polys_log`](super::row_polys_log); clamped by
    /// [`row_of`](super::row_of)); column passes ignore it.
    pub log_polys: u32,
    /// The tensor-source inverse row pass's first ciphertexts (`2m`
    /// polynomials of the tower, NTT domain, reduced), whose first step
    /// reads the tensor product of `ta` and `tb` instead of `data`
    /// ([`step_tensor`](super::step_tensor)); null (and unused) for every
    /// other pass.
    pub ta: *const W,
    /// The tensor-source pass's second ciphertexts, laid out as `ta`.
    pub tb: *const W,
}

/// The arguments of every lazy pass kernel, passed by value as one
/// `#[repr(C)]` block: the host fills this very struct, so the two sides
/// cannot disagree on order or types.
///
/// # Invariants
///
/// What the `unsafe` blocks of the lazy (`ntt_lazy_*`), fused and cluster
/// kernels rely on (`N = 2^log_n`; `rows` towers, the grid's y extent):
///
/// * `data` points to `rows` towers of `data_words = batch · N` words of
///   global memory; a non-null `b` likewise;
/// * `moduli` is null (one tower: `q`, `mu`, `qbits` are used) or holds
///   `rows` rows of `TOWER_WORDS` words (the invariants of
///   [`Towers`](crate::towers::Towers));
/// * every tower's modulus `q` has `4q < 2^β` (Harvey's lazy range) and
///   Algorithm 4's `(µ, m)` for it;
/// * `tw` and `tw_inv` hold `tw_pairs` pairs per tower, each tower's laid
///   out as [`table_pairs`](super::table_pairs) describes for the launch's
///   row-pass shape (the plain `N + 1` pairs, then the thread-ordered
///   region), or, for the computed-row-twiddle kernels
///   ([`step_with`](super::step_with) with `COMPUTED`; entries named
///   `…_c_<word>`), as [`computed_table_pairs`](super::computed_table_pairs)
///   describes (the plain pairs, then the low and high tables of the
///   computed row twiddles, [`PairFactor`](crate::arith::harvey::PairFactor)s
///   prepared for the tower's modulus);
/// * a pass kernel's shape is one of the plan's schedule for `log_n`,
///   `subs` is its sub-transforms per tower (`batch · 2^(log_n − l)`), the
///   grid x its blocks ([`row_blocks`](super::row_blocks) or `⌈subs / S⌉`,
///   twice that for a forward pass with `b`), the block
///   [`Shape::threads`](super::Shape::threads) threads and
///   at least [`pass_smem_words`](super::pass_smem_words) words of
///   dynamic shared memory (a launch may ask for more, to hold fewer of
///   its blocks per SM; the kernel uses only its tile's);
/// * a tensor-source inverse row pass (entries named `…_t_<word>`) has
///   non-null `ta` and `tb`, each `rows` towers of `2 · data_words / 3`
///   reduced words (`data_words` a multiple of `3N`), overlapping neither
///   `data`; every other kernel ignores them;
/// * a fused kernel's launch has `subs = batch`, `2 · batch ·`
///   [`fused_per_poly`](super::fused_per_poly) blocks per tower, the larger
///   pass tile plus 16 bytes of shared memory, `ctrl` pointing to
///   [`fused_ctrl_words`](super::fused_ctrl_words)`(batch)` zero words per
///   tower and `lag` at least a row block's polynomials; a cluster kernel's
///   has `subs = batch` and `batch · 2^lcs` blocks per tower in clusters of
///   `2^lcs`.
///
/// [`LaunchArgs::new`] (host only) checks what it can see: `data` (and a
/// non-null `b`) non-null and holding `rows · data_words` words, with
/// `data_words` a non-zero multiple of `N`; the tower table (through
/// [`TowerGrid`](crate::args::TowerGrid)); `tw` and `tw_inv` non-null and
/// holding `rows · tw_pairs` pairs, `tw_pairs ≥ N + 1` (with computed row
/// twiddles `≥` [`computed_table_pairs`](super::computed_table_pairs)); `2 ≤ log_n < 32`;
/// `0 < subs ≤ data_words`; a one-tower modulus with `4q < 2^β`;
/// [`LaunchArgs::fused`] checks `ctrl` and `lag`. What it cannot see stays
/// the caller's: the tables' contents and layout for the launch's shape
/// (the region for a table kernel, the small tables for a computed-row
/// kernel: the launch's kernel must match `LazyTwiddles::computed_rows`),
/// the table rows' constants, `subs` being the pass's count, and the grid,
/// block and shared memory of the launch.
///
/// Established by `polymul::plan::launch::LazyTables::launch_args` (the
/// block, through [`LaunchArgs::new`]) and its launchers `polymul::plan::launch::lazy_pass`, `fused_ntt` and
/// `cluster_ntt` (grids, threads, shared memory, `ctrl`, `lag`); the tables
/// by `polymul::plan::engine::LazyTableSet::new` (`polymul::plan::lazy::tables`, `tw_pairs`
/// from `LazySchedule::table_pairs`); the batch by
/// `polymul::plan::engine::NttEngine::batch_of` / `NttEngine::pair`
/// (`polymul::layout::Towers::layout_of`); the moduli by `polymul::NttParams::new` (at most
/// `Barrett4::MAX_BITS`: 30 bits on `u32`, 62 on `u64`, so `4q < 2^β`).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct LaunchArgs<W> {
    /// The batch, tower after tower.
    pub(crate) data: *mut W,
    /// The forward twiddle tables, `tw_pairs` pairs per tower.
    pub(crate) tw: *const ShoupPair<W>,
    /// The inverse twiddle tables, `tw_pairs` pairs per tower.
    pub(crate) tw_inv: *const ShoupPair<W>,
    /// `TOWER_WORDS` constants per tower ([`crate::towers`]), or null for
    /// one tower (then `q` is used).
    pub(crate) moduli: *const W,
    /// Words between consecutive towers' data.
    pub(crate) data_words: u64,
    /// Pairs between consecutive towers' tables (`N + 1`).
    pub(crate) tw_pairs: u32,
    /// `log2 N`.
    pub(crate) log_n: u32,
    /// Sub-transforms per tower ([`PassArgs::subs`]).
    pub(crate) subs: u32,
    /// Algorithm 4's bit length `m` of a one-tower launch's modulus (the
    /// product pass's pointwise multiplication).
    pub(crate) qbits: u32,
    /// [`PassArgs::log_polys`].
    pub(crate) log_polys: u32,
    /// The modulus of a one-tower launch.
    pub(crate) q: W,
    /// Algorithm 4's `µ` of a one-tower launch's modulus.
    pub(crate) mu: W,
    /// The product pass's second operand, transformed (null for the other
    /// passes), laid out as `data`.
    pub(crate) b: *const W,
    /// A fused launch's control words ([`fused_ctrl_words`](super::fused_ctrl_words) per tower, all
    /// zero), null for the other kernels.
    pub(crate) ctrl: *mut u32,
    /// A fused launch's lag in polynomials ([`fused_item`](super::fused_item)).
    pub(crate) lag: u32,
    /// The tensor-source inverse row pass's inputs ([`PassArgs::ta`]),
    /// `2 · data_words / 3` words per tower; null for every other kernel.
    pub(crate) ta: *const W,
    /// The tensor-source pass's second inputs ([`PassArgs::tb`]).
    pub(crate) tb: *const W,
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
        // The tensor inputs: `2m` polynomials per tower beside the `3m` of `data`.
        let in_off = (self.data_words / 3 * 2) as usize * y as usize;
        let keep_null = |p: *const W| if p.is_null() { p } else { p.wrapping_add(in_off) };
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
            ta: keep_null(self.ta),
            tb: keep_null(self.tb),
        }
    }
}

/// The twiddle tables of a lazy launch as [`LaunchArgs::new`] takes them:
/// both directions' buffers, `pairs` pairs per tower.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Debug, Clone, Copy)]
pub struct LazyTwiddles<W> {
    /// The forward tables.
    pub fwd: Buf<ShoupPair<W>>,
    /// The inverse tables.
    pub inv: Buf<ShoupPair<W>>,
    /// Pairs between consecutive towers' tables.
    pub pairs: u32,
    /// Whether the tables end in the computed row twiddles' small tables
    /// ([`computed_table_pairs`](super::computed_table_pairs)) instead of
    /// the thread-ordered region: only the size check reads it (a launch
    /// must then be of a computed-row kernel, `LazyKernel::computed`, which
    /// the caller guarantees; the kernels do not see this flag).
    pub computed_rows: bool,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> LaunchArgs<W> {
    /// The block of a lazy pass, fused or cluster launch over `data` (and
    /// `b`, the product pass's or a paired forward pass's second operand, or
    /// [`Buf::none`]) with `tables` and the towers of `grid`; a one-tower
    /// launch's constants are `barrett`'s. Checks what the [`LaunchArgs`]
    /// docs say; `ctrl` is null and `lag` zero (see [`LaunchArgs::fused`]).
    #[allow(clippy::too_many_arguments)] // what the block is about: buffers, counts, constants
    pub fn new(
        data: Buf<W>,
        b: Buf<W>,
        tables: &LazyTwiddles<W>,
        grid: &TowerGrid<W>,
        log_n: u32,
        subs: u32,
        log_polys: u32,
        barrett: Barrett4<W>,
    ) -> Result<Self, ArgsError> {
        if !(2..32).contains(&log_n) {
            return Err(ArgsError::Size);
        }
        let dw = grid.data_words();
        if dw == 0 || dw & ((1 << log_n) - 1) != 0 || subs == 0 || subs as u64 > dw {
            return Err(ArgsError::Count);
        }
        grid.data(&data, dw)?;
        if !b.is_null() {
            grid.data(&b, dw)?;
        }
        let least = if tables.computed_rows {
            super::computed_table_pairs(log_n) as u64
        } else {
            (1u64 << log_n) + 1
        };
        if (tables.pairs as u64) < least {
            return Err(ArgsError::Short);
        }
        let pairs = span(grid.rows() as u64, tables.pairs as u64, 0)?;
        tables.fwd.holds(pairs)?;
        tables.inv.holds(pairs)?;
        one_tower_modulus(grid, barrett.q, W::BITS - 2)?;
        Ok(LaunchArgs {
            data: data.mut_ptr(),
            tw: tables.fwd.ptr,
            tw_inv: tables.inv.ptr,
            moduli: grid.towers().moduli,
            data_words: dw,
            tw_pairs: tables.pairs,
            log_n,
            subs,
            qbits: barrett.m,
            log_polys,
            q: barrett.q,
            mu: barrett.mu,
            b: b.ptr,
            ctrl: core::ptr::null_mut(),
            lag: 0,
            ta: core::ptr::null(),
            tb: core::ptr::null(),
        })
    }

    /// The block of a tensor-source inverse row pass
    /// ([`step_tensor`](super::step_tensor)): this one (whose `data` is the
    /// `3m` outputs per tower) reading its first step from the tensor
    /// product of `a` and `b` (`2m` polynomials per tower each: checked to
    /// hold `rows · 2 · data_words / 3` words, with `data_words` a multiple
    /// of `3N`). That their words are reduced (the forward transforms'),
    /// and that neither overlaps `data`, stays the caller's.
    pub fn tensor_source(self, a: Buf<W>, b: Buf<W>, grid: &TowerGrid<W>) -> Result<Self, ArgsError> {
        let n = 1u64 << self.log_n;
        if !self.data_words.is_multiple_of(3 * n) || !self.b.is_null() {
            return Err(ArgsError::Count);
        }
        let in_words = self.data_words / 3 * 2;
        for x in [&a, &b] {
            if x.is_null() {
                return Err(ArgsError::Null);
            }
            x.holds(span(grid.rows() as u64, in_words, 0)?)?;
        }
        Ok(LaunchArgs { ta: a.ptr, tb: b.ptr, ..self })
    }

    /// The block of a fused launch: this one with its control words `ctrl`
    /// (checked to hold [`fused_ctrl_words`](super::fused_ctrl_words)`(subs)`
    /// words per tower; that they are zero stays the caller's) and `lag`
    /// (checked to be at least a row block's polynomials,
    /// `2^`[`ROW_POLYS_LOG_MAX`](super::ROW_POLYS_LOG_MAX)).
    pub fn fused(self, ctrl: Buf<u32>, lag: u32, grid: &TowerGrid<W>) -> Result<Self, ArgsError> {
        let per = super::fused_ctrl_words(self.subs as usize) as u64;
        ctrl.holds(span(grid.rows() as u64, per, 0)?)?;
        if lag < 1 << super::ROW_POLYS_LOG_MAX {
            return Err(ArgsError::Count);
        }
        Ok(LaunchArgs { ctrl: ctrl.mut_ptr(), lag, ..self })
    }
}
