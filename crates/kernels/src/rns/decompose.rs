//! RNS decomposition: little-endian 64-bit limbs → tower-major residues.
//!
//! For tower `i` with prime `q`, `x = Σ_j limb_j · 2^(64j)` gives
//! `x mod q = Σ_j limb_j · T_j mod q` with the table `T_j = 2^(64j) mod q`.
//! The `L` products (`< 2^64 · q`) are summed *unreduced* in a 192-bit
//! accumulator (three words; an add with carry per product, no reduction
//! in the loop), and the sum `t2·2^128 + t1·2^64 + t0` is reduced once at
//! the end with three Shoup products (`t0 · 1`, `t1 · (2^64 mod q)`,
//! `t2 · (2^128 mod q)`, each exact in `[0, q)` after one correction) and
//! two modular additions: `L` wide products and `L` wide additions per
//! tower and coefficient, plus a constant 9 products.
//!
//! The kernel (`rns_decompose_<word>`, [`crate::names::RnsDecomposeKernel`])
//! gives each block `B` consecutive coefficients: the block copies their
//! `B · L` limbs from global memory (contiguous, coalesced) into shared rows
//! ([`super::stage`]), then thread `t` computes the residues of coefficient
//! `blk · B + (t mod B)` in every `2^log_groups`-th tower from `⌊t / B⌋` on
//! (its coefficient's shared row) and stores them at `out[i · count + c]`
//! (consecutive threads, consecutive words: coalesced).
//! The limbs are read from global memory once however many towers there are;
//! the table is read at the same address by every thread (a broadcast
//! through the read-only path).
//!
//! Limb values need not be below `Q`: the residues are those of the integer
//! the limbs spell (the host validates `x < Q` where it has the limbs).

use super::acc::Acc192;
use super::{block_words, stage};
use crate::Word;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf};
use crate::gmem::Gmem;
use crate::smem::Shared;

/// Words of a tower's row of the table before its `L` powers:
/// `[q, ⌊2^64/q⌋, 2^64 mod q, its Shoup word, 2^128 mod q, its Shoup word]`.
pub const ROW_HEAD: usize = 6;

/// The argument block of `rns_decompose_<word>`
/// ([`crate::names::RnsDecomposeKernel`]): one `#[repr(C)]` value, the
/// kernel's only parameter. Grid: `⌈count / B⌉` blocks of `B · 2^log_groups`
/// threads (`B` coefficients per block, [`super::block_coeffs`]; thread `t`
/// works on coefficient `t mod B` and the towers `i ≡ ⌊t / B⌋ (mod
/// 2^log_groups)`), `B · padded_stride(l) · 8` bytes of dynamic shared
/// memory.
///
/// # Invariants
///
/// What the `unsafe` blocks of `rns_decompose_*` rely on: `limbs` points to
/// `count · l` words, `out` to `k · count` words, `table` to
/// [`table`]`(k towers, l)`; the grid is `⌈count / B⌉` blocks of
/// `B · 2^log_groups` threads with `B · padded_stride(l) · 8` bytes of
/// dynamic shared memory; `magic = div_magic(l)`. [`DecomposeArgs::new`]
/// (host only) checks the buffers (non-null, holding those words), the
/// counts (non-zero, `l ≤ 2^12`, `log_groups ≤ 4`) and sets `magic`; the
/// table's contents and the grid and shared memory stay the caller's.
/// Established by `polymul::rns::convert::Tables::dec_args` (through
/// [`DecomposeArgs::new`]; both the CPU path `RnsBasis::decompose` and the
/// GPU launch `DeviceConvert::decompose`, which sets grid and shared memory
/// from the basis's `Tables`), after `polymul::rns::plan::RnsPlan::check_pair`
/// (GPU) or `RnsBasis::check_limbs` (CPU) checked the buffers' shapes.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct DecomposeArgs<W> {
    /// `count · l` limbs, coefficient-major.
    pub(crate) limbs: *const u64,
    /// `k · count` residues, tower-major.
    pub(crate) out: *mut W,
    /// [`table`]: `k` rows of [`ROW_HEAD`]` + l` words.
    pub(crate) table: *const u64,
    /// Coefficients (`batch · N`).
    pub(crate) count: u32,
    /// Limbs per coefficient.
    pub(crate) l: u32,
    /// Towers.
    pub(crate) k: u32,
    /// `log2` of the threads per coefficient (tower groups): more threads
    /// per SM where one thread per coefficient leaves the GPU half idle
    /// (the GPU launches use [`GPU_LOG_GROUPS`], the CPU path 0).
    pub(crate) log_groups: u32,
    /// [`super::div_magic`]`(l)`.
    pub(crate) magic: u32,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> DecomposeArgs<W> {
    /// The block of the decomposition of `count` coefficients of `l` limbs
    /// (`limbs`) into `k` towers' residues (`out`) with `table`
    /// ([`table`]`(k towers, l)`), `2^log_groups` threads per coefficient.
    /// Checks what the [`DecomposeArgs`] docs say.
    pub fn new(
        limbs: Buf<u64>,
        out: Buf<W>,
        table: Buf<u64>,
        (count, l, k): (u32, u32, u32),
        log_groups: u32,
    ) -> Result<Self, ArgsError> {
        if count == 0 || l == 0 || k == 0 || l > 1 << 12 || log_groups > 4 {
            return Err(ArgsError::Count);
        }
        limbs.holds(count as u64 * l as u64)?;
        out.holds(k as u64 * count as u64)?;
        table.holds(table_words(k as usize, l as usize) as u64)?;
        Ok(DecomposeArgs {
            limbs: limbs.ptr,
            out: out.mut_ptr(),
            table: table.ptr,
            count,
            l,
            k,
            log_groups,
            magic: super::div_magic(l),
        })
    }
}

