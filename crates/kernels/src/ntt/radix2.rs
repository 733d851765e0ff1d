//! Radix-2 butterflies, one thread per butterfly, one launch per stage.
//!
//! This is the baseline of the NTT family: every stage reads and writes the
//! whole polynomial in global memory. The functions here are the per-thread
//! bodies; `entry` wraps them as kernels and the host runs them in a loop.

use crate::arith::{ModMul, add_mod, half_mod, sub_mod};
use crate::gmem::Gmem;
use crate::towers::Towers;
#[cfg(not(target_arch = "nvptx64"))]
use crate::{
    Word,
    args::{ArgsError, Buf, TowerGrid, one_tower_modulus},
};

/// The argument block of the radix-2 stage kernels
/// (`ntt_{fwd,inv}_radix2_stage_<reduction>_<word>`,
/// [`crate::names::Radix2Kernel`]): one `#[repr(C)]` value, the kernel's
/// only parameter, which the host fills field by field, so the two sides
/// cannot disagree on order or types. Thread `t < total` runs
/// [`ct_butterfly`] (forward) or [`gs_butterfly_half`] (inverse) of stage
/// `log_m` in tower `blockIdx.y`.
///
/// # Invariants
///
/// What the `unsafe` blocks of `ntt_{fwd,inv}_radix2_stage_*` rely on
/// (`N = 2^log_n`):
///
/// * `towers` satisfies the invariants of [`Towers`] with
///   `data_words = batch · N`; `a` points to `rows · batch · N` words of
///   global memory, tower `y`'s each below its modulus;
/// * `tw.main` (and `tw.aux` where the reduction has auxiliary words) holds
///   `N` prepared words per tower, `towers.tw_words` apart;
/// * `total = batch · N/2` and `log_m < log_n`;
/// * a one-tower launch's `(q, k, m)` are [`ModMul::parts`] of the
///   reduction for a modulus it accepts.
///
/// [`Radix2Args::new`] (host only) checks what it can see: the tower table
/// ([`TowerGrid`]); `a` non-null and holding `rows · data_words` words,
/// `data_words` a non-zero multiple of `N` with `total = data_words / 2`
/// below `2^32`; `1 ≤ log_n < 32`, `log_m < log_n`; `tw.main` (and a
/// non-null `tw.aux`) holding the `2^(log_m + 1)` words per tower the stage
/// reads, `tw_words` apart; a one-tower modulus in `3..2^(β−1)`. The words'
/// reduction, the tables' contents, `tw.aux` being there where the
/// reduction needs it, the constants matching the kernel's reduction and
/// the grid stay the caller's.
///
/// Established by `polymul::plan::launch::radix2_ntt` (host, through
/// [`Radix2Args::new`]), called by
/// `polymul::plan::engine::NttEngine` after `NttEngine::batch_of` / `NttEngine::pair`
/// (`polymul::layout::Towers::layout_of`) checked the buffers, with the tables and
/// constants that `NttEngine::new` prepared from moduli `polymul::NttParams::new`
/// validated.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Radix2Args<W> {
    /// The batch, tower 0's (tower `y` is `towers.data_words · y` further).
    pub(crate) a: *mut W,
    /// Tower 0's prepared twiddles (`Ψ_br` forward, `Ψ⁻¹_br` inverse), `N`
    /// words per tower.
    pub(crate) tw: Twiddles<W>,
    /// The RNS tower arguments ([`crate::towers`]).
    pub(crate) towers: Towers<W>,
    /// Butterflies per tower: `batch · N/2` (threads past it do nothing).
    pub(crate) total: u32,
    /// `log2 N`.
    pub(crate) log_n: u32,
    /// The stage: `log2` of its twiddle groups, `0 <= log_m < log_n`.
    pub(crate) log_m: u32,
    /// A one-tower launch's third reduction constant (`m` of
    /// [`ModMul::parts`]; a null tower table reads `q`, `k`, `m` from here).
    pub(crate) m: u32,
    /// A one-tower launch's modulus.
    pub(crate) q: W,
    /// A one-tower launch's second reduction constant.
    pub(crate) k: W,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> Radix2Args<W> {
    /// The block of stage `log_m` of a `2^log_n`-point transform of every
    /// polynomial of `a` (`grid.data_words()` words per tower) with the
    /// prepared twiddles `(main, aux)` (`aux`: [`Buf::none`] for a reduction
    /// without auxiliary words) and a one-tower launch's `(q, k, m)`
    /// ([`ModMul::parts`]). Checks what the [`Radix2Args`] docs say.
    pub fn new(
        a: Buf<W>,
        (main, aux): (Buf<W>, Buf<W>),
        grid: &TowerGrid<W>,
        log_n: u32,
        log_m: u32,
        (q, k, m): (W, W, u32),
    ) -> Result<Self, ArgsError> {
        grid.batch(log_n, 1)?;
        if log_m >= log_n {
            return Err(ArgsError::Size);
        }
        let dw = grid.data_words();
        grid.data(&a, dw)?;
        let tw = grid.twiddles(&main, &aux, 2u64 << log_m)?;
        one_tower_modulus(grid, q, W::BITS - 1)?;
        let total = (dw >> 1) as u32;
        Ok(Radix2Args { a: a.mut_ptr(), tw, towers: grid.towers(), total, log_n, log_m, m, q, k })
    }
}

