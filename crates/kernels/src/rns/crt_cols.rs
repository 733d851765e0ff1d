//! CRT reconstruction split over output limbs ("columns"): the method of
//! [`super::crt`] (the CRT sum, an `f64` quotient estimate `k`, an exact
//! fix-up), with the `K'·L` wide products of one coefficient spread over
//! `G = ⌈L / J⌉` threads, `J` = [`COL_LIMBS`] limbs each.
//!
//! # Method
//!
//! With `r'_i`, `Q̂_i` and `k = ⌊S⌋` as in [`super::crt`] (over the `K'`
//! moduli `m_i` of the sum: the towers, or their pairs, below), let
//! `Q' = 2^(64L) − Q` and `E = Σ_i r'_i · Q̂_i + k · Q'`. Then
//! `E = D + k · 2^(64L)` with `D = x − k·Q` the value the one-thread kernel
//! computes, and `E ≥ 0`: every column `j` of `E` is an unsigned sum
//! `C_j = Σ_i r'_i · Q̂_i[j] + k · Q'[j]` of `K' + 1` wide products (the
//! subtraction of `k·Q` became one more "tower" whose residue is `k` and
//! whose `Q̂` is `Q'`). `E`'s low `64L` bits are `D mod 2^(64L)`, and the
//! top word of `D` is `(E >> 64L) − k`; the fix-up of [`super::crt`] then
//! brings `D ∈ [−Q, 2Q)` into `[0, Q)`. The result is exact for every
//! input, the same words as [`super::crt`]'s.
//!
//! # Thread mapping
//!
//! A block covers `B` coefficients (a power of two, at least a warp) and
//! has `B · G` threads: thread `t` works on coefficient `b = t mod B` of
//! the block and limb chunk `g = ⌊t / B⌋`, so the 32 threads of a warp share
//! their chunk (their table reads are one broadcast) and read consecutive
//! coefficients' residues (coalesced). Three barriers separate four
//! phases:
//!
//! 1. [`residues`]: thread `(b, g)` computes `r'_i` for the rows
//!    `i ≡ g (mod G)` of the sum (towers, or tower pairs: below) into
//!    shared memory (`K' · B` words) and its part of
//!    `S = Σ r'_i · (1/m_i)` (an `f64` per thread in shared memory).
//!    Every thread then sums the `G` parts of its coefficient in the same
//!    order, so all of them hold the same `k = ⌊S⌋`. The sum's order
//!    differs from [`super::crt`]'s; its rounding error obeys the same
//!    bound (that of recursive summation holds for any summation tree of
//!    `K` terms), so [`super::crt::NEAR`] still decides exactly.
//! 2. [`columns`]: thread `(b, g)` accumulates the columns
//!    `j0 = g·J .. j0 + J` of its coefficient in registers (the arithmetic
//!    is the kernel's variant, [`CrtColsVariant`]: 32-bit partial products
//!    in 64-bit accumulators with carry counts, [`Acc96`], or one 192-bit
//!    [`Acc192`] per column), tower by tower (`J` wide products per
//!    shared `r'_i`; the table's `Q̂` rows are stored tower-major and
//!    padded to `G·J` limbs with zeros, so every thread runs the same `J`
//!    products per tower without a bounds test), then resolves its
//!    chunk's carries: the chunk's `≤ J` limbs go to the coefficient's
//!    shared row and the carry out of the chunk (below `2^128`) to shared
//!    memory.
//! 3. [`carry`]: one thread per coefficient (the first warps, `g = 0`)
//!    walks the limbs of chunks `1 .. G` adding the carry of the chunk
//!    below, takes the top word `(E >> 64L) − k` and runs the fix-up.
//! 4. [`store`]: all `B · G` threads copy the block's `B · L` limbs to
//!    global memory in one contiguous, coalesced run ([`super::stage`]).
//!
//! # Tower pairs (32-bit residues)
//!
//! The sum's rows need not be the towers: any pairwise coprime moduli
//! `m_i` whose product is `Q` give the same `x`. For `u32` residues the
//! kernel merges the towers two by two, `m_i = q_{2i} · q_{2i+1}` (below
//! `2^60`: the primes have at most 30 bits), with one Garner step per
//! pair in phase 1: `x_i = a + q_a · ((b − a) · q_a^{−1} mod q_b)` for the
//! residues `a`, `b`. The column sum then has `K' = ⌈K / 2⌉` rows of
//! 64-bit `r'_i` instead of `K` rows of 31-bit ones: the same partial
//! products (four per limb instead of two) with half the table reads,
//! half the loop steps and the `u64` kernel's shape. An odd `K` leaves the
//! last tower alone (`q_b = 1`, `q_a^{−1} mod q_b = 0`: `x_i = a`).
//! `u64` residues keep one tower per row (`K' = K`,
//! [`sum_rows`]).
//!
//! The per-coefficient values every chunk needs (`r'_i`, `k`) are computed
//! once per coefficient and shared: recomputing `r'_i` in every chunk would
//! read each residue `G` times and add a Shoup product per `J` column
//! products.
//!
//! Shared memory ([`shared_bytes`]): the limb rows (`B · padded_stride(L)`
//! words, as [`super::crt`]), the chunks' carries (`2 · B · G` words) and
//! sum parts (`B · G`), then the `r'_i` (`K' · B` `u64` words).
//!
//! As in [`super::crt`], the fix-up branch depends on the data: the
//! conversion is not constant-time.

