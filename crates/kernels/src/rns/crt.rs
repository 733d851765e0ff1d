//! CRT reconstruction: tower-major residues → little-endian 64-bit limbs of
//! the integer in `[0, Q)`.
//!
//! # Method: the CRT sum with a floating-point quotient and an exact fix-up
//!
//! With `Q̂_i = Q / q_i` and `r'_i = r_i · (Q̂_i^{-1} mod q_i) mod q_i`,
//! `x = Σ_i r'_i · Q̂_i ≡ X (mod Q)` and `x = X + k·Q` with
//! `k = ⌊Σ_i r'_i / q_i⌋ < K`, because `Σ_i r'_i / q_i = X/Q + k` and
//! `X/Q ∈ [0, 1)`. Each thread:
//!
//! 1. computes the `K` values `r'_i` (a Shoup product each; kept in shared
//!    memory, `K · B` words) and `S = Σ r'_i · (1/q_i)` in `f64`;
//! 2. takes `k = ⌊S⌋` and runs one *product-scanning* pass over the `L`
//!    output limbs: limb `j` of `x` is `Σ_i r'_i · Q̂_i[j]` plus the carry of
//!    limb `j − 1` (a 192-bit column sum: `K` wide products and additions,
//!    no reduction), and limb `j` of `k·Q` comes from one more wide product;
//!    the difference `D = x − k·Q` is written limb by limb with a borrow
//!    chain, so `x` is never stored whole: `K·L + L` wide products per
//!    coefficient and a handful of live words whatever `K` and `L` (three
//!    accumulator words, two carries, a borrow), no register array indexed
//!    at run time;
//! 3. `D` is `X` exactly unless `⌊S⌋` was off by one. The rounding error of
//!    `S` is below `(K² + 3K) · 2^−53`, under `2^−37` for `K ≤ 256` and under
//!    [`NEAR`] = `2^−32` for `K ≤ 1024` (the host refuses more): if the
//!    fractional part of `S` is at least `NEAR` from an integer, `⌊S⌋` is
//!    exact and nothing else runs. Otherwise (`X/Q` within `2^−32` of 0 or
//!    1: rare for random values, but every small `X` — and 0 — takes it),
//!    and also whenever the top word of `D` is not zero, `D ∈ [−Q, 2Q)` is
//!    corrected by one addition or subtraction of `Q` after a comparison.
//!    The result is exact for every input: the estimate only decides how
//!    much work the fix-up does.
//!
//! Why not Garner's mixed radix: it is exact without any estimate, but its
//! `K(K−1)/2` modular products are sequentially dependent per coefficient
//! and the mixed-radix digits must then be recombined with `L`-limb
//! multiply-adds (`K·L` more products, a Horner chain over the limbs
//! needing the whole `L`-limb number live or in memory). The CRT sum has
//! only independent products, a column at a time, and its quotient costs
//! `K` floating-point multiply-adds. A fixed-point estimate (64-bit
//! fractions `⌊2^64 r'_i / q_i⌋`) would work too but costs a wide product
//! per tower where `f64` costs one FMA-class operation (H100: fast FP64).
//!
//! # Thread mapping
//!
//! One thread per coefficient, `B` per block ([`super::block_coeffs`]). The
//! residues are read coalesced (tower `i`, consecutive coefficients); the
//! table (`Q`, the per-tower constants, `Q̂` stored limb-major so the inner
//! loop walks it contiguously) is read at the same address by every thread
//! (a broadcast through the read-only path). The limbs of `D` go to the
//! thread's own padded shared row and the block then copies its `B · L`
//! limbs to global memory in one contiguous, coalesced run
//! ([`super::stage`]).
//!
//! This one-thread-per-coefficient mapping runs `K·L + L` dependent wide
//! products per thread; for large `Q` the host runs instead the column
//! kernel [`super::crt_cols`] (`rns_crt_cols_<word>`), the same method
//! with each coefficient's `L` output limbs split into chunks of
//! [`super::crt_cols::COL_LIMBS`], one thread per chunk, the `r'_i` and
//! the quotient shared through shared memory, and a carry pass (one thread
//! per coefficient) joining the chunks. The host picks the kernel by `L`
//! when it builds a basis's tables (`polymul::rns::convert::Tables`:
//! `COLUMNS_MIN_LIMBS`); both give the same limbs for every input.
//!
//! The fix-up branch depends on the data (whether `X/Q` is within `2^−32`
//! of an integer): the conversion is not constant-time.

