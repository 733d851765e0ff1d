//! The per-thread phases of the DGT pass kernel: one shared-memory pass
//! (load, `k` fixed-access stages, store), its argument block [`DgtArgs`]
//! and the Gaussian twiddle tables it reads. The GPU entry points call them
//! between barriers; the host calls them in loops over every thread
//! (`polymul::dgt::cpu`). Coala's element-wise kernels (encoding, decoding,
//! the pointwise product) are in [`super::codec`], re-exported here.
//!
//! Fixed access (Coala's Algorithms 2 and 3): in a Gentleman–Sande stage
//! butterfly `i` always reads positions `i` and `i + 2^(k−1)` of its set and
//! writes `2i` and `2i + 1`; a Cooley–Tukey stage reads `2i`, `2i + 1` and
//! writes `i`, `i + 2^(k−1)`. The element at local position `p` before GS
//! stage `t` is logical element `rotr^t(p)`, so after all `k` stages every
//! element is back at its in-place position — the pass's output is the
//! in-place DIF result, and the CT pass undoes it exactly (times 2 per
//! stage; the decoder's weights carry `1/M`). The stages read one buffer and
//! write the other (ping-pong), so one barrier per stage suffices.
//!
//! Each butterfly is two threads, one per output component (real or
//! imaginary part: two products each), the split Coala makes between the
//! real and imaginary halves of the Gaussian butterfly. Coala puts the
//! component on the grid's y axis; within a pass of several stages each
//! stage needs both components of the previous one, so here the two halves
//! are neighbouring threads of one block that exchange through shared
//! memory.

pub use super::gauss::GaussTable;
use super::gauss::{Gauss, GaussOp};
pub use super::layout::shared_words;
use super::layout::{PassGeometry, slot, unit_slot};
use crate::Word;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf, TowerGrid, one_tower_modulus, span};
use crate::arith::{Barrett4, ModMul, Shoup, add_mod, sub_mod};
use crate::gmem::Gmem;
use crate::smem::Shared;
use crate::towers::{TowerConsts, Towers};

// The element-wise kernels' items under their paths from before the split
// (the host reaches them as `dgt::pass::*`).
pub use super::codec::{DgtCodecArgs, DgtPointwiseArgs, codec, decode, encode, packed_of, pointwise};

/// Shared words a block of a launch doing `op` on pass `geo` needs: one
/// tile ([`shared_words`]) per operand it holds.
#[inline(always)]
pub fn op_shared_words(geo: &PassGeometry, op: Op) -> usize {
    shared_words(geo) << u32::from(op == Op::Polymul)
}

/// Where a pass finds its input or puts its output in global memory.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Coala's packed order (Algorithm 1: a first-pass set contiguous),
    /// which the encoding kernel writes and the decoding kernel reads.
    Packed = 0,
    /// The natural (in-place) order.
    Natural = 1,
    /// The natural order with the encoding or decoding folded in: a load
    /// multiplies each Gaussian `a_j + i·a_{j+M}` by the weight `ξ^j`
    /// (the first forward pass reads the coefficients themselves), a store
    /// multiplies by `ξ^−j / M` (the last inverse pass writes them).
    Weighted = 2,
}

/// The tile word of buffer `buf`, component `comp`, set `y`, position `r`:
/// [`slot`] with Coala's fixed access, [`unit_slot`] (one buffer) with
/// register units (`UNIT`).
#[inline(always)]
fn tile_slot<const UNIT: bool>(
    geo: &PassGeometry,
    tile: usize,
    buf: u32,
    comp: u32,
    y: u32,
    r: u32,
) -> usize {
    if UNIT { unit_slot(geo, tile, comp, y, r) } else { slot(geo, tile, buf, comp, y, r) }
}

/// Whether threads take a block's elements in the packed order's
/// succession (consecutive threads on consecutive words there): in the
/// packed order, and in the natural order of a last pass (no low bits:
/// the two orders coincide, and the natural succession would stride).
#[inline(always)]
fn thread_order_packed(geo: &PassGeometry, order: Order) -> bool {
    order == Order::Packed || geo.log_low() == 0
}