use super::acc::{Acc96, Acc192};
use super::crt::{NEAR, fix_up};
use super::{block_words, padded_stride, stage};
use crate::Word;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf};
use crate::arith::{ModMul, Shoup};
use crate::gmem::Gmem;
use crate::smem::Shared;

/// Limbs per chunk (`J`): the columns one thread accumulates in registers.
/// Measured on an H100 (2026-11-27, `bench --quick --only crt`, two runs
/// in one call, docs/results/2026-11-27-nvidia-h100-crt-rows): 4 limbs
/// (56 registers, 47% theoretical occupancy at L = 20) against 8 (82
/// registers, 28%), split arithmetic, N = 2^16, µs: `u32` 138 × 30-bit
/// towers (L = 65) 299.0–299.9 against 328.2–328.7, 42 × 30-bit (L = 20)
/// 39.5–39.6 against 44.5–45.3; `u64` 67 × 62-bit 293.7–294.9 against
/// 293.5–294.2. Eight limbs with a 72-register cap (three blocks per SM,
/// 132–160 spilled bytes) took 309 / 47.4 / 285–289.
pub const COL_LIMBS: u32 = 4;

/// Most threads per block.
pub const MAX_THREADS: u32 = 1024;

/// Words per row of the table's row section: `[m, inv, inv', 1/m,
/// q_a | q_b << 32, c | c' << 32]` with `m = q_a · q_b` the row's modulus
/// (a tower: `q_b = 1`), `inv = (Q/m)^{−1} mod m`, `inv'` its 64-bit Shoup
/// word, `1/m` the bits of an `f64`, `c = q_a^{−1} mod q_b` and `c'` its
/// 32-bit Shoup word `⌊c · 2^32 / q_b⌋` ([`Shoup`]`<u32>`; the last two
/// words only for `u32` residues, whose primes are below `2^31`).
pub const GROUP_ROW: usize = 6;

/// Towers per row of the column sum for `word_bytes`-byte residues: 2
/// for `u32` (tower pairs), 1 for `u64` (the module docs).
const fn towers_per_row(word_bytes: u32) -> u32 {
    if word_bytes == 4 { 2 } else { 1 }
}

/// Rows of the column sum (`K'`) for `k` towers of `word_bytes`-byte
/// residues: tower pairs for `u32` (`⌈k / 2⌉`), towers for `u64`.
pub const fn sum_rows(k: u32, word_bytes: u32) -> u32 {
    k.div_ceil(towers_per_row(word_bytes))
}

/// Chunks per coefficient (`G = ⌈l / J⌉`).
pub const fn groups(l: u32) -> u32 {
    l.div_ceil(COL_LIMBS)
}

/// Limbs of a padded `Q̂` row of the table: `G · J`.
pub const fn padded_limbs(l: u32) -> u32 {
    groups(l) * COL_LIMBS
}

/// Coefficients per block (`B`) of this kernel for `l` limbs and `k`
/// towers of `word_bytes`-byte residues: the largest power of two from 32
/// to 128 with at most [`MAX_THREADS`] threads (`B · G`) whose
/// [`shared_bytes`] stay within `max_shared`, or 0 if none does.
pub const fn block_coeffs(l: u32, k: u32, word_bytes: u32, max_shared: u32) -> u32 {
    let g = groups(l);
    let mut b = 128;
    while b >= 32 {
        if b * g <= MAX_THREADS && shared_bytes(b, l, k, word_bytes) <= max_shared as u64 {
            return b;
        }
        b /= 2;
    }
    0
}

/// `u64` words of the shared memory before the residue words: the limb
/// rows, the carries (low and high words) and the sum parts.
#[inline(always)]
pub const fn u64_words(b: u32, l: u32) -> u32 {
    b * padded_stride(l) + 3 * b * groups(l)
}

/// Bytes of dynamic shared memory of a block of `b` coefficients
/// ([`u64_words`], then the `r'_i`: [`sum_rows`]`(k, word_bytes) · b`
/// `u64` words).
pub const fn shared_bytes(b: u32, l: u32, k: u32, word_bytes: u32) -> u64 {
    b as u64 * padded_stride(l) as u64 * 8
        + 3 * b as u64 * groups(l) as u64 * 8
        + sum_rows(k, word_bytes) as u64 * b as u64 * 8
}

/// Words of [`table`] for `k` towers of `word_bytes`-byte residues and `l`
/// limbs.
pub const fn table_words(k: usize, l: usize, word_bytes: usize) -> usize {
    let rows = sum_rows(k as u32, word_bytes as u32) as usize;
    l + GROUP_ROW * rows + (rows + 1) * padded_limbs(l as u32) as usize
}

