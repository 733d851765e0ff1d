//! RNS towers as a grid dimension.
//!
//! A polynomial modulo a large `Q = q_0 ⋯ q_{k−1}` is `k` residue
//! polynomials (towers), each with its own prime, reduction constants and
//! twiddle tables. The NTT, pointwise and fused kernels run every tower of a
//! batch in one launch: block row `y = blockIdx.y` works on tower `y`, whose
//! data starts `y · data_words` words into the buffer and whose twiddles
//! start `y · tw_words` words into each table, and whose constants are row
//! `y` of a small device table of [`TOWER_WORDS`] words per tower.
//!
//! A one-tower launch passes a null table, zero strides and one block row;
//! the kernels then use their scalar constants, exactly as before towers
//! existed.

use crate::Word;
use crate::gmem::Gmem;
use crate::ntt::radix2::Twiddles;

/// Words per tower in the constants table: the butterfly reduction's
/// `(q, k, m)` ([`crate::arith::ModMul::parts`]) and Algorithm 4's `(µ, m)`
/// for the pointwise products.
pub const TOWER_WORDS: usize = 5;

/// Column of `q` in a tower's row.
pub const Q: usize = 0;
/// Column of the butterfly reduction's second constant.
pub const K: usize = 1;
/// Column of the butterfly reduction's third constant (a `u32`, stored widened).
pub const M: usize = 2;
/// Column of Algorithm 4's `µ`.
pub const MU: usize = 3;
/// Column of Algorithm 4's bit width `m` (a `u32`, stored widened).
pub const QBITS: usize = 4;

/// The tower arguments of one launch: part of every data kernel's argument
/// block (`#[repr(C)]`, so the host builds the very same bytes).
///
/// # Invariants
///
/// What every kernel taking a `Towers` relies on when it reads the table
/// ([`Towers::consts`]) and offsets its pointers by tower
/// ([`Towers::data`], [`Towers::twiddles`]):
///
/// * the grid's tower extent (`gridDim.y`; the DGT codec and pointwise
///   kernels: `gridDim.z`) is the number of towers, `rows`;
/// * `moduli` is null and `rows = 1`, or points to `rows · TOWER_WORDS`
///   readable words of global memory, row `y` being [`TowerConsts::row`] of
///   tower `y`, unchanged during the launch;
/// * `data_words` is one tower's words of data (`batch · N`: `batch · 2M`
///   for the DGT), so tower `y`'s data lies `y · data_words` words into each
///   data buffer of `rows · data_words` words;
/// * `tw_words` is one tower's words of each twiddle table (kernels that
///   read tables).
///
/// Established on the host by `polymul::gpu::launch::TowerLaunch::towers`, whose
/// `TowerLaunch` comes from `polymul::plan::engine::NttEngine::tower_launch` (NTT and
/// RNS plans: `rows` = the plan's towers, `data_words = batch · N` for the
/// batch that `polymul::layout::Towers::layout_of` checked, the table uploaded by
/// `NttEngine::new` from `polymul::layout::Towers::table_rows`) or from
/// `polymul::dgt::plan::DgtPlan::launch_args` (DGT plans, the same way).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Towers<W> {
    /// `TOWER_WORDS` words per tower, or null for a one-tower launch.
    pub moduli: *const W,
    /// Words between the starts of consecutive towers' data (`batch · N`).
    pub data_words: u64,
    /// Words between the starts of consecutive towers' twiddle tables
    /// (unused by the kernels without tables: the pointwise products).
    pub tw_words: u32,
}

/// A tower's constants: `[q, k, m, µ, qbits]`, the `m` and `qbits` entries
/// as `u32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TowerConsts<W> {
    /// The butterfly reduction's `(q, k, m)`.
    pub parts: (W, W, u32),
    /// Algorithm 4's `(µ, m)` for the same `q`.
    pub barrett4: (W, u32),
}

impl<W: Gmem> Towers<W> {
    /// Tower `y`'s constants: row `y` of the table (global loads through
    /// the read-only path: no kernel writes the table), or `scalars` when
    /// the table is null (a one-tower launch).
    ///
    /// # Safety
    /// A non-null table holds at least `(y + 1) · TOWER_WORDS` words.
    #[inline(always)]
    pub unsafe fn consts(&self, y: u32, scalars: TowerConsts<W>) -> TowerConsts<W> {
        // SAFETY: a non-null table holds row `y` (this function's contract, established by its
        // caller: the invariants of `Towers`), and nothing writes the table during a launch, as
        // `ld_nc` requires.
        unsafe { self.consts_by(y, scalars, |p| W::ld_nc(p)) }
    }
}