/// Load phase: element `e` of the block whose first set is `set0` (one
/// Gaussian, both planes; thread `tid` moves elements `tid + m·threads`,
/// `m <` [`PassGeometry::per_thread`]) from `src` (one polynomial, planar)
/// into buffer 0 of the tile at `tile`, in the order `order`; `weights`
/// (the prepared `ξ^j`) are read for [`Order::Weighted`] only.
///
/// # Safety
/// `UNIT` is `geo.units()` (the tile's layout), `e < λ·2^k`, `set0` a
/// cluster start, `src` holds `2M` words, the shared tile
/// [`shared_words`] words from `tile`, `weights` `M` entries for
/// [`Order::Weighted`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn load<W: Word, R: ModMul<W>, S: Shared<W>, const UNIT: bool>(
    src: *const W,
    s: &S,
    tile: usize,
    geo: &PassGeometry,
    set0: u32,
    e: u32,
    order: Order,
    weights: &GaussTable<W>,
    red: &R,
) {
    let (pos, y, r) = geo.element(set0, e, thread_order_packed(geo, order));
    let m = 1usize << geo.log_m;
    // SAFETY: positions below M (caller).
    unsafe {
        let mut x = Gauss { re: *src.add(pos as usize), im: *src.add(m + pos as usize) };
        if order == Order::Weighted {
            x = x.mul_op(weights.get::<R>(pos), red);
        }
        s.st(tile_slot::<UNIT>(geo, tile, 0, 0, y, r), x.re);
        s.st(tile_slot::<UNIT>(geo, tile, 0, 1, y, r), x.im);
    }
}

/// Store phase: the mirror of [`load`], from buffer `buf`, the one the
/// last stage wrote (`k mod 2` with Coala's fixed access, 0 with register
/// units; `weights` = the prepared `ξ^−j / M` for [`Order::Weighted`]).
///
/// # Safety
/// As [`load`]; `dst` holds `2M` words.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn store<W: Word, R: ModMul<W>, S: Shared<W>, const UNIT: bool>(
    dst: *mut W,
    s: &S,
    tile: usize,
    geo: &PassGeometry,
    (set0, buf): (u32, u32),
    e: u32,
    order: Order,
    weights: &GaussTable<W>,
    red: &R,
) {
    let (pos, y, r) = geo.element(set0, e, thread_order_packed(geo, order));
    let m = 1usize << geo.log_m;
    // SAFETY: positions below M (caller).
    unsafe {
        let mut x = Gauss {
            re: s.ld(tile_slot::<UNIT>(geo, tile, buf, 0, y, r)),
            im: s.ld(tile_slot::<UNIT>(geo, tile, buf, 1, y, r)),
        };
        if order == Order::Weighted {
            x = x.mul_op(weights.get::<R>(pos), red);
        }
        *dst.add(pos as usize) = x.re;
        *dst.add(m + pos as usize) = x.im;
    }
}

/// The twiddle [`step`] `n` of thread `tid` multiplies by (forward: local
/// stage `n`; inverse: stage `k − 1 − n` of the inverse table `tw`).
///
/// # Safety
/// `tid < geo.threads()`; `tw` is the pass's packed table
/// ([`PassGeometry::twiddle_len`] entries).
#[inline(always)]
pub unsafe fn step_twiddle<W: Word, R: ModMul<W>>(
    geo: &PassGeometry,
    set0: u32,
    n: u32,
    tid: u32,
    inverse: bool,
    tw: &GaussTable<W>,
) -> GaussOp<R::Op> {
    let k = geo.k();
    let (y, i) = (tid >> k, tid & ((1 << (k - 1)) - 1));
    let t = if inverse { k - 1 - n } else { n };
    // SAFETY: the index is inside the table (caller).
    unsafe { tw.get::<R>(geo.twiddle_index(set0 + y, t, i)) }
}