/// Offset of the row section (the sum's moduli) in the table.
#[inline(always)]
const fn groups_at(l: usize) -> usize {
    l
}

/// Offset of the padded rows (`Q/m_i` limb `j` at `i · G·J + j`; row
/// `rows` is `Q'`) for a sum of `rows` rows.
#[inline(always)]
const fn qhat_at(l: usize, rows: usize) -> usize {
    l + GROUP_ROW * rows
}

/// The table (host side) from `Q`'s `l` limbs, the primes, each
/// `inv_i = (Q/q_i)^{-1} mod q_i` and each `Q̂_i = Q/q_i`'s `l` limbs (row
/// `i` of `q_hat`, `k · l` words), for `word_bytes`-byte residues:
/// `[Q; a GROUP_ROW row per modulus m of the sum; Q/m for each, then
/// Q' = 2^(64l) − Q, each padded to G·J limbs with zeros]`. The moduli are
/// the primes (`u64`) or their pairs `q_{2i} · q_{2i+1}` (`u32`, the last
/// prime alone when `k` is odd; see the module docs), so the primes must
/// be below `2^31` there. `out` holds [`table_words`]`(k, l, word_bytes)`
/// words.
pub fn table(
    q_limbs: &[u64],
    primes: &[u64],
    inv: &[u64],
    q_hat: &[u64],
    word_bytes: usize,
    out: &mut [u64],
) {
    let (l, k) = (q_limbs.len(), primes.len());
    let rows = sum_rows(k as u32, word_bytes as u32) as usize;
    let per = towers_per_row(word_bytes as u32) as usize;
    let lp = padded_limbs(l as u32) as usize;
    out.fill(0);
    out[..l].copy_from_slice(q_limbs);
    let qh = qhat_at(l, rows);
    for i in 0..rows {
        let a = i * per;
        let (qa, inv_a) = (primes[a], inv[a]);
        let dst = &mut out[qh + i * lp..][..l];
        dst.copy_from_slice(&q_hat[a * l..(a + 1) * l]);
        let (m, inv_m, qb, c) = if per == 2 && a + 1 < k {
            let (qb, inv_b) = (primes[a + 1], inv[a + 1]);
            // Q/m = Q̂_a / q_b, exactly: long division from the top limb.
            let mut rem = 0u128;
            for d in dst.iter_mut().rev() {
                let v = rem << 64 | *d as u128;
                *d = (v / qb as u128) as u64;
                rem = v % qb as u128;
            }
            // c = q_a^{−1} mod q_b is `inv_b · (Q/m)` mod q_b
            // (Q/q_b = q_a · (Q/m)), so no exponentiation is needed.
            let qm_b = dst.iter().rev().fold(0u128, |r, &d| (r << 64 | d as u128) % qb as u128);
            let c = (inv_b as u128 * qm_b % qb as u128) as u64;
            // (Q/m)^{−1} is `inv_a · q_b` mod q_a (Q/q_a = (Q/m) · q_b) and
            // `inv_b · q_a` mod q_b; Garner joins them mod m.
            let xa = (inv_a as u128 * qb as u128 % qa as u128) as u64;
            let xb = (inv_b as u128 * qa as u128 % qb as u128) as u64;
            let d = ((xb + qb - xa % qb) % qb) as u128 * c as u128 % qb as u128;
            (qa * qb, xa + qa * d as u64, qb, c)
        } else {
            (qa, inv_a, 1, 0)
        };
        let row = &mut out[groups_at(l) + GROUP_ROW * i..][..GROUP_ROW];
        row[..4].copy_from_slice(&[m, inv_m, super::shoup_prep(inv_m, m), (1.0 / m as f64).to_bits()]);
        if per == 2 {
            // `c` with its Shoup word `⌊c · 2^32 / q_b⌋`.
            let (cw, cp) = Shoup::<u32>::from_parts(qb as u32, 0, 0).prepare(c as u32);
            row[4] = qa | qb << 32;
            row[5] = cw as u64 | (cp as u64) << 32;
        }
    }
    // Q' = 2^(64l) − Q = !Q + 1 over l limbs (Q ≥ 2, so no carry out).
    let mut c = true;
    for (d, &q) in out[qh + rows * lp..][..l].iter_mut().zip(q_limbs) {
        let (v, o) = (!q).overflowing_add(c as u64);
        *d = v;
        c = o;
    }
}

