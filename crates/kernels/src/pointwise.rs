//! Element-wise (Hadamard) modular product.

use crate::arith::{Barrett4, ModMul, add_mod, sub_mod};
use crate::gmem::Gmem;
use crate::ntt::radix2::Twiddles;
use crate::towers::Towers;
#[cfg(not(target_arch = "nvptx64"))]
use crate::{
    Word,
    args::{ArgsError, Buf, TowerGrid, one_tower_modulus},
};

/// The argument block of the element-wise product kernel
/// (`pointwise_mul_<word>`, [`crate::names::PointwiseKernel`]): one
/// `#[repr(C)]` value, the kernel's only parameter, which the host fills
/// field by field. Thread `t < len` of block row `y` computes
/// [`mul_at`] on element `t` of tower `y`.
///
/// # Invariants
///
/// What the `unsafe` blocks of `pointwise_mul_*` rely on:
///
/// * `towers` satisfies the invariants of [`Towers`] (`tw_words` unused),
///   `len <= towers.data_words`;
/// * `out`, `a` and `b` each point to `rows · towers.data_words` words of
///   global memory (`out` may be `a` exactly), tower `y`'s words of `a` and
///   `b` below its modulus;
/// * a one-tower launch's `(q, mu, qbits)` are Algorithm 4's constants of
///   its modulus.
///
/// [`PointwiseArgs::new`] (host only) checks what it can see: the tower
/// table ([`TowerGrid`]); `out`, `a` and `b` non-null and holding
/// `rows · data_words` words, `0 < data_words < 2^32`, `len = data_words`;
/// a one-tower modulus with `4q < 2^β`. That `out` is `a` exactly or
/// disjoint from both, the words' reduction, the constants being Algorithm
/// 4's for the modulus and the grid stay the caller's.
///
/// Established by `polymul::plan::launch::pointwise_mul` (host, through
/// [`PointwiseArgs::new`]: `len = data_words`,
/// grid `⌈len / 256⌉ × rows`), whose callers
/// (`polymul::plan::engine::NttEngine::pointwise_mul`, `NttEngine::polymul_in_place`)
/// checked both buffers with `polymul::layout::Towers::operands`.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct PointwiseArgs<W> {
    /// The product, tower 0's (may be `a` itself).
    pub(crate) out: *mut W,
    /// The first factor, tower 0's.
    pub(crate) a: *const W,
    /// The second factor, tower 0's.
    pub(crate) b: *const W,
    /// The RNS tower arguments ([`crate::towers`]; `tw_words` unused).
    pub(crate) towers: Towers<W>,
    /// Elements per tower.
    pub(crate) len: u32,
    /// Algorithm 4's bit length `m` of a one-tower launch's modulus.
    pub(crate) qbits: u32,
    /// A one-tower launch's modulus.
    pub(crate) q: W,
    /// Algorithm 4's `µ` of that modulus.
    pub(crate) mu: W,
}