/// Step `n` (`0..k`) of a pass for thread `tid` on the tile at `tile`:
/// forward = Gentleman–Sande local stage `t = n` (Algorithm 2), inverse =
/// Cooley–Tukey local stage `t = k − 1 − n` (Algorithm 3), `w` the
/// thread's twiddle ([`step_twiddle`]). Reads buffer `n mod 2`, writes the
/// other.
///
/// # Safety
/// `tid < geo.threads()`; the tile as [`load`]'s.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn step<W: Word, R: ModMul<W>, S: Shared<W>>(
    s: &S,
    tile: usize,
    geo: &PassGeometry,
    n: u32,
    tid: u32,
    inverse: bool,
    w: GaussOp<R::Op>,
    red: &R,
) {
    let k = geo.k();
    let half = 1u32 << (k - 1);
    let y = tid >> k;
    let x = tid & ((1 << k) - 1);
    let comp = x >> (k - 1);
    let i = x & (half - 1);
    let (from, to) = (n & 1, (n & 1) ^ 1);
    let p = red.q();
    // SAFETY: slots inside the tile.
    unsafe {
        let at = |r: u32| Gauss {
            re: s.ld(slot(geo, tile, from, 0, y, r)),
            im: s.ld(slot(geo, tile, from, 1, y, r)),
        };
        let part = |g: Gauss<W>| if comp == 0 { g.re } else { g.im };
        if !inverse {
            let (u, v) = (at(i), at(i + half));
            s.st(slot(geo, tile, to, comp, y, 2 * i), add_mod(part(u), part(v), p));
            s.st(slot(geo, tile, to, comp, y, 2 * i + 1), u.sub(v, p).mul_part(w, comp, red));
        } else {
            let (a, b) = (at(2 * i), at(2 * i + 1));
            let bw = b.mul_part(w, comp, red);
            s.st(slot(geo, tile, to, comp, y, i), add_mod(part(a), bw, p));
            s.st(slot(geo, tile, to, comp, y, i + half), sub_mod(part(a), bw, p));
        }
    }
}

/// The product phase of a polymul pass: element `e` (as [`load`]'s) of
/// the first operand's forward result times the second's (the tile after
/// it), written to the first operand's buffer 0, where the inverse steps
/// start. Each element is read and written by one thread, so reading
/// buffer `buf` (the forward's last: `k mod 2`, or 0 with register units)
/// and writing buffer 0 needs no barrier between.
///
/// # Safety
/// `UNIT` is `geo.units()`, `e < λ·2^k`; the tile holds two operands'
/// [`shared_words`].
#[inline(always)]
pub unsafe fn product<W: Word, S: Shared<W>, const UNIT: bool>(
    s: &S,
    geo: &PassGeometry,
    buf: u32,
    e: u32,
    red: &Barrett4<W>,
) {
    let (_, y, r) = geo.element(0, e, true);
    let b = shared_words(geo);
    // SAFETY: slots inside the two tiles (caller).
    unsafe {
        let at = |tile: usize| Gauss {
            re: s.ld(tile_slot::<UNIT>(geo, tile, buf, 0, y, r)),
            im: s.ld(tile_slot::<UNIT>(geo, tile, buf, 1, y, r)),
        };
        let z = at(0).mul(at(b), red);
        s.st(tile_slot::<UNIT>(geo, 0, 0, 0, y, r), z.re);
        s.st(tile_slot::<UNIT>(geo, 0, 0, 1, y, r), z.im);
    }
}

/// The register cap (PTX `.maxnreg`) of the pass kernel for `op` on
/// `word_bytes`-byte words for `sm_<arch>`. A block may have 1024 threads,
/// so at most 64 registers on every arch (uncapped, ptxas gives the `u64`
/// polymul kernel 72). Under that cap ptxas spends all 64 on the `u64`
/// forward and inverse kernels and 48–52 on the `u32` ones (H100, batched
/// forward at N = 2^10, 2^24 coefficients, before the twiddle prefetch:
/// 0.0238 µs per polynomial at 64 registers against 0.0224 for Coala's
/// pipeline at 32); on sm_90 they get the fewest that do not spill: 40 for
/// `u32`, 56 for `u64` (48 spills 16 bytes).
///
/// The register-unit kernels (`units`) hold up to 8 Gaussians per thread
/// and run at most [`MAX_UNIT_THREADS`] threads per block: a cap of 128
/// lets every such block launch (ptxas then gives the `u32` kernels 118 to
/// 128 registers and the `u64` ones 128), except the `u32` forward and
/// inverse on sm_90, capped at 64 (the forward does not spill, the inverse
/// spills 40 bytes): H100, 2026-11-27, batched forward at N = 2^16, 4
/// towers × 16 polynomials 79.8 → 70.6 µs, 2^12 × 256 34.3 → 31.9; where
/// the grid is short of a full wave it is slower (2^16 × 16, 25.0 → 26.5).
pub fn max_regs(op: Op, units: bool, word_bytes: usize, arch: u32) -> u32 {
    if units {
        return match (op, word_bytes, arch >= 90) {
            (Op::Forward | Op::Inverse, 4, true) => 64,
            _ => 65536 / MAX_UNIT_THREADS,
        };
    }
    match (op, word_bytes, arch >= 90) {
        (Op::Polymul, _, _) | (_, _, false) => 64,
        (_, 4, true) => 40,
        (_, _, true) => 56,
    }
}