/// The argument block of `rns_crt_cols_<word>`
/// ([`crate::names::RnsCrtColsKernel`]): one `#[repr(C)]` value, the
/// kernel's only parameter. Grid: `⌈count / B⌉` blocks of `B · G` threads
/// (`B = 2^log_b` from [`block_coeffs`], `G = groups`), [`shared_bytes`] of
/// dynamic shared memory.
///
/// # Invariants
///
/// What the `unsafe` blocks of `rns_crt_cols_*` rely on: `residues` points
/// to `k · count` words, tower `i`'s below `q_i`; `limbs` to `count · l`
/// words; `table` to [`table`]`(k towers, l, word bytes)`;
/// `groups = ⌈l / J⌉`; the grid is `⌈count / B⌉` blocks of `B · groups`
/// threads with [`shared_bytes`]`(B, l, k, word bytes)` of dynamic shared
/// memory; `magic = div_magic(l)`. [`CrtColsArgs::new`] (host only) checks the
/// buffers (non-null, holding those words), the counts (non-zero,
/// `k ≤` [`super::crt::MAX_TOWERS`], `B · G ≤` [`MAX_THREADS`],
/// `32 ≤ B ≤ 1024` a power of two) and sets `magic` and `groups`; the
/// residues being reduced, the table's contents and the grid and shared
/// memory stay the caller's. Established by
/// `polymul::rns::convert::Tables::crt_cols_args` (both the CPU path
/// `RnsBasis::reconstruct` and the GPU launch
/// `DeviceConvert::reconstruct`), after
/// `polymul::rns::plan::RnsPlan::check_pair` (GPU) or
/// `RnsBasis::check_residues` (CPU) checked the buffers' shapes.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct CrtColsArgs<W> {
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
    /// `log2 B`: coefficients per block.
    pub(crate) log_b: u32,
    /// `G`: chunks per coefficient ([`groups`]).
    pub(crate) groups: u32,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> CrtColsArgs<W> {
    /// The block of the reconstruction of `count` coefficients from `k`
    /// towers' residues (`residues`) into `l` limbs each (`limbs`) with
    /// `table` ([`table`]`(k towers, l, word bytes)`), `b` coefficients per
    /// block. Checks what the [`CrtColsArgs`] docs say.
    pub fn new(
        residues: Buf<W>,
        limbs: Buf<u64>,
        table: Buf<u64>,
        (count, l, k): (u32, u32, u32),
        b: u32,
    ) -> Result<Self, ArgsError> {
        if count == 0 || l == 0 || k == 0 || l > 1 << 12 || k as usize > super::crt::MAX_TOWERS {
            return Err(ArgsError::Count);
        }
        let groups = groups(l);
        if !b.is_power_of_two() || !(32..=MAX_THREADS).contains(&b) || b * groups > MAX_THREADS {
            return Err(ArgsError::Size);
        }
        residues.holds(k as u64 * count as u64)?;
        limbs.holds(count as u64 * l as u64)?;
        table.holds(table_words(k as usize, l as usize, core::mem::size_of::<W>()) as u64)?;
        Ok(CrtColsArgs {
            residues: residues.ptr,
            limbs: limbs.mut_ptr(),
            table: table.ptr,
            count,
            l,
            k,
            magic: super::div_magic(l),
            log_b: b.trailing_zeros(),
            groups,
        })
    }
}

impl<W> CrtColsArgs<W> {
    /// Threads per block: `B · G`.
    #[inline(always)]
    pub fn threads(&self) -> u32 {
        self.groups << self.log_b
    }

    /// Rows of the column sum: [`sum_rows`]`(k, word bytes)`.
    #[inline(always)]
    pub fn rows(&self) -> u32 {
        sum_rows(self.k, core::mem::size_of::<W>() as u32)
    }

    /// Table word `x`.
    ///
    /// # Safety
    /// `x < table_words(k, l, word bytes)`.
    #[inline(always)]
    unsafe fn tab(&self, x: usize) -> u64 {
        // SAFETY: the caller's.
        unsafe { u64::ld_nc(self.table.add(x)) }
    }

    /// Shared offsets (in `u64` words) of the carries' low and high words
    /// and of the sum parts.
    #[inline(always)]
    fn offsets(&self) -> (u32, u32, u32) {
        let b = 1 << self.log_b;
        let lo = b * padded_stride(self.l);
        let bg = b * self.groups;
        (lo, lo + bg, lo + 2 * bg)
    }

    /// `(k, near)`: the quotient estimate of coefficient `b` of the block
    /// from the `G` sum parts, summed in chunk order.
    ///
    /// # Safety
    /// `s` is the block's shared memory, after [`residues`] and a barrier.
    #[inline(always)]
    unsafe fn quotient<S: Shared<u64>>(&self, s: &S, b: u32) -> (u64, bool) {
        let (_, _, parts) = self.offsets();
        let mut sum = 0.0f64;
        for g in 0..self.groups {
            // SAFETY: part `g` of coefficient `b`, inside the sum parts.
            sum += f64::from_bits(unsafe { s.ld_at(parts + (g << self.log_b) + b) });
        }
        let quot = sum as u64;
        let frac = sum - quot as f64;
        (quot, !(NEAR..=1.0 - NEAR).contains(&frac))
    }
}