/// The GPU launches' `log_groups`: 4 threads per coefficient.
pub const GPU_LOG_GROUPS: u32 = 2;

/// The table of the towers `primes` for `l` limbs (host side): per tower
/// `[q, ⌊2^64/q⌋, 2^64 mod q, ·', 2^128 mod q, ·', T_0 … T_{l−1}]` with
/// `T_j = 2^(64j) mod q` and `·'` the Shoup word of the entry before it.
pub fn table(primes: &[u64], l: usize, out: &mut [u64]) {
    for (row, &q) in out.chunks_exact_mut(ROW_HEAD + l).zip(primes) {
        let c64 = super::shift64_mod(1, q);
        let c128 = super::shift64_mod(c64, q);
        row[0] = q;
        row[1] = super::shoup_prep(1, q);
        row[2] = c64;
        row[3] = super::shoup_prep(c64, q);
        row[4] = c128;
        row[5] = super::shoup_prep(c128, q);
        let mut p = 1 % q;
        for t in &mut row[ROW_HEAD..] {
            *t = p;
            p = super::shift64_mod(p, q);
        }
    }
}

/// Words of [`table`] for `k` towers and `l` limbs.
pub const fn table_words(k: usize, l: usize) -> usize {
    k * (ROW_HEAD + l)
}

/// Phase 1 of block `blk`: thread `t` of `nt` (`B · 2^log_groups`) copies
/// its share of the block's limbs into the shared rows `s` (a barrier
/// follows).
///
/// # Safety
/// As the kernel's: buffers sized for `count` coefficients, `s` holds
/// `B · padded_stride(l)` words, `blk · B < count`.
#[inline(always)]
pub unsafe fn load<W: Word, S: Shared<u64>>(a: &DecomposeArgs<W>, s: &S, blk: u32, t: u32, nt: u32) {
    let b = nt >> a.log_groups;
    let g = a.limbs.wrapping_add((blk * b) as usize * a.l as usize) as *mut u64;
    let words = block_words(blk, b, a.count, a.l);
    // SAFETY: the block's limbs are inside the buffer (caller).
    unsafe { stage::<S, true>(g, s, words, a.l, a.magic, t, nt) }
}

