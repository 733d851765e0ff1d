//! Coala's element-wise DGT kernels, one thread per element: encoding (the
//! weights `ξ^j` and the first pass's packing), decoding (the inverse) and
//! the pointwise Gaussian product, with their argument blocks
//! [`DgtCodecArgs`] and [`DgtPointwiseArgs`]. The fused pipeline folds
//! encoding and decoding into the passes ([`super::pass`]); Coala's runs
//! these kernels around them.

use super::gauss::Gauss;
use super::gauss::GaussTable;
use super::layout::PassGeometry;
use crate::Word;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf, TowerGrid, one_tower_modulus};
use crate::arith::{Barrett4, ModMul};
use crate::towers::Towers;

/// Packed position (for the first pass `geo0`) of logical element `j`.
#[inline(always)]
pub fn packed_of(geo0: &PassGeometry, j: u32) -> u32 {
    let low = geo0.log_low();
    let c = j & ((1 << low) - 1);
    let r = (j >> low) & ((1 << geo0.k()) - 1);
    let h = j >> (geo0.log_m - geo0.s0);
    geo0.packed((h << low) | c, r)
}

/// Encoding (`DECODE = false`) or decoding (`true`) of element `j` of one
/// polynomial; one body, the two directions mirror each other.
///
/// - Encoding: `x_j = (a_j + i·a_{j+M})·ξ^j` (`table` = the prepared
///   `ξ^j`), read at `j` and written at its packed position for the first
///   pass `geo0` (Algorithm 1; the identity for a one-pass transform).
/// - Decoding: the Gaussian at `j`'s packed position times
///   `table[j] = ξ^−j / M`, written back at `j`: `c_j` (real part) and
///   `c_{j+M}` (imaginary part).
///
/// # Safety
/// `j < M`; `src`, `dst` hold `2M` words and do not overlap; `table` has
/// `M` entries.
#[inline(always)]
pub unsafe fn codec<W: Word, R: ModMul<W>, const DECODE: bool>(
    src: *const W,
    dst: *mut W,
    geo0: &PassGeometry,
    j: u32,
    table: &GaussTable<W>,
    red: &R,
) {
    let m = 1usize << geo0.log_m;
    let pos = packed_of(geo0, j) as usize;
    let (from, to) = if DECODE { (pos, j as usize) } else { (j as usize, pos) };
    // SAFETY: `j < M` and `pos = packed_of(geo0, j) < M`, so `from`, `to` and `m + from`,
    // `m + to` are below `2M`, inside `src` and `dst`; `table` has `M` entries: this function's
    // contract, established by its caller.
    unsafe {
        let x = Gauss { re: *src.add(from), im: *src.add(m + from) };
        let y = x.mul_op(table.get::<R>(j), red);
        *dst.add(to) = y.re;
        *dst.add(m + to) = y.im;
    }
}

/// Encoding of element `j`: [`codec`] forwards.
///
/// # Safety
/// As [`codec`].
#[inline(always)]
pub unsafe fn encode<W: Word, R: ModMul<W>>(
    src: *const W,
    dst: *mut W,
    geo0: &PassGeometry,
    j: u32,
    weights: &GaussTable<W>,
    red: &R,
) {
    // SAFETY: `codec`'s contract (`j < M`, `src` and `dst` of `2M` words, disjoint, `weights` of
    // `M` entries) is this function's, established by its caller.
    unsafe { codec::<W, R, false>(src, dst, geo0, j, weights, red) }
}

/// Decoding of element `j`: [`codec`] backwards.
///
/// # Safety
/// As [`codec`].
#[inline(always)]
pub unsafe fn decode<W: Word, R: ModMul<W>>(
    src: *const W,
    dst: *mut W,
    geo0: &PassGeometry,
    j: u32,
    inv_weights: &GaussTable<W>,
    red: &R,
) {
    // SAFETY: `codec`'s contract (`j < M`, `src` and `dst` of `2M` words, disjoint,
    // `inv_weights` of `M` entries) is this function's, established by its caller.
    unsafe { codec::<W, R, true>(src, dst, geo0, j, inv_weights, red) }
}