impl<W: Word> Towers<W> {
    /// [`Towers::consts`] through plain pointer reads, which the compiler
    /// schedules itself: the DGT pass kernels' form (as before the explicit
    /// loads; on an H100 the read-only and global forms made those kernels
    /// 1–11% slower, docs/results/2026-11-25-nvidia-h100-issue17-closeout).
    ///
    /// # Safety
    /// As for [`Towers::consts`].
    #[inline(always)]
    pub unsafe fn consts_plain(&self, y: u32, scalars: TowerConsts<W>) -> TowerConsts<W> {
        // SAFETY: a non-null table holds row `y`: this function's contract (as for
        // `Towers::consts`), established by its caller.
        unsafe { self.consts_by(y, scalars, |p| *p) }
    }

    /// Tower `y`'s constants, each word read by `load`, or `scalars` for a
    /// null table.
    ///
    /// # Safety
    /// As for [`Towers::consts`]; `load` reads the word it is given.
    #[inline(always)]
    unsafe fn consts_by(
        &self,
        y: u32,
        scalars: TowerConsts<W>,
        load: impl Fn(*const W) -> W,
    ) -> TowerConsts<W> {
        if self.moduli.is_null() {
            return scalars;
        }
        // SAFETY: row `y` is inside the table (caller).
        unsafe {
            let row = self.moduli.add(y as usize * TOWER_WORDS);
            let at = |c: usize| load(row.add(c));
            TowerConsts {
                parts: (at(Q), at(K), at(M).as_u64() as u32),
                barrett4: (at(MU), at(QBITS).as_u64() as u32),
            }
        }
    }

    /// Start of tower `y`'s data.
    #[inline(always)]
    pub fn data<T>(&self, a: *mut T, y: u32) -> *mut T {
        a.wrapping_add(y as usize * self.data_words as usize)
    }

    /// Tower `y`'s twiddle table.
    #[inline(always)]
    pub fn twiddles(&self, tw: Twiddles<W>, y: u32) -> Twiddles<W> {
        let off = y as usize * self.tw_words as usize;
        Twiddles { main: tw.main.wrapping_add(off), aux: tw.aux.wrapping_add(off) }
    }
}

impl<W: Word> TowerConsts<W> {
    /// A row of the constants table, as the host uploads it.
    pub fn row(&self) -> [W; TOWER_WORDS] {
        let (q, k, m) = self.parts;
        let (mu, qbits) = self.barrett4;
        [q, k, W::from_u64(m as u64), mu, W::from_u64(qbits as u64)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_reads_back_as_the_constants_it_was_made_from() {
        let c = TowerConsts { parts: (97u64, 5, 7), barrett4: (11, 13) };
        let table = [c.row(), TowerConsts { parts: (193, 1, 2), barrett4: (3, 4) }.row()].concat();
        let t = Towers { moduli: table.as_ptr(), data_words: 0, tw_words: 0 };
        let zero = TowerConsts { parts: (0, 0, 0), barrett4: (0, 0) };
        // SAFETY: two rows.
        unsafe {
            assert_eq!(t.consts(0, zero), c);
            assert_eq!(t.consts(1, zero).parts, (193, 1, 2));
            assert_eq!(t.consts(1, zero).barrett4, (3, 4));
        }
        let none = Towers::<u64> { moduli: core::ptr::null(), data_words: 0, tw_words: 0 };
        // SAFETY: a null table is never read.
        unsafe { assert_eq!(none.consts(3, c), c) };
    }

    #[test]
    fn tower_offsets_scale_with_the_row() {
        let t = Towers::<u32> { moduli: core::ptr::null(), data_words: 1 << 20, tw_words: 512 };
        let base = core::ptr::null_mut::<u32>();
        assert_eq!(t.data(base, 3) as usize, 3 << 22);
        let tw = t.twiddles(Twiddles { main: core::ptr::null(), aux: core::ptr::null() }, 2);
        assert_eq!(tw.main as usize, 2 * 512 * 4);
        assert_eq!(tw.aux as usize, 2 * 512 * 4);
    }
}