/// Most threads per block of a register-unit pass (the register cap of
/// its kernels, [`max_regs`], is sized for it).
pub const MAX_UNIT_THREADS: u32 = 512;

/// A thread's twiddle, prepared for Shoup's multiplication, carried from
/// one phase to the next ([`DgtBlock::phase`]).
pub type Twiddle<W> = GaussOp<(W, W)>;

/// A placeholder [`Twiddle`] (a phase before the first step overwrites it).
#[inline(always)]
pub fn no_twiddle<W: Word>() -> Twiddle<W> {
    GaussOp { re: (W::zero(), W::zero()), im: (W::zero(), W::zero()) }
}

/// What one launch of the pass kernel does to each block's sets.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// The pass's forward stages (Gentleman–Sande).
    Forward = 0,
    /// The pass's inverse stages (Cooley–Tukey).
    Inverse = 1,
    /// Forward stages on both operands' sets, their pointwise product and
    /// the inverse stages, in shared memory: the last forward pass, the
    /// product and the first inverse pass of a polymul in one launch (a
    /// whole polymul for a one-pass transform).
    Polymul = 2,
}

/// The arguments of the DGT pass kernel, passed by value as one
/// `#[repr(C)]` block: the host fills this very struct, so the two sides
/// cannot disagree on order or types. Tables and data are tower 0's; tower
/// `z` (the grid's z axis) is `data_words` / `tw_words` further.
///
/// # Invariants
///
/// What the `unsafe` blocks of `dgt_{forward,inverse,polymul}_*` rely on
/// (`M = 2^geo.log_m`):
///
/// * the kernel is the one of `op` and [`DgtArgs::units`]; the grid is
///   [`DgtArgs::blocks`] by the towers (`gridDim.y`), [`DgtArgs::threads`]
///   threads per block (at most [`MAX_UNIT_THREADS`] with units), at least
///   `padded_words(`[`DgtArgs::shared_words`]`)` words of dynamic shared
///   memory;
/// * `moduli`, `data_words` and `tw_words` satisfy the invariants of
///   [`Towers`] (`data_words = batch · 2M`);
/// * `src`, `dst` and a non-null `b` each point to the towers' `batch`
///   polynomials of `2M` words (`b` when `op` reads or transforms it,
///   `operands = 2` only with `b`); their words are below the tower's prime;
/// * `tw`, `tw_inv` hold `geo`'s [`PassGeometry::twiddle_len`] entries and
///   `weights`, `inv_weights` `M` entries per tower, `tw_words` apart;
/// * `geo` is one of the plan's passes.
///
/// [`DgtArgs::new`] (host only) checks what it can see: the tower table
/// ([`TowerGrid`]); `geo` valid (`s0 < s1 ≤ log_m < 31`,
/// `log_cluster ≤ log_sets`, `log_unit ≤ min(k, MAX_LOG_UNIT)`);
/// `data_words = batch · 2M` with `batch > 0` and the grid's blocks below
/// `2^32`; `src`, `dst` (and `b` where `op`
/// reads it: always for [`Op::Polymul`], which requires it, and for a
/// two-operand [`Op::Forward`]) non-null and holding `rows · data_words`
/// words; `tw`, `tw_inv` holding `twiddle_len` and `weights`,
/// `inv_weights` `M` entries of the last tower, `tw_words` after the
/// previous one's; a one-tower prime with `4p < 2^β`. The words being below
/// the prime, the tables' contents, `geo` being one of the plan's passes,
/// the kernel, grid, threads and shared memory stay the caller's.
///
/// Established by `polymul::dgt::schedule::pass_args` (host, through
/// [`DgtArgs::new`]), from the
/// `ArgsContext` that `polymul::dgt::plan::DgtPlan::run_on` builds out of
/// `DgtPlan::launch_args` (the buffer checked by
/// `polymul::layout::Towers::layout_of`), the tables and passes of `DgtTables::new`
/// (`DgtConfig::passes`); launched by `polymul::dgt::launch::dgt_pass`, the shared
/// memory checked by `DgtPlan::with_pipeline` and opted into by
/// `DgtKernels::new`.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct DgtArgs<W> {
    /// The first operand's input.
    pub(crate) src: *const W,
    /// Its output (`src` itself when both orders are natural).
    pub(crate) dst: *mut W,
    /// The second operand, transformed in place: a [`Op::Polymul`] launch
    /// reads it (its forward result stays in shared memory), a
    /// [`Op::Forward`] launch with `operands = 2` transforms it with the
    /// second half of the blocks; else null.
    pub(crate) b: *mut W,
    /// The pass's forward twiddles ([`PassGeometry::twiddle_len`] entries).
    pub(crate) tw: *const W,
    /// Its inverse twiddles.
    pub(crate) tw_inv: *const W,
    /// `ξ^j` (a [`Order::Weighted`] load), `M` entries.
    pub(crate) weights: *const W,
    /// `ξ^−j / M` (a [`Order::Weighted`] store), `M` entries.
    pub(crate) inv_weights: *const W,
    /// `TOWER_WORDS` constants per tower ([`crate::towers`]), or null for
    /// one tower (then `p`, `mu`, `qbits` are used).
    pub(crate) moduli: *const W,
    /// Words between consecutive towers' data.
    pub(crate) data_words: u64,
    /// Words between consecutive towers' tables.
    pub(crate) tw_words: u32,
    /// The pass.
    pub(crate) geo: PassGeometry,
    /// What the launch does.
    pub(crate) op: Op,
    /// Where it reads.
    pub(crate) load: Order,
    /// Where it writes.
    pub(crate) store: Order,
    /// Polynomials per operand and tower.
    pub(crate) batch: u32,
    /// Operands of a [`Op::Forward`] launch (1, or 2 with `b`).
    pub(crate) operands: u32,
    /// Algorithm 4's bit length of a one-tower launch's prime.
    pub(crate) qbits: u32,
    /// The prime of a one-tower launch.
    pub(crate) p: W,
    /// Algorithm 4's `µ` of that prime.
    pub(crate) mu: W,
}