use super::acc::Acc192;
use super::{block_words, padded_stride, stage};
use crate::Word;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf};
use crate::gmem::Gmem;
use crate::smem::Shared;

/// Words per tower in the table's tower section: `[q, inv, inv', 1/q]`,
/// `inv = (Q/q)^{-1} mod q`, `inv'` its Shoup word, `1/q` the bits of an
/// `f64`.
pub const TOWER_ROW: usize = 4;

/// The distance from an integer below which the fractional part of the
/// estimated quotient sends a coefficient through the exact fix-up.
pub const NEAR: f64 = 1.0 / 4_294_967_296.0;

/// Most towers the estimate's error bound covers (see the module docs).
pub const MAX_TOWERS: usize = 1024;

/// The argument block of `rns_crt_<word>` ([`crate::names::RnsCrtKernel`]):
/// one `#[repr(C)]` value, the kernel's only parameter. Grid:
/// `⌈count / B⌉` blocks of `B` threads ([`super::block_coeffs`]),
/// [`shared_bytes`] of dynamic shared memory.
///
/// # Invariants
///
/// What the `unsafe` blocks of `rns_crt_*` rely on: `residues` points to
/// `k · count` words, tower `i`'s below `q_i`; `limbs` to `count · l`
/// words; `table` to [`table`]`(k towers, l)`; the grid is `⌈count / B⌉`
/// blocks of `B` threads with [`shared_bytes`]`(B, l, k, word bytes)` of
/// dynamic shared memory; `magic = div_magic(l)`. [`CrtArgs::new`] (host
/// only) checks the buffers (non-null, holding those words), the counts
/// (non-zero, `l ≤ 2^12`, `k ≤` [`MAX_TOWERS`]) and sets `magic`; the
/// residues being reduced, the table's contents and the grid and shared
/// memory stay the caller's. Established by
/// `polymul::rns::convert::Tables::crt_args` (through [`CrtArgs::new`]; both
/// the CPU path `RnsBasis::reconstruct` and the GPU launch
/// `DeviceConvert::reconstruct`), after `polymul::rns::plan::RnsPlan::check_pair`
/// (GPU) or `RnsBasis::check_residues` (CPU) checked the buffers' shapes.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct CrtArgs<W> {
    /// `k · count` residues, tower-major (tower `i`'s below `q_i`).
    pub(crate) residues: *const W,
    /// `count · l` limbs, coefficient-major.
    pub(crate) limbs: *mut u64,
    /// [`table`].
    pub(crate) table: *const u64,
    /// Coefficients (`batch · N`).
    pub(crate) count: u32,
    /// Limbs per coefficient (`⌈log2 Q / 64⌉`).
    pub(crate) l: u32,
    /// Towers.
    pub(crate) k: u32,
    /// [`super::div_magic`]`(l)`.
    pub(crate) magic: u32,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> CrtArgs<W> {
    /// The block of the reconstruction of `count` coefficients from `k`
    /// towers' residues (`residues`) into `l` limbs each (`limbs`) with
    /// `table` ([`table`]`(k towers, l)`). Checks what the [`CrtArgs`] docs
    /// say.
    pub fn new(
        residues: Buf<W>,
        limbs: Buf<u64>,
        table: Buf<u64>,
        (count, l, k): (u32, u32, u32),
    ) -> Result<Self, ArgsError> {
        if count == 0 || l == 0 || k == 0 || l > 1 << 12 || k as usize > MAX_TOWERS {
            return Err(ArgsError::Count);
        }
        residues.holds(k as u64 * count as u64)?;
        limbs.holds(count as u64 * l as u64)?;
        table.holds(table_words(k as usize, l as usize) as u64)?;
        Ok(CrtArgs {
            residues: residues.ptr,
            limbs: limbs.mut_ptr(),
            table: table.ptr,
            count,
            l,
            k,
            magic: super::div_magic(l),
        })
    }
}