/// Phase 1 of block `blk`: thread `t` computes `r'_i` of its coefficient
/// for the rows `i ≡ g (mod G)` of the sum (a tower, or for `u32` residues
/// a pair of towers joined by one Garner step: the module docs) into `w`
/// and its part of the quotient's sum into `s`.
///
/// # Safety
/// As the kernel's ([`CrtColsArgs`]): buffers sized for `count`
/// coefficients, `s` holds [`u64_words`]`(B, l)` words and `w`
/// `K' · B` ([`sum_rows`]), `blk · B < count`, `t < B · G`, residues
/// reduced.
#[inline(always)]
pub unsafe fn residues<W: Gmem, S: Shared<u64>, R: Shared<u64>>(
    a: &CrtColsArgs<W>,
    s: &S,
    w: &R,
    blk: u32,
    t: u32,
) {
    let b = t & ((1 << a.log_b) - 1);
    let g = t >> a.log_b;
    let c = (blk << a.log_b) + b;
    if c >= a.count {
        return;
    }
    let l = a.l as usize;
    let residue = |i: u32| {
        // SAFETY: residue `c` of tower `i < k` (caller).
        unsafe { W::ld(a.residues.add(i as usize * a.count as usize + c as usize)) }.as_u64()
    };
    let mut sum = 0.0f64;
    let mut i = g;
    while i < a.rows() {
        let row = groups_at(l) + GROUP_ROW * i as usize;
        // SAFETY: the row section is inside the table (caller).
        let (m, inv, invp, rm) = unsafe { (a.tab(row), a.tab(row + 1), a.tab(row + 2), a.tab(row + 3)) };
        let x = if W::BITS == 32 {
            // The pair's residue below `m = q_a · q_b`: `a + q_a · d`,
            // `d = (b − a) · q_a^{−1} mod q_b` (from `b · c` and `a · c`
            // mod `q_b`, each reduced by Shoup's product on 32-bit words:
            // `c < q_b < 2^31`, any `x < 2^32`, one correction). A lone
            // last tower has `q_b = 1`, `c = 0`: `x = a` (`from_parts`
            // skips the modulus check that `q_b = 1` would fail).
            // SAFETY: as above.
            let (qq, cc) = unsafe { (a.tab(row + 4), a.tab(row + 5)) };
            let (qa, qb) = (qq as u32, (qq >> 32) as u32);
            let sh = Shoup::<u32>::from_parts(qb, 0, 0);
            let c = Shoup::<u32>::op(cc as u32, (cc >> 32) as u32);
            let ra = residue(2 * i) as u32;
            let rb = if 2 * i + 1 < a.k { residue(2 * i + 1) as u32 } else { 0 };
            let (u, v) = (sh.mul(ra, c), sh.mul(rb, c));
            ra as u64 + qa as u64 * if v >= u { v - u } else { v + qb - u } as u64
        } else {
            residue(i)
        };
        let rp = super::shoup(x, inv, invp, m);
        // SAFETY: word `i · B + b` of `w` (`i < K'`, `b < B`).
        unsafe { w.st_at((i << a.log_b) + b, rp) };
        sum += rp as f64 * f64::from_bits(rm);
        i += a.groups;
    }
    let (_, _, parts) = a.offsets();
    // SAFETY: part `g` of coefficient `b`: `t < B · G` words from `parts`.
    unsafe { s.st_at(parts + t, sum.to_bits()) };
}

/// The arithmetic of phase 2 ([`columns`]): the column kernel's variants,
/// each an entry point of its own (`crate::names::RnsCrtColsKernel`). All
/// give the same words for every input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CrtColsVariant {
    /// The default: each product split into 32 × 32-bit partial products,
    /// summed into 64-bit accumulators with carry counts ([`Acc96`]) by
    /// 32-bit digit: the even digits `E_j` (bits `64j ..`) take `r0 · q0[j]`
    /// and `r1 · q1[j − 1]`, the odd ones `O_j` (bits `64j + 32 ..`) take
    /// `r0 · q1[j]` and `r1 · q0[j]` (`r = r0 + r1 · 2^32`, `q[j]` =
    /// `q0[j] + q1[j] · 2^32` the table limb); two towers per loop step.
    Split,
    /// The first version: one 192-bit accumulator per column ([`Acc192`]),
    /// a 64 × 64-bit product per table limb.
    Acc192,
}

impl CrtColsVariant {
    /// Every variant, the default first.
    pub const ALL: [CrtColsVariant; 2] = [CrtColsVariant::Split, CrtColsVariant::Acc192];

    /// The kernel `rns_crt_cols_<word>` (no variant in its name), the one
    /// polymul's column CRT runs for every word and size (its
    /// `rns::convert::Tables::with_kernel`, which gives the measurements).
    pub const DEFAULT: CrtColsVariant = CrtColsVariant::Split;

    /// The const-generic parameter of [`columns`].
    pub const fn id(self) -> u8 {
        match self {
            CrtColsVariant::Split => SPLIT,
            CrtColsVariant::Acc192 => ACC192,
        }
    }