/// A DGT pass launch's tables as [`DgtArgs::new`] takes them: tower 0's
/// region of each (its first entry and the entries from there to the end
/// of the tables), tower `z`'s `tw_words` further.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Debug, Clone, Copy)]
pub struct DgtTables<W> {
    /// The pass's forward twiddles.
    pub tw: Buf<W>,
    /// Its inverse twiddles.
    pub tw_inv: Buf<W>,
    /// `ξ^j`, `M` entries.
    pub weights: Buf<W>,
    /// `ξ^−j / M`, `M` entries.
    pub inv_weights: Buf<W>,
}

/// What a DGT pass launch does, as [`DgtArgs::new`] takes it.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DgtStep {
    /// The pass.
    pub geo: PassGeometry,
    /// What the launch does.
    pub op: Op,
    /// Where it reads.
    pub load: Order,
    /// Where it writes.
    pub store: Order,
    /// Polynomials per operand and tower.
    pub batch: u32,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> DgtArgs<W> {
    /// The block of one pass launch over `src → dst` (and `b`: the second
    /// operand, or [`Buf::none`]) with `tables`, the towers of `grid` and a
    /// one-tower launch's prime and Algorithm 4's `(µ, m)` for it. A
    /// [`Op::Forward`] launch with `b` transforms both operands. Checks what
    /// the [`DgtArgs`] docs say.
    pub fn new(
        (src, dst, b): (Buf<W>, Buf<W>, Buf<W>),
        tables: &DgtTables<W>,
        grid: &TowerGrid<W>,
        step: DgtStep,
        (p, mu, qbits): (W, W, u32),
    ) -> Result<Self, ArgsError> {
        let geo = step.geo;
        if geo.s0 >= geo.s1
            || geo.s1 > geo.log_m
            || geo.log_m >= 31
            || geo.log_cluster > geo.log_sets()
            || geo.log_unit > super::layout::MAX_LOG_UNIT.min(geo.k())
        {
            return Err(ArgsError::Size);
        }
        let dw = grid.data_words();
        let operands = if step.op == Op::Forward && !b.is_null() { 2 } else { 1 };
        let blocks = span(geo.blocks_per_poly() as u64 * step.batch as u64, operands, 0)?;
        if step.batch == 0 || dw != (step.batch as u64) << (geo.log_m + 1) || blocks > u32::MAX as u64 {
            return Err(ArgsError::Count);
        }
        grid.data(&src, dw)?;
        grid.data(&dst, dw)?;
        if step.op == Op::Polymul || operands == 2 {
            grid.data(&b, dw)?;
        }
        grid.table(&tables.tw, geo.twiddle_len() as u64)?;
        grid.table(&tables.tw_inv, geo.twiddle_len() as u64)?;
        grid.table(&tables.weights, 1 << geo.log_m)?;
        grid.table(&tables.inv_weights, 1 << geo.log_m)?;
        one_tower_modulus(grid, p, W::BITS - 2)?;
        let towers = grid.towers();
        Ok(DgtArgs {
            src: src.ptr,
            dst: dst.mut_ptr(),
            b: b.mut_ptr(),
            tw: tables.tw.ptr,
            tw_inv: tables.tw_inv.ptr,
            weights: tables.weights.ptr,
            inv_weights: tables.inv_weights.ptr,
            moduli: towers.moduli,
            data_words: dw,
            tw_words: towers.tw_words,
            geo,
            op: step.op,
            load: step.load,
            store: step.store,
            batch: step.batch,
            operands: operands as u32,
            qbits,
            p,
            mu,
        })
    }
}