/// Pointwise Gaussian product of element `j`: `a_j ← a_j · b_j`.
///
/// # Safety
/// `j < M`; both buffers hold `2M` words.
#[inline(always)]
pub unsafe fn pointwise<W: Word>(a: *mut W, b: *const W, m: usize, j: usize, red: &Barrett4<W>) {
    // SAFETY: `j < M`, so `j` and `m + j` are below `2M`, inside both buffers: this function's
    // contract, established by its caller.
    unsafe {
        let x = Gauss { re: *a.add(j), im: *a.add(m + j) };
        let y = Gauss { re: *b.add(j), im: *b.add(m + j) };
        let z = x.mul(y, red);
        *a.add(j) = z.re;
        *a.add(m + j) = z.im;
    }
}

/// The argument block of Coala's encoding and decoding kernels
/// (`dgt_{encode,decode}_<word>`, [`crate::names::DgtCodecKernel`]): one
/// `#[repr(C)]` value, the kernel's only parameter, which the host fills
/// field by field. Thread `t < total` of grid layer `z = blockIdx.z` runs
/// [`codec`] on element `t mod M` of polynomial `t / M` of tower `z`.
///
/// # Invariants
///
/// What the `unsafe` blocks of `dgt_{encode,decode}_*` rely on
/// (`M = 2^log_m`): `towers` satisfies the invariants of [`Towers`] with
/// `data_words = batch · 2M`; `src` and `dst` each point to
/// `rows · batch · 2M` words; `table` holds `M` entries per tower,
/// `towers.tw_words` apart; `total = batch · M`; `s1` is the plan's first
/// pass's. [`DgtCodecArgs::new`] (host only) checks the tower table
/// ([`TowerGrid`]), `src` and `dst` non-null, distinct and holding
/// `rows · batch · 2M` words (`data_words` a non-zero multiple of `2M`,
/// `total` below `2^32`), `table` holding `M` entries of the last tower,
/// `tw_words` after the previous one's, `s1 ≤ log_m < 31` and a one-tower
/// prime with `4p < 2^β`; the table's contents and `s1` being the plan's
/// stay the caller's. Established by `polymul::dgt::launch::dgt_code`
/// (host, through [`DgtCodecArgs::new`]), from the
/// `DgtLaunch` of `polymul::dgt::plan::DgtPlan::launch_args` (the buffer checked by
/// `polymul::layout::Towers::layout_of`).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct DgtCodecArgs<W> {
    /// The input, tower 0's.
    pub(crate) src: *const W,
    /// The output (distinct from `src`), tower 0's.
    pub(crate) dst: *mut W,
    /// Tower 0's weights `ξ^j` (encoding) or inverse weights `ξ^−j / M`
    /// (decoding), `M` entries; tower `z`'s are `towers.tw_words · z`
    /// further.
    pub(crate) table: *const W,
    /// The RNS tower arguments ([`crate::towers`]; grid z is the tower).
    pub(crate) towers: Towers<W>,
    /// Elements per tower: `batch · M`.
    pub(crate) total: u32,
    /// `log2 M`.
    pub(crate) log_m: u32,
    /// The first pass's `s1` (its packing, [`PassGeometry`]).
    pub(crate) s1: u32,
    /// A one-tower launch's prime.
    pub(crate) p: W,
}