/// The argument block of the fused Hadamard kernels
/// (`fused_hadamard_<reduction>_<word>`,
/// [`crate::names::FusedHadamardKernel`]): one `#[repr(C)]` value, the
/// kernel's only parameter, which the host fills field by field. Thread
/// `t < total` of block row `y` runs [`fused_pair_at`] on pair `t` of
/// tower `y`.
///
/// # Invariants
///
/// What the `unsafe` blocks of `fused_hadamard_*` rely on (`N = 2^log_n`):
///
/// * `towers` satisfies the invariants of [`Towers`] with
///   `data_words = batch · N`; `a` and `b` each point to `rows · batch · N`
///   reduced words of global memory;
/// * `tw` holds at least the first `N/2` prepared forward twiddles per
///   tower, `towers.tw_words` apart;
/// * `total = batch · N/2`; the one-tower constants are those of the
///   plan's reduction and Algorithm 4 for its modulus.
///
/// [`FusedHadamardArgs::new`] (host only) checks what it can see: the tower
/// table ([`TowerGrid`]); `a` and `b` non-null and holding
/// `rows · data_words` words, `data_words` a non-zero multiple of `N` with
/// `total = data_words / 2` below `2^32`; `2 ≤ log_n < 32`; `tw.main` (and
/// a non-null `tw.aux`) holding `N/2` words per tower; a one-tower modulus
/// with `4q < 2^β`. The words' reduction, the tables' contents, `tw.aux`
/// being there where the reduction needs it, the constants and the grid
/// stay the caller's.
///
/// Established by `polymul::plan::launch::fused_hadamard` (host, through
/// [`FusedHadamardArgs::new`]), called by
/// `polymul::plan::engine::NttEngine::hadamard_step` after `NttEngine::pair`
/// (`polymul::layout::Towers::operands`) checked both buffers.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct FusedHadamardArgs<W> {
    /// The first operand, updated in place, tower 0's.
    pub(crate) a: *mut W,
    /// The second operand, tower 0's.
    pub(crate) b: *const W,
    /// Tower 0's prepared forward twiddles (only the first half is read).
    pub(crate) tw: Twiddles<W>,
    /// The RNS tower arguments ([`crate::towers`]).
    pub(crate) towers: Towers<W>,
    /// Pairs per tower: `batch · N/2`.
    pub(crate) total: u32,
    /// `log2 N`.
    pub(crate) log_n: u32,
    /// A one-tower launch's third reduction constant (`m` of
    /// [`ModMul::parts`]).
    pub(crate) m: u32,
    /// Algorithm 4's bit length of a one-tower launch's modulus.
    pub(crate) qbits: u32,
    /// A one-tower launch's modulus.
    pub(crate) q: W,
    /// A one-tower launch's second reduction constant.
    pub(crate) k: W,
    /// Algorithm 4's `µ` of that modulus.
    pub(crate) mu: W,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> PointwiseArgs<W> {
    /// The block of `out ← a ⊗ b` over every tower's `grid.data_words()`
    /// words (`out` may be `a` itself), a one-tower launch's modulus and
    /// Algorithm 4's constants `barrett`. The block reads no twiddles
    /// (`tw_words` is set to 0). Checks what the [`PointwiseArgs`] docs say.
    pub fn new(
        out: Buf<W>,
        a: Buf<W>,
        b: Buf<W>,
        grid: &TowerGrid<W>,
        barrett: Barrett4<W>,
    ) -> Result<Self, ArgsError> {
        let dw = grid.data_words();
        if dw == 0 || dw > u32::MAX as u64 {
            return Err(ArgsError::Count);
        }
        for buf in [&out, &a, &b] {
            grid.data(buf, dw)?;
        }
        one_tower_modulus(grid, barrett.q, W::BITS - 2)?;
        Ok(PointwiseArgs {
            out: out.mut_ptr(),
            a: a.ptr,
            b: b.ptr,
            towers: grid.with_tw_words(0).towers(),
            len: dw as u32,
            qbits: barrett.m,
            q: barrett.q,
            mu: barrett.mu,
        })
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> FusedHadamardArgs<W> {
    /// The block of the fused Hadamard step over `a` (updated) and `b`,
    /// `grid.data_words()` words per tower of `2^log_n`-word polynomials,
    /// with the prepared forward twiddles `(main, aux)` (`aux`:
    /// [`Buf::none`] for a reduction without auxiliary words), a one-tower
    /// launch's reduction constants `(q, k, m)` ([`ModMul::parts`]) and
    /// Algorithm 4's `barrett` for the same modulus. Checks what the
    /// [`FusedHadamardArgs`] docs say.
    pub fn new(
        a: Buf<W>,
        b: Buf<W>,
        (main, aux): (Buf<W>, Buf<W>),
        grid: &TowerGrid<W>,
        log_n: u32,
        (q, k, m): (W, W, u32),
        barrett: Barrett4<W>,
    ) -> Result<Self, ArgsError> {
        grid.batch(log_n, 2)?;
        let dw = grid.data_words();
        grid.data(&a, dw)?;
        grid.data(&b, dw)?;
        let tw = grid.twiddles(&main, &aux, 1u64 << (log_n - 1))?;
        one_tower_modulus(grid, barrett.q, W::BITS - 2)?;
        one_tower_modulus(grid, q, W::BITS - 2)?;
        Ok(FusedHadamardArgs {
            a: a.mut_ptr(),
            b: b.ptr,
            tw,
            towers: grid.towers(),
            total: (dw >> 1) as u32,
            log_n,
            m,
            qbits: barrett.m,
            q,
            k,
            mu: barrett.mu,
        })
    }
}

/// `out[i] = a[i] · b[i] mod q` for element `i`.
///
/// # Safety
/// `i` must be inside all three buffers (which may alias exactly) and
/// `a[i], b[i] < q`.
#[inline(always)]
pub unsafe fn mul_at<W: Gmem>(out: *mut W, a: *const W, b: *const W, i: usize, red: &Barrett4<W>) {
    // SAFETY: the caller guarantees `i` is in bounds.
    unsafe { W::st(out.add(i), red.mul(W::ld(a.add(i)), W::ld(b.add(i)))) }
}

/// The fused step of Algorithm 8 for pair `t` (over `batch · N/2` pairs,
/// `N ≥ 4`) of the truncated forward transforms `a` (updated in place) and
/// `b`: with `(a0, a1) = a[2i..2i+2]`, `(b0, b1) = b[2i..2i+2]` and
/// `α² = ±Ψ_br[N/4 + ⌊i/2⌋]` (`+` for even `i`):
/// `a[2i] ← a0·b0 + α²·a1·b1`, `a[2i+1] ← (a0+a1)(b0+b1) − a0·b0 − a1·b1`
/// — 4 products instead of 5, no `½`. The three data products use
/// Algorithm 4; the `α²` product the plan's reduction `R` with its prepared
/// twiddle, so only the first half of the table is ever read.
///
/// # Safety
/// `t < batch · N/2`; `a`, `b` hold the batch (reduced words); `tw` holds at
/// least the first `N/2` prepared forward twiddles.
#[inline(always)]
pub unsafe fn fused_pair_at<W: Gmem, R: ModMul<W>>(
    a: *mut W,
    b: *const W,
    tw: Twiddles<W>,
    t: u32,
    log_n: u32,
    red: &R,
    b4: &Barrett4<W>,
) {
    let q = b4.q;
    let half_log = log_n - 1;
    let i = t & ((1u32 << half_log) - 1);
    let j = (((t >> half_log) as usize) << log_n) | (2 * i) as usize;
    let ti = ((1usize << log_n) >> 2) + (i >> 1) as usize;
    // SAFETY: indices inside the batch and the table's first half (caller).
    unsafe {
        let (a0, a1) = (W::ld(a.add(j)), W::ld(a.add(j + 1)));
        let (b0, b1) = (W::ld(b.add(j)), W::ld(b.add(j + 1)));
        let alpha2 = tw.get::<R>(ti);
        let u = b4.mul(a0, b0);
        let v = b4.mul(a1, b1);
        let w = b4.mul(add_mod(a0, a1, q), add_mod(b0, b1, q));
        let z = red.mul(v, alpha2);
        W::st(a.add(j + 1), sub_mod(sub_mod(w, u, q), v, q));
        W::st(a.add(j), if i & 1 == 0 { add_mod(u, z, q) } else { sub_mod(u, z, q) });
    }
}