impl<W: Gmem> DgtArgs<W> {
    /// What the launch does (the kernel to launch it on).
    #[inline(always)]
    pub fn op(&self) -> Op {
        self.op
    }

    /// Blocks of the launch's grid x: `λ`-set clusters of every polynomial
    /// of every operand.
    #[inline(always)]
    pub fn blocks(&self) -> u32 {
        let operands = if self.op == Op::Forward { self.operands } else { 1 };
        self.geo.blocks_per_poly() * self.batch * operands
    }

    /// Threads per block.
    #[inline(always)]
    pub fn threads(&self) -> u32 {
        self.geo.threads()
    }

    /// Shared words per block (before padding): [`op_shared_words`].
    #[inline(always)]
    pub fn shared_words(&self) -> usize {
        op_shared_words(&self.geo, self.op)
    }

    /// Phases of a block, each followed by a barrier: load, the steps
    /// ([`PassGeometry::steps`]: a stage each with Coala's fixed access,
    /// `log_unit` stages each with register units), store; a polymul's are
    /// load (both operands), the first operand's forward steps, the
    /// second's, the product, the inverse steps, store.
    #[inline(always)]
    pub fn phases(&self) -> u32 {
        if self.units() { self.phases_for::<true>() } else { self.phases_for::<false>() }
    }

    /// [`DgtArgs::phases`] of a kernel built for `UNIT` (= `geo.units()`),
    /// with the step count's form known at compile time.
    #[inline(always)]
    pub fn phases_for<const UNIT: bool>(&self) -> u32 {
        let steps = if UNIT { self.geo.steps() } else { self.geo.k() };
        match self.op {
            Op::Forward | Op::Inverse => steps + 2,
            Op::Polymul => 3 * steps + 3,
        }
    }

    /// Whether the pass runs register units ([`super::unit`]): the kernel
    /// to launch it on is the units kernel of its [`Op`].
    #[inline(always)]
    pub fn units(&self) -> bool {
        self.geo.units()
    }