/// Bytes of dynamic shared memory of a block of `b` threads: the limb rows
/// (`b · padded_stride(l)` words of 8 bytes), then the `r'_i`
/// (`k · b` residue words of `word_bytes`).
pub const fn shared_bytes(b: u32, l: u32, k: u32, word_bytes: u32) -> u64 {
    b as u64 * padded_stride(l) as u64 * 8 + k as u64 * b as u64 * word_bytes as u64
}

/// Words of [`table`] for `k` towers and `l` limbs.
pub const fn table_words(k: usize, l: usize) -> usize {
    l + TOWER_ROW * k + k * l
}

/// Offset of the tower rows in the table.
#[inline(always)]
const fn towers_at(l: usize) -> usize {
    l
}

/// Offset of `Q̂` (limb-major: `Q̂_i[j]` at `j · k + i`) in the table.
#[inline(always)]
const fn qhat_at(l: usize, k: usize) -> usize {
    l + TOWER_ROW * k
}

/// The table (host side) from `Q`'s `l` limbs, the primes, each
/// `inv_i = (Q/q_i)^{-1} mod q_i` and each `Q̂_i`'s `l` limbs (row `i` of
/// `q_hat`, `k · l` words): `[Q; (q, inv, inv', 1/q) per tower; Q̂
/// limb-major]`.
pub fn table(q_limbs: &[u64], primes: &[u64], inv: &[u64], q_hat: &[u64], out: &mut [u64]) {
    let (l, k) = (q_limbs.len(), primes.len());
    out[..l].copy_from_slice(q_limbs);
    for (i, (&q, &v)) in primes.iter().zip(inv).enumerate() {
        let row = &mut out[towers_at(l) + TOWER_ROW * i..][..TOWER_ROW];
        row[0] = q;
        row[1] = v;
        row[2] = super::shoup_prep(v, q);
        row[3] = (1.0 / q as f64).to_bits();
    }
    for i in 0..k {
        for j in 0..l {
            out[qhat_at(l, k) + j * k + i] = q_hat[i * l + j];
        }
    }
}

/// Phase 1 of block `blk`: thread `t` (of `nt`) reconstructs coefficient
/// `blk · nt + t` (if inside the batch) into its shared limb row of `s`,
/// keeping its `r'_i` in `w` (`k · nt` words).
///
/// # Safety
/// As the kernel's: buffers sized for `count` coefficients, `s` holds
/// `nt · padded_stride(l)` words and `w` `k · nt`, `blk · nt < count`,
/// residues reduced.
#[inline(always)]
pub unsafe fn reconstruct<W: Gmem, S: Shared<u64>, R: Shared<W>>(
    a: &CrtArgs<W>,
    s: &S,
    w: &R,
    blk: u32,
    t: u32,
    nt: u32,
) {
    let c = blk * nt + t;
    if c >= a.count {
        return;
    }
    let (l, k) = (a.l as usize, a.k as usize);
    let tab = |x: usize| {
        // SAFETY: every index below is inside the table (caller).
        unsafe { u64::ld_nc(a.table.add(x)) }
    };
    // 1. r'_i and the quotient estimate.
    let mut sum = 0.0f64;
    for i in 0..k {
        let row = towers_at(l) + TOWER_ROW * i;
        let q = tab(row);
        // SAFETY: residue `c` of tower `i` (caller).
        let r = unsafe { W::ld(a.residues.add(i * a.count as usize + c as usize)) }.as_u64();
        let rp = super::shoup(r, tab(row + 1), tab(row + 2), q);
        // SAFETY: word `i · nt + t` of the thread's column of `w`.
        unsafe { w.st_at(i as u32 * nt + t, W::from_u64(rp)) };
        sum += rp as f64 * f64::from_bits(tab(row + 3));
    }
    let quot = sum as u64;
    let frac = sum - quot as f64;
    let near = !(NEAR..=1.0 - NEAR).contains(&frac);
    // 2. D = Σ r'_i Q̂_i − quot·Q, a column (limb) at a time.
    let row0 = t * padded_stride(a.l);
    let qh = qhat_at(l, k);
    let (mut carry, mut mcarry, mut borrow) = (0u128, 0u64, false);
    for j in 0..l {
        let mut acc = Acc192::new(carry);
        for i in 0..k {
            // SAFETY: the thread's own `r'_i`.
            let rp = unsafe { w.ld_at(i as u32 * nt + t) }.as_u64();
            let qhat = tab(qh + j * k + i);
            // `u32` towers: `r'_i < q_i < 2^31`, half the partial products.
            if W::BITS == 32 { acc.mac_narrow(qhat, rp as u32) } else { acc.mac(rp, qhat) }
        }
        let lo = acc.low();
        carry = acc.carry();
        let m = quot as u128 * tab(j) as u128 + mcarry as u128;
        mcarry = (m >> 64) as u64;
        let (d, b1) = (lo as u64).overflowing_sub(m as u64);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        borrow = b1 | b2;
        // SAFETY: the thread's own row.
        unsafe { s.st_at(row0 + j as u32, d) };
    }
    let top = (carry as u64).wrapping_sub(mcarry).wrapping_sub(borrow as u64);
    if top != 0 || near {
        // SAFETY: the thread's own row; Q's limbs in the table.
        unsafe { fix_up(s, row0, a.l, top, |j| tab(j as usize)) };
    }
}