/// Where the butterfly of thread `t` lives in stage `log_m` of an `N = 2^log_n`
/// transform over a batch of polynomials stored back to back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Butterfly {
    /// Index of the upper input `a[j]` in the whole batch.
    pub j: usize,
    /// Distance to the lower input `a[j + k]`.
    pub k: usize,
    /// Index of the twiddle in `Ψ_br` (or `Ψ⁻¹_br`): `m + i`.
    pub tw: usize,
}

/// Maps thread `t` (over `batch · N/2` threads) to its butterfly in the stage
/// with `m = 2^log_m` groups, `0 <= log_m < log_n`, `log_n >= 1`.
///
/// Shifts and masks only: no division, so no panic path on the GPU.
#[inline(always)]
pub fn butterfly(t: u32, log_n: u32, log_m: u32) -> Butterfly {
    let log_half = log_n - 1;
    let log_k = log_half - log_m;
    let poly = (t >> log_half) as usize;
    let b = t & ((1u32 << log_half) - 1);
    let i = b >> log_k;
    let j = (i << (log_k + 1)) | (b & ((1u32 << log_k) - 1));
    Butterfly { j: (poly << log_n) + j as usize, k: 1usize << log_k, tw: (1usize << log_m) + i as usize }
}

/// Loads the pair and the prepared twiddle of thread `t`, applies
/// `f(u, v, ξ)` and stores the two results back in place.
///
/// # Safety
/// As for [`ct_butterfly`].
#[inline(always)]
unsafe fn butterfly_with<W: Gmem, R: ModMul<W>>(
    a: *mut W,
    tw: Twiddles<W>,
    t: u32,
    log_n: u32,
    log_m: u32,
    f: impl FnOnce(W, W, R::Op) -> (W, W),
) {
    let bf = butterfly(t, log_n, log_m);
    // SAFETY: the caller guarantees the indices are inside the buffers.
    unsafe {
        let xi = tw.get::<R>(bf.tw);
        let pu = a.add(bf.j);
        let pv = a.add(bf.j + bf.k);
        let (x, y) = f(W::ld(pu), W::ld(pv), xi);
        W::st(pu, x);
        W::st(pv, y);
    }
}

/// A twiddle table prepared for a reduction ([`ModMul::prepare`]): the main
/// words and, for reductions that need one (Shoup), the auxiliary words.
/// `#[repr(C)]`: part of the kernels' argument blocks.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Twiddles<W> {
    /// `N` main words.
    pub main: *const W,
    /// `N` auxiliary words, or null when the reduction needs none.
    pub aux: *const W,
}

impl<W: Gmem> Twiddles<W> {
    /// Entry `i` as the reduction's operand: global loads through the
    /// read-only path (no kernel writes a twiddle table), the auxiliary
    /// word only where the reduction needs one.
    ///
    /// # Safety
    /// `i` is inside the table (and the auxiliary words, if `R::NEEDS_AUX`).
    #[inline(always)]
    pub unsafe fn get<R: ModMul<W>>(&self, i: usize) -> R::Op {
        // SAFETY: `i` is inside `main` (and `aux` where `R::NEEDS_AUX`), tables nothing writes
        // during the launch: this function's contract, established by its caller.
        unsafe {
            let aux = if R::NEEDS_AUX { W::ld_nc(self.aux.add(i)) } else { W::zero() };
            R::op(W::ld_nc(self.main.add(i)), aux)
        }
    }
}

/// Forward merged-CT butterfly of thread `t` in stage `log_m`:
/// `(a[j], a[j+k]) ← (a[j] + ξ·a[j+k], a[j] − ξ·a[j+k])` with `ξ = Ψ_br[m+i]`.
///
/// # Safety
/// `a` must hold the whole batch and `tw` the `N` prepared twiddles (and
/// auxiliary words if `R::NEEDS_AUX`); every coefficient must be `< q`;
/// `t < batch · N/2`.
#[inline(always)]
pub unsafe fn ct_butterfly<W: Gmem, R: ModMul<W>>(
    a: *mut W,
    tw: Twiddles<W>,
    t: u32,
    log_n: u32,
    log_m: u32,
    red: &R,
) {
    // SAFETY: `a`, `tw` and `t` satisfy this function's contract (its `# Safety`), which
    // `butterfly_with` shares; established by its caller (the radix-2 kernels: the invariants of
    // `Radix2Args`).
    unsafe {
        butterfly_with::<W, R>(a, tw, t, log_n, log_m, |u, v, xi| {
            let v = red.mul(v, xi);
            (add_mod(u, v, red.q()), sub_mod(u, v, red.q()))
        })
    }
}

/// Inverse merged-GS butterfly with ½-scaling of thread `t` in stage `log_m`:
/// `(a[j], a[j+k]) ← ((a[j] + a[j+k])/2, ξ·(a[j] − a[j+k])/2)` with
/// `ξ = Ψ⁻¹_br[m+i]`.
///
/// # Safety
/// As for [`ct_butterfly`], with `tw` the inverse twiddles.
#[inline(always)]
pub unsafe fn gs_butterfly_half<W: Gmem, R: ModMul<W>>(
    a: *mut W,
    tw: Twiddles<W>,
    t: u32,
    log_n: u32,
    log_m: u32,
    red: &R,
) {
    // SAFETY: `a`, `tw` and `t` satisfy this function's contract (its `# Safety`), which
    // `butterfly_with` shares; established by its caller (the radix-2 kernels: the invariants of
    // `Radix2Args`).
    unsafe {
        butterfly_with::<W, R>(a, tw, t, log_n, log_m, |u, v, xi| {
            let q = red.q();
            (half_mod(add_mod(u, v, q), q), half_mod(red.mul(sub_mod(u, v, q), xi), q))
        })
    }
}