    /// Block `blk` of tower `z`'s view of the launch.
    ///
    /// # Safety
    /// A non-null `moduli` holds at least `z + 1` rows.
    #[inline(always)]
    pub unsafe fn block(&self, blk: u32, z: u32) -> DgtBlock<'_, W> {
        let towers = Towers { moduli: self.moduli, data_words: self.data_words, tw_words: self.tw_words };
        // SAFETY: the table's rows (caller).
        let c = unsafe {
            towers
                .consts_plain(z, TowerConsts { parts: (self.p, self.p, 0), barrett4: (self.mu, self.qbits) })
        };
        let geo = &self.geo;
        let half = geo.blocks_per_poly() * self.batch;
        let (second, blk) = if blk >= half { (true, blk - half) } else { (false, blk) };
        let log_bpp = geo.log_sets() - geo.log_cluster;
        DgtBlock {
            args: self,
            z,
            off: z as usize * self.data_words as usize + (((blk >> log_bpp) as usize) << (geo.log_m + 1)),
            second,
            set0: (blk & ((1 << log_bpp) - 1)) << geo.log_cluster,
            shoup: Shoup::from_parts(c.parts.0, c.parts.1, c.parts.2),
            barrett4: Barrett4::from_parts(c.parts.0, c.barrett4.0, c.barrett4.1),
        }
    }
}

/// One block's share of a [`DgtArgs`] launch, its tower and operand
/// resolved: what [`DgtBlock::phase`] needs. Pointers are derived from the
/// arguments where a phase uses them (on the GPU the arguments stay in the
/// kernel's parameter space instead of occupying registers across phases).
#[derive(Debug, Clone, Copy)]
pub struct DgtBlock<'a, W> {
    args: &'a DgtArgs<W>,
    z: u32,
    /// Words from an operand's start to this block's polynomial.
    off: usize,
    /// The block transforms the second operand (a two-operand forward).
    second: bool,
    set0: u32,
    shoup: Shoup<W>,
    barrett4: Barrett4<W>,
}