/// Brings `D = top · 2^(64l) + row` (two's complement, `D ∈ [−Q, 2Q)`)
/// into `[0, Q)` with one addition or subtraction of `Q` (limb `j` of `Q`
/// is `q_limb(j)`).
///
/// # Safety
/// `row0 .. row0 + l` are the thread's words of `s`.
#[inline(always)]
pub(super) unsafe fn fix_up<S: Shared<u64>>(s: &S, row0: u32, l: u32, top: u64, q_limb: impl Fn(u32) -> u64) {
    let add = (top as i64) < 0;
    let sub = !add
        && (top != 0 || {
            // D ≥ Q? Compare from the top limb down.
            let mut ge = true;
            let mut j = l;
            while j > 0 {
                j -= 1;
                // SAFETY: the thread's row (caller).
                let (d, q) = (unsafe { s.ld_at(row0 + j) }, q_limb(j));
                if d != q {
                    ge = d > q;
                    break;
                }
            }
            ge
        });
    if !(add || sub) {
        return;
    }
    let mut c = false;
    for j in 0..l {
        // SAFETY: the thread's row (caller).
        let d = unsafe { s.ld_at(row0 + j) };
        let q = q_limb(j);
        let v = if add {
            let (v, c1) = d.overflowing_add(q);
            let (v, c2) = v.overflowing_add(c as u64);
            c = c1 | c2;
            v
        } else {
            let (v, b1) = d.overflowing_sub(q);
            let (v, b2) = v.overflowing_sub(c as u64);
            c = b1 | b2;
            v
        };
        // SAFETY: as above.
        unsafe { s.st_at(row0 + j, v) };
    }
}

/// Phase 2 of block `blk`: the block's limb rows go to global memory
/// (thread `t` of `nt` moves words `t, t + nt, …`: coalesced).
///
/// # Safety
/// As for [`reconstruct`], after it and a barrier.
#[inline(always)]
pub unsafe fn store<W: Word, S: Shared<u64>>(a: &CrtArgs<W>, s: &S, blk: u32, t: u32, nt: u32) {
    let g = a.limbs.wrapping_add((blk * nt) as usize * a.l as usize);
    let words = block_words(blk, nt, a.count, a.l);
    // SAFETY: the block's limbs are inside the buffer (caller).
    unsafe { stage::<S, false>(g, s, words, a.l, a.magic, t, nt) }
}