    /// A short name (reports, the symbol: `rns_crt_cols_<word>` for
    /// [`CrtColsVariant::Split`], `rns_crt_cols_acc192_<word>`).
    pub const fn name(self) -> &'static str {
        match self {
            CrtColsVariant::Split => "split",
            CrtColsVariant::Acc192 => "acc192",
        }
    }
}

/// [`CrtColsVariant::Split`]'s id.
pub const SPLIT: u8 = 0;
/// [`CrtColsVariant::Acc192`]'s id.
pub const ACC192: u8 = 1;

/// Phase 2 of block `blk`: thread `t` accumulates the columns of its chunk
/// (`K' + 1` rows × [`COL_LIMBS`] wide products), resolves the chunk's
/// carries into its limbs of the coefficient's shared row and stores the
/// carry out of the chunk. `V` is the arithmetic ([`CrtColsVariant::id`]).
///
/// # Safety
/// As for [`residues`], after it and a barrier.
#[inline(always)]
pub unsafe fn columns<W: Gmem, S: Shared<u64>, R: Shared<u64>, const V: u8>(
    a: &CrtColsArgs<W>,
    s: &S,
    w: &R,
    blk: u32,
    t: u32,
) {
    let b = t & ((1 << a.log_b) - 1);
    let g = t >> a.log_b;
    let c = (blk << a.log_b) + b;
    if c >= a.count {
        return;
    }
    // What both arithmetics need: the quotient, the rows, the chunk's
    // first limb and its place in the first padded row.
    // SAFETY: after phase 1 and the barrier (caller).
    let (quot, _) = unsafe { a.quotient(s, b) };
    let rows = a.rows() as usize;
    let j0 = (g * COL_LIMBS) as usize;
    let chunk = Chunk {
        quot,
        rows,
        lp: padded_limbs(a.l) as usize,
        row0: qhat_at(a.l as usize, rows) + j0,
        n: chunk_limbs(a.l as usize, j0),
        srow: b * padded_stride(a.l) + j0 as u32,
    };
    let rp = |i: usize| {
        // SAFETY: the coefficient's `r'_i` (every call has `i < K'`),
        // written in phase 1.
        unsafe { w.ld_at(((i as u32) << a.log_b) + b) }
    };
    // SAFETY: the caller's (as for this function); `chunk` describes the
    // thread's chunk of the table and of its coefficient's row.
    let carry =
        unsafe { if V == SPLIT { columns_split(a, s, rp, chunk) } else { columns_acc192(a, s, rp, chunk) } };
    let (lo, hi, _) = a.offsets();
    // SAFETY: carry words `t < B · G` of each half.
    unsafe {
        s.st_at(lo + t, carry as u64);
        s.st_at(hi + t, (carry >> 64) as u64);
    }
}

/// A thread's chunk in phase 2 ([`columns`]).
#[derive(Clone, Copy)]
struct Chunk {
    /// The quotient estimate `k` (the last row's multiplier).
    quot: u64,
    /// Rows of the sum (`K'`).
    rows: usize,
    /// Limbs of a padded table row (`G · J`).
    lp: usize,
    /// The table offset of the chunk's first limb in row 0.
    row0: usize,
    /// The chunk's limbs below `l` ([`chunk_limbs`]).
    n: usize,
    /// The shared offset of the chunk's first limb in the coefficient's row.
    srow: u32,
}

/// Limbs of the chunk `j0 = g · J` that lie below `l`: `min(l − j0, J)`.
#[inline(always)]
fn chunk_limbs(l: usize, j0: usize) -> usize {
    const J: usize = COL_LIMBS as usize;
    if l - j0 < J { l - j0 } else { J }
}

/// [`columns`] with [`CrtColsVariant::Acc192`]: the chunk's limbs into the
/// shared row; returns the carry out of the chunk. `rp(i)` is the
/// coefficient's `r'_i`.
///
/// # Safety
/// As for [`columns`], `ch` the thread's chunk of a coefficient inside the
/// batch.
#[inline(always)]
unsafe fn columns_acc192<W, S: Shared<u64>>(
    a: &CrtColsArgs<W>,
    s: &S,
    rp: impl Fn(usize) -> u64,
    ch: Chunk,
) -> u128 {
    const J: usize = COL_LIMBS as usize;
    let mut acc = [Acc192::new(0); J];
    let mut row = ch.row0;
    for i in 0..ch.rows {
        let r = rp(i);
        for (jj, x) in acc.iter_mut().enumerate() {
            // SAFETY: row `i`'s padded limb `j0 + jj < G·J` (caller: table).
            x.mac(r, unsafe { a.tab(row + jj) });
        }
        row += ch.lp;
    }
    // Row `K'`: `k · Q'` (`quot < K' ≤ 1024`).
    for (jj, x) in acc.iter_mut().enumerate() {
        // SAFETY: as above, row `K'`.
        x.mac_narrow(unsafe { a.tab(row + jj) }, ch.quot as u32);
    }
    // The chunk's limbs: columns `j0 .. j0 + n`, carries resolved.
    let mut carry = 0u128;
    for (jj, x) in acc.iter_mut().enumerate() {
        if jj < ch.n {
            x.add(carry);
            // SAFETY: limb `j0 + jj < l` of the coefficient's row.
            unsafe { s.st_at(ch.srow + jj as u32, x.lo) };
            carry = x.carry();
        }
    }
    carry
}