impl<W: Word> DgtBlock<'_, W> {
    fn src(&self) -> *const W {
        let a = self.args;
        (if self.second { a.b as *const W } else { a.src }).wrapping_add(self.off)
    }

    fn dst(&self) -> *mut W {
        let a = self.args;
        (if self.second { a.b } else { a.dst }).wrapping_add(self.off)
    }

    fn b(&self) -> *const W {
        self.args.b.wrapping_add(self.off) as *const W
    }

    /// This tower's copy of a table of `len` entries.
    fn table(&self, base: *const W, len: u32) -> GaussTable<W> {
        GaussTable { base: base.wrapping_add(self.z as usize * self.args.tw_words as usize), len }
    }

    fn twiddles(&self, inverse: bool) -> GaussTable<W> {
        let a = self.args;
        self.table(if inverse { a.tw_inv } else { a.tw }, a.geo.twiddle_len())
    }

    fn weights(&self, inverse: bool) -> GaussTable<W> {
        let a = self.args;
        self.table(if inverse { a.inv_weights } else { a.weights }, 1 << a.geo.log_m)
    }

    /// The step phase `ph` of an `OP` launch runs, `(n, inverse)`; `None`
    /// for the load, product and store phases.
    #[inline(always)]
    fn step_of<const OP: u32, const UNIT: bool>(&self, ph: u32) -> Option<(u32, bool)> {
        let geo = &self.args.geo;
        let k = if UNIT { geo.steps() } else { geo.k() };
        let polymul = OP == Op::Polymul as u32;
        if ph == 0 {
            None
        } else if ph <= k {
            Some((ph - 1, OP == Op::Inverse as u32))
        } else if !polymul || ph == 2 * k + 1 || ph > 3 * k + 1 {
            None
        } else if ph <= 2 * k {
            Some((ph - k - 1, false))
        } else {
            Some((ph - 2 * k - 2, true))
        }
    }

    /// Phase `ph` (`< DgtArgs::phases`) of thread `tid` of a launch doing
    /// `OP` (an [`Op`] as `u32`: one kernel per operation, so each holds
    /// only its own registers) on a pass with register units if `UNIT`
    /// (one kernel each too); the block waits at a barrier after each
    /// phase. The GPU kernels and the CPU emulation run this same sequence.
    /// With Coala's fixed access `next` carries the thread's twiddle from
    /// phase to phase: each phase loads the next step's before the barrier,
    /// so the load's latency passes while the block waits (a step's twiddle
    /// comes from global memory, its data from shared memory). A
    /// register-unit step loads its own twiddles ([`super::unit::step`]).
    ///
    /// # Safety
    /// `OP` is the launch's `op` and `UNIT` its `geo.units()`;
    /// `tid < geo.threads()`; the launch's buffers and tables sized by the
    /// host; the tile holds [`DgtArgs::shared_words`]; `next` is what phase
    /// `ph − 1` of this thread left (anything for phase 0).
    #[inline(always)]
    pub unsafe fn phase<const OP: u32, const UNIT: bool, S: Shared<W>>(
        &self,
        s: &S,
        ph: u32,
        tid: u32,
        next: &mut Twiddle<W>,
    ) {
        let a = self.args;
        let (geo, red, set0) = (&a.geo, &self.shoup, self.set0);
        let k = if UNIT { geo.steps() } else { geo.k() };
        let b_tile = shared_words(geo);
        let polymul = OP == Op::Polymul as u32;
        // The buffer the forward's last step writes (the store's, the
        // product's source).
        let last_buf = if UNIT { 0 } else { geo.k() & 1 };
        // Thread `tid`'s elements in the load, product and store phases.
        let (per, threads) = if UNIT { (geo.per_thread(), geo.threads()) } else { (1, 0) };
        // SAFETY: this function's contract (its `# Safety`: `OP` is the launch's op, `UNIT` its
        // geometry's, `tid` below the threads, buffers, tables and tile sized for `geo`),
        // established by its caller (the DGT kernels: the invariants of `DgtArgs`), is what
        // `step`, `unit::step`, `load`, `product`, `store` and `step_twiddle` require, with the
        // tile offsets of this block; the elements `tid + m · threads`, `m < per`, are below
        // `λ·2^k` (`threads · per = λ·2^k` with register units; `tid` itself with Coala's).
        unsafe {
            if let Some((n, inverse)) = self.step_of::<OP, UNIT>(ph) {
                // The second operand's stages come after the first's (one
                // at a time: both at once would need more than 64 registers).
                let tile = if polymul && ph > k && ph <= 2 * k { b_tile } else { 0 };
                if UNIT {
                    super::unit::step(s, tile, geo, set0, n, tid, inverse, &self.twiddles(inverse), red);
                } else {
                    step(s, tile, geo, n, tid, inverse, *next, red);
                }
            } else {
                for m in 0..per {
                    let e = tid + m * threads;
                    if ph == 0 {
                        let w = self.weights(false);
                        load::<_, _, _, UNIT>(self.src(), s, 0, geo, set0, e, a.load, &w, red);
                        if polymul {
                            load::<_, _, _, UNIT>(self.b(), s, b_tile, geo, set0, e, a.load, &w, red);
                        }
                    } else if polymul && ph == 2 * k + 1 {
                        product::<_, _, UNIT>(s, geo, last_buf, e, &self.barrett4);
                    } else {
                        let (dst, w) = (self.dst(), self.weights(true));
                        store::<_, _, _, UNIT>(dst, s, 0, geo, (set0, last_buf), e, a.store, &w, red);
                    }
                }
            }
            if UNIT {
                return;
            }
            if let Some((n, inverse)) = self.step_of::<OP, UNIT>(ph + 1) {
                *next = step_twiddle::<W, Shoup<W>>(geo, set0, n, tid, inverse, &self.twiddles(inverse));
            }
        }
    }

    /// [`DgtBlock::phase`] for the launch's own `op` (the CPU emulation's
    /// entry).
    ///
    /// # Safety
    /// As [`DgtBlock::phase`].
    #[inline(always)]
    pub unsafe fn phase_of_op<S: Shared<W>>(&self, s: &S, ph: u32, tid: u32, next: &mut Twiddle<W>) {
        const F: u32 = Op::Forward as u32;
        const I: u32 = Op::Inverse as u32;
        const P: u32 = Op::Polymul as u32;
        // SAFETY: `phase`'s contract is this function's, established by its caller; `OP` is
        // the launch's own `op` and `UNIT` its geometry's, as `phase` requires.
        unsafe {
            match (self.args.op, self.args.geo.units()) {
                (Op::Forward, false) => self.phase::<F, false, S>(s, ph, tid, next),
                (Op::Inverse, false) => self.phase::<I, false, S>(s, ph, tid, next),
                (Op::Polymul, false) => self.phase::<P, false, S>(s, ph, tid, next),
                (Op::Forward, true) => self.phase::<F, true, S>(s, ph, tid, next),
                (Op::Inverse, true) => self.phase::<I, true, S>(s, ph, tid, next),
                (Op::Polymul, true) => self.phase::<P, true, S>(s, ph, tid, next),
            }
        }
    }
}