/// The argument block of Coala's pointwise Gaussian product kernel
/// (`dgt_pointwise_<word>`, [`crate::names::DgtPointwiseKernel`]): one
/// `#[repr(C)]` value, the kernel's only parameter, which the host fills
/// field by field. Thread `t < total` of grid layer `z` runs [`pointwise`]
/// on element `t mod M` of polynomial `t / M` of tower `z`.
///
/// # Invariants
///
/// What the `unsafe` blocks of `dgt_pointwise_*` rely on (`M = 2^log_m`):
/// `towers` satisfies the invariants of [`Towers`] with
/// `data_words = batch · 2M` (`tw_words` unused); `a` and `b` each point to
/// `rows · batch · 2M` words below the tower's prime; `total = batch · M`.
/// [`DgtPointwiseArgs::new`] (host only) checks the tower table
/// ([`TowerGrid`]), `a` and `b` non-null and holding `rows · batch · 2M`
/// words (`data_words` a non-zero multiple of `2M`, `total` below `2^32`),
/// `log_m < 31` and a one-tower prime with `4p < 2^β`; the words being below
/// the prime stays the caller's.
/// Established by `polymul::dgt::launch::dgt_pointwise` (host, through
/// [`DgtPointwiseArgs::new`]), from the `DgtLaunch`
/// of `polymul::dgt::plan::DgtPlan::launch_args`; `DgtPlan::pointwise_mul` checks
/// both buffers with `polymul::layout::Towers::operands`.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct DgtPointwiseArgs<W> {
    /// The first factor and the product, tower 0's.
    pub(crate) a: *mut W,
    /// The second factor, tower 0's.
    pub(crate) b: *const W,
    /// The RNS tower arguments ([`crate::towers`]; `tw_words` unused).
    pub(crate) towers: Towers<W>,
    /// Elements per tower: `batch · M`.
    pub(crate) total: u32,
    /// `log2 M`.
    pub(crate) log_m: u32,
    /// Algorithm 4's bit length of a one-tower launch's prime.
    pub(crate) qbits: u32,
    /// A one-tower launch's prime.
    pub(crate) p: W,
    /// Algorithm 4's `µ` of that prime.
    pub(crate) mu: W,
}

/// `data_words / 2`, the Gaussians per tower (`batch · M`), checked: `M =
/// 2^log_m` with `log_m < 31`, `data_words` a non-zero multiple of `2M`,
/// the count below `2^32`.
#[cfg(not(target_arch = "nvptx64"))]
fn gaussians<W: Copy>(grid: &TowerGrid<W>, log_m: u32) -> Result<u32, ArgsError> {
    if log_m >= 31 {
        return Err(ArgsError::Size);
    }
    let dw = grid.data_words();
    if dw == 0 || dw & ((2u64 << log_m) - 1) != 0 || dw >> 1 > u32::MAX as u64 {
        return Err(ArgsError::Count);
    }
    Ok((dw >> 1) as u32)
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> DgtCodecArgs<W> {
    /// The block of Coala's encoding or decoding of every polynomial of
    /// `src` into `dst` (distinct buffers) with the weights `table` (tower
    /// 0's, `tw_words` apart), the first pass's `s1` and a one-tower launch's
    /// prime `p`. Checks what the [`DgtCodecArgs`] docs say.
    pub fn new(
        src: Buf<W>,
        dst: Buf<W>,
        table: Buf<W>,
        grid: &TowerGrid<W>,
        log_m: u32,
        s1: u32,
        p: W,
    ) -> Result<Self, ArgsError> {
        let total = gaussians(grid, log_m)?;
        if s1 > log_m {
            return Err(ArgsError::Size);
        }
        let dw = grid.data_words();
        grid.data(&src, dw)?;
        grid.data(&dst, dw)?;
        if core::ptr::eq(src.ptr, dst.ptr) {
            return Err(ArgsError::Count);
        }
        grid.table(&table, 1 << log_m)?;
        one_tower_modulus(grid, p, W::BITS - 2)?;
        Ok(DgtCodecArgs {
            src: src.ptr,
            dst: dst.mut_ptr(),
            table: table.ptr,
            towers: grid.towers(),
            total,
            log_m,
            s1,
            p,
        })
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> DgtPointwiseArgs<W> {
    /// The block of `a ← a · b` (Gaussian products) over every polynomial,
    /// with a one-tower launch's prime `p` and Algorithm 4's `(µ, m)` for
    /// it. The block reads no tables (`tw_words` is set to 0). Checks what
    /// the [`DgtPointwiseArgs`] docs say.
    pub fn new(
        a: Buf<W>,
        b: Buf<W>,
        grid: &TowerGrid<W>,
        log_m: u32,
        (p, mu, qbits): (W, W, u32),
    ) -> Result<Self, ArgsError> {
        let total = gaussians(grid, log_m)?;
        let dw = grid.data_words();
        grid.data(&a, dw)?;
        grid.data(&b, dw)?;
        one_tower_modulus(grid, p, W::BITS - 2)?;
        Ok(DgtPointwiseArgs {
            a: a.mut_ptr(),
            b: b.ptr,
            towers: grid.with_tw_words(0).towers(),
            total,
            log_m,
            qbits,
            p,
            mu,
        })
    }
}