/// One table row's products into the split accumulators: `r · Q̂[j0 + jj]`
/// for `jj < J` (`row` = the row's offset plus `j0`); `wide` says `r` may
/// reach `2^32` (then four partial products per limb, else two).
///
/// # Safety
/// `row + J ≤ table_words` (a padded row of the table).
#[inline(always)]
unsafe fn split_row<W>(
    a: &CrtColsArgs<W>,
    e: &mut [Acc96; COL_LIMBS as usize + 1],
    o: &mut [Acc96; COL_LIMBS as usize],
    row: usize,
    r: u64,
    wide: bool,
) {
    let (r0, r1) = (r as u32, (r >> 32) as u32);
    for jj in 0..COL_LIMBS as usize {
        // SAFETY: the caller's.
        let q = unsafe { a.tab(row + jj) };
        let (q0, q1) = (q as u32, (q >> 32) as u32);
        e[jj].mac(r0, q0);
        o[jj].mac(r0, q1);
        if wide {
            e[jj + 1].mac(r1, q1);
            o[jj].mac(r1, q0);
        }
    }
}

/// [`columns`] with [`CrtColsVariant::Split`]: as [`columns_acc192`].
///
/// # Safety
/// As for [`columns_acc192`].
#[inline(always)]
unsafe fn columns_split<W, S: Shared<u64>>(
    a: &CrtColsArgs<W>,
    s: &S,
    rp: impl Fn(usize) -> u64,
    ch: Chunk,
) -> u128 {
    const J: usize = COL_LIMBS as usize;
    let (mut e, mut o) = ([Acc96::ZERO; J + 1], [Acc96::ZERO; J]);
    let (k, lp, row0) = (ch.rows, ch.lp, ch.row0);
    let mut i = 0;
    // Two rows per step: ptxas then keeps the accumulators in place
    // (one step: about 1.4 register moves per product, two: 0.3).
    while i + 1 < k {
        let (x, y) = (rp(i), rp(i + 1));
        // SAFETY: rows `i`, `i + 1 < K'`: padded limbs `j0 .. j0 + J ≤ G·J`
        // of the table (caller).
        unsafe {
            split_row(a, &mut e, &mut o, row0 + i * lp, x, true);
            split_row(a, &mut e, &mut o, row0 + (i + 1) * lp, y, true);
        }
        i += 2;
    }
    if i < k {
        let x = rp(i);
        // SAFETY: row `i < K'`, as above.
        unsafe { split_row(a, &mut e, &mut o, row0 + i * lp, x, true) };
    }
    // Row `K'`: `k · Q'` (`quot < K' ≤ 1024`).
    // SAFETY: row `K'` of the table, as above.
    unsafe { split_row(a, &mut e, &mut o, row0 + k * lp, ch.quot, false) };
    // The chunk's limbs: column `jj` is `E_jj + O_jj · 2^32` (below 2^108
    // for K' ≤ 1024), carries resolved.
    let mut carry = 0u128;
    for jj in 0..J {
        if jj < ch.n {
            let v = e[jj].value() + (o[jj].value() << 32) + carry;
            // SAFETY: limb `j0 + jj < l` of the coefficient's row.
            unsafe { s.st_at(ch.srow + jj as u32, v as u64) };
            carry = v >> 64;
        }
    }
    // `E_n` (bits `64n ..`: the high partial products of column `n − 1`;
    // the accumulators above `n` are zero, the table's padding) is the
    // rest of the carry out.
    for (jj, x) in e.iter().enumerate() {
        if jj == ch.n {
            carry += x.value();
        }
    }
    carry
}