/// Phase 2 of block `blk`: thread `t` of `nt` (`B · 2^log_groups`) writes
/// the residues of coefficient `blk · B + (t mod B)` (if inside the batch)
/// in the towers `i ≡ ⌊t / B⌋ (mod 2^log_groups)`, from its shared row.
///
/// # Safety
/// As for [`load`], after it and a barrier; `B` is a power of two.
#[inline(always)]
pub unsafe fn residues<W: Gmem, S: Shared<u64>>(a: &DecomposeArgs<W>, s: &S, blk: u32, t: u32, nt: u32) {
    let b = nt >> a.log_groups;
    let own = t & (b - 1);
    let c = blk * b + own;
    if c >= a.count {
        return;
    }
    let row0 = own * super::padded_stride(a.l);
    let stride = ROW_HEAD + a.l as usize;
    let mut i = (t >> b.trailing_zeros()) as usize;
    while i < a.k as usize {
        let tab = a.table.wrapping_add(i * stride);
        // SAFETY: row `i` of the table, the thread's own shared row and
        // residue `c` of tower `i` are inside their buffers (caller).
        unsafe {
            let mut acc = Acc192::new(0);
            for j in 0..a.l {
                let x = s.ld_at(row0 + j);
                let tj = u64::ld_nc(tab.add(ROW_HEAD + j as usize));
                // `u32` towers: `T_j < q < 2^31`, half the partial products.
                if W::BITS == 32 { acc.mac_narrow(x, tj as u32) } else { acc.mac(x, tj) }
            }
            let (lo, t2) = (acc.low(), acc.top as u64);
            let at = |c: usize| u64::ld_nc(tab.add(c));
            let q = at(0);
            let r0 = super::shoup(lo as u64, 1, at(1), q);
            let r1 = super::shoup((lo >> 64) as u64, at(2), at(3), q);
            let r2 = super::shoup(t2, at(4), at(5), q);
            let r = crate::arith::add_mod(crate::arith::add_mod(r0, r1, q), r2, q);
            W::st(a.out.add(i * a.count as usize + c as usize), W::from_u64(r));
        }
        i += 1 << a.log_groups;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::smem::HostShared;
    use std::vec;
    use std::vec::Vec;

    /// Runs the kernel's phases on the host with `log_groups`, blocks of `b`
    /// coefficients.
    fn run(primes: &[u64], l: usize, limbs: &[u64], b: u32, log_groups: u32) -> Vec<u64> {
        let (k, count) = (primes.len(), limbs.len() / l);
        let mut tab = vec![0u64; table_words(k, l)];
        table(primes, l, &mut tab);
        let mut out = vec![0u64; k * count];
        let a = DecomposeArgs {
            limbs: limbs.as_ptr(),
            out: out.as_mut_ptr(),
            table: tab.as_ptr(),
            count: count as u32,
            l: l as u32,
            k: k as u32,
            log_groups,
            magic: crate::rns::div_magic(l as u32),
        };
        let mut smem = vec![0u64; (b * crate::rns::padded_stride(l as u32)) as usize];
        let s = HostShared(smem.as_mut_ptr());
        let nt = b << log_groups;
        for blk in 0..(count as u32).div_ceil(b) {
            // SAFETY: the invariants of `DecomposeArgs` for this emulated launch: `limbs` holds
            // `count · l` words, `out` `k · count`, `tab` the table, `smem` `b · padded_stride(l)`
            // words (all allocated above), `blk < ⌈count / b⌉`, `t < nt`.
            unsafe {
                (0..nt).for_each(|t| load(&a, &s, blk, t, nt));
                (0..nt).for_each(|t| residues(&a, &s, blk, t, nt));
            }
        }
        out
    }

    #[test]
    fn tower_groups_give_the_same_residues_as_one_thread_per_coefficient() {
        let primes = [0x3fff_ffff_fff0_0001u64, 4_611_686_018_326_724_609, 1_073_479_681, 998_244_353, 7681];
        let l = 3;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let limbs: Vec<u64> = (0..70 * l)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect();
        let one = run(&primes, l, &limbs, 32, 0);
        for lg in [1, 2, 3] {
            assert_eq!(run(&primes, l, &limbs, 32, lg), one, "log_groups = {lg}");
        }
        // Against u128 arithmetic.
        for (i, &q) in primes.iter().enumerate() {
            for c in 0..70 {
                let mut r = 0u128;
                for j in (0..l).rev() {
                    r = ((r << 64) | limbs[c * l + j] as u128) % q as u128;
                }
                assert_eq!(one[i * 70 + c], r as u64);
            }
        }
    }
}