/// Phase 3 of block `blk`: thread `t < B` adds each chunk's carry into the
/// limbs above it, forms the top word of `D` and runs the fix-up; the
/// other threads return.
///
/// # Safety
/// As for [`residues`], after [`columns`] and a barrier.
#[inline(always)]
pub unsafe fn carry<W: Word, S: Shared<u64>>(a: &CrtColsArgs<W>, s: &S, blk: u32, t: u32) {
    if t >> a.log_b != 0 {
        return;
    }
    let c = (blk << a.log_b) + t;
    if c >= a.count {
        return;
    }
    // SAFETY: after phase 1 (caller).
    let (quot, near) = unsafe { a.quotient(s, t) };
    let (lo, hi, _) = a.offsets();
    let cout = |g: u32| {
        let at = (g << a.log_b) + t;
        // SAFETY: carry word `g · B + t < B · G` of each half.
        unsafe { s.ld_at(lo + at) as u128 | (s.ld_at(hi + at) as u128) << 64 }
    };
    let row0 = t * padded_stride(a.l);
    // Chunk 0's limbs are final; below 2^76 for K ≤ 1024, `carry` never
    // overflows (see the module docs of `super::crt`).
    let mut carry = cout(0);
    for g in 1..a.groups {
        let j1 = if a.l - g * COL_LIMBS < COL_LIMBS { a.l } else { (g + 1) * COL_LIMBS };
        for j in g * COL_LIMBS..j1 {
            // SAFETY: limb `j < l` of the thread's row.
            let v = unsafe { s.ld_at(row0 + j) } as u128 + carry;
            // SAFETY: as above.
            unsafe { s.st_at(row0 + j, v as u64) };
            carry = v >> 64;
        }
        carry += cout(g);
    }
    let top = (carry as u64).wrapping_sub(quot);
    if top != 0 || near {
        // SAFETY: the thread's own row; Q's limbs are the table's first `l`.
        unsafe { fix_up(s, row0, a.l, top, |j| a.tab(j as usize)) };
    }
}

/// Phase 4 of block `blk`: the block's limb rows go to global memory
/// (thread `t` of `B · G` moves words `t, t + B·G, …`: coalesced).
///
/// # Safety
/// As for [`residues`], after [`carry`] and a barrier.
#[inline(always)]
pub unsafe fn store<W: Word, S: Shared<u64>>(a: &CrtColsArgs<W>, s: &S, blk: u32, t: u32) {
    let b = 1 << a.log_b;
    let g = a.limbs.wrapping_add((blk * b) as usize * a.l as usize);
    let words = block_words(blk, b, a.count, a.l);
    // SAFETY: the block's limbs are inside the buffer (caller).
    unsafe { stage::<S, false>(g, s, words, a.l, a.magic, t, a.threads()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_fit_the_thread_and_shared_limits() {
        for l in 1..=256u32 {
            for (k, wb) in [(1, 8), (67, 8), (138, 4), (300, 4)] {
                let b = block_coeffs(l, k, wb, 48 * 1024);
                if b > 0 {
                    assert!(b.is_power_of_two() && b >= 32 && b * groups(l) <= MAX_THREADS);
                    assert!(shared_bytes(b, l, k, wb) <= 48 * 1024);
                }
            }
        }
        // The large-Q cases of the benchmark fit.
        assert!(block_coeffs(65, 67, 8, 48 * 1024) >= 32);
        assert!(block_coeffs(65, 138, 4, 48 * 1024) >= 32);
    }

    #[test]
    fn variant_ids_index_all() {
        for (i, v) in CrtColsVariant::ALL.iter().enumerate() {
            assert_eq!(v.id() as usize, i, "{v:?}");
        }
        assert_eq!(CrtColsVariant::ALL[0], CrtColsVariant::DEFAULT);
    }

    #[test]
    fn the_table_holds_q_prime_as_the_last_row() {
        // Q = 2^64 + 5 (two limbs): Q' = 2^128 − Q.
        let q = [5u64, 1];
        let mut out = [1u64; table_words(1, 2, 8)];
        table(&q, &[7], &[1], &[3, 4], 8, &mut out);
        let (qh, lp) = (qhat_at(2, 1), padded_limbs(2) as usize);
        assert_eq!(&out[qh..qh + 2], &[3, 4]);
        assert!(out[qh + 2..qh + lp].iter().all(|&v| v == 0));
        let want = (u128::MAX - (5u128 | 1 << 64)).wrapping_add(1);
        assert_eq!(out[qh + lp] as u128 | (out[qh + lp + 1] as u128) << 64, want);
        assert!(out[qh + lp + 2..].iter().all(|&v| v == 0));
    }

    #[test]
    fn the_u32_table_joins_towers_in_pairs() {
        // Q = 7 · 11 · 13 = 1001: rows (7, 11) and 13 alone.
        let mut out = [0u64; table_words(3, 1, 4)];
        table(&[1001], &[7, 11, 13], &[5, 4, 12], &[143, 91, 77], 4, &mut out);
        let row = |i: usize| &out[groups_at(1) + GROUP_ROW * i..][..GROUP_ROW];
        // m = 77, (Q/m)^{−1} = 13^{−1} mod 77 = 6, c = 7^{−1} mod 11 = 8.
        assert_eq!(&row(0)[..2], &[77, 6]);
        assert_eq!(row(0)[4], 7 | 11 << 32);
        assert_eq!(row(0)[5], 8 | ((8u64 << 32) / 11) << 32);
        // The lone tower: q_b = 1, c = 0.
        assert_eq!(&row(1)[..2], &[13, 12]);
        assert_eq!((row(1)[4], row(1)[5]), (13 | 1 << 32, 0));
        // Q/m: 13 and 77.
        let (qh, lp) = (qhat_at(1, 2), padded_limbs(1) as usize);
        assert_eq!((out[qh], out[qh + lp]), (13, 77));
    }
}
