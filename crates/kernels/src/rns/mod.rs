//! Big integers in and out of the residue number system: the per-block
//! bodies of the decomposition ([`decompose`]: little-endian 64-bit limbs →
//! tower-major residues) and of the CRT reconstruction ([`crt`]: residues →
//! limbs in `[0, Q)`, one thread per coefficient; [`crt_cols`]: the same
//! method with each coefficient's output limbs split over several threads,
//! for large `Q`), shared by the GPU kernels and the host's CPU path.
//!
//! Coefficients are `L = ⌈log2 Q / 64⌉` little-endian `u64` limbs each,
//! coefficient-major: coefficient `c`'s limbs are `limbs[c·L .. c·L + L]`
//! (a `(batch, N, L)` row-major array). Residues are tower-major: tower `i`
//! holds residue `c` at `i · count + c` (`count = batch · N`).
//!
//! Both kernels give a block [`block_coeffs`] consecutive coefficients and
//! stage their limbs in shared memory with the row stride
//! [`padded_stride`]`(L)` (odd, so the threads' `u64` accesses to their own
//! rows hit distinct banks): the global side of every limb access is then a
//! contiguous, coalesced run of the block's `B · L` words, and each thread
//! works on its own row. All arithmetic on limbs and table entries is in
//! `u64`/`u128` whatever the residue word `W` (for `u32` towers the
//! residues are widened on load and narrowed on store), and the tables the
//! host builds ([`decompose::table`], [`crt::table`]) are `u64` words.

pub mod acc;
pub mod crt;
pub mod crt_cols;
pub mod decompose;

use crate::smem::Shared;

/// Threads (= coefficients) per block of the conversion kernels for `l`
/// limbs and `k` towers of `word_bytes`-byte residues: the largest power of
/// two from 32 to 128 whose shared memory ([`crt::shared_bytes`], the larger
/// of the two kernels') stays within `max_shared` bytes, or 0 if not even 32
/// fit. The host launches both kernels with this block and computes the same
/// number for its CPU path.
pub const fn block_coeffs(l: u32, k: u32, word_bytes: u32, max_shared: u32) -> u32 {
    let mut b = 128;
    while b >= 32 {
        if crt::shared_bytes(b, l, k, word_bytes) <= max_shared as u64 {
            return b;
        }
        b /= 2;
    }
    0
}

/// The shared-memory row stride of a coefficient's `l` limbs: `l` rounded
/// up to an odd number, so that the 16 lanes of a half-warp reading word
/// `j` of their own rows (`u64`: two banks each) hit 16 distinct bank pairs.
#[inline(always)]
pub const fn padded_stride(l: u32) -> u32 {
    l | 1
}

/// The multiplier of [`div_by`] for `l` limbs: `⌊(2^32 − 1) / l⌋ + 1`, with
/// which `⌊e · magic / 2^32⌋ = ⌊e / l⌋` for every `e · l < 2^32` (the
/// block's limb index `e < B · l`), so the kernels split a limb index into
/// coefficient and limb without a division by a run-time value; `0` for
/// `l ≤ 1` (the index is the coefficient).
///
/// A 32-bit multiplier on purpose: with a 64-bit one (`2^32 + 1` for
/// `l = 1`) and the high word of a 64-bit product, ptxas 13.0 (sm_90)
/// strength-reduced the staging loop's `(lp − l) · ⌊e · magic / 2^32⌋`
/// into a wrong multiple of `e`, and the decomposition kernel wrote shared
/// memory out of bounds (compute-sanitizer, device run 45; docs/toolchain.md).
pub const fn div_magic(l: u32) -> u32 {
    if l <= 1 { 0 } else { u32::MAX / l + 1 }
}

/// `⌊e / l⌋` by the magic of [`div_magic`] (`e · l < 2^32`): the high word
/// of a 32-bit product (`mul.hi.u32`).
#[inline(always)]
pub fn div_by(e: u32, magic: u32) -> u32 {
    if magic == 0 { e } else { ((e as u64 * magic as u64) >> 32) as u32 }
}

/// The words of a block's limbs that lie in the batch: `B · l`, fewer in
/// the last block.
#[inline(always)]
pub fn block_words(blk: u32, b: u32, count: u32, l: u32) -> u32 {
    let first = blk * b;
    let n = if count - first < b { count - first } else { b };
    n * l
}

/// Copies words between a block's contiguous global limbs `g` (`words` of
/// them, from [`block_words`]) and its padded shared rows `s`: thread `t` of
/// `nt` moves words `t, t + nt, …` (coalesced on the global side).
/// `TO_SHARED` chooses the direction.
///
/// # Safety
/// `g` holds `words` words; `s` holds `B · padded_stride(l)` words.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn stage<S: Shared<u64>, const TO_SHARED: bool>(
    g: *mut u64,
    s: &S,
    words: u32,
    l: u32,
    magic: u32,
    t: u32,
    nt: u32,
) {
    let lp = padded_stride(l);
    let mut e = t;
    while e < words {
        let c = div_by(e, magic);
        let at = c * lp + (e - c * l);
        // SAFETY: e < words (global), at < B · lp (shared).
        unsafe {
            if TO_SHARED {
                s.st_at(at, crate::gmem::Gmem::ld(g.add(e as usize)));
            } else {
                crate::gmem::Gmem::st(g.add(e as usize), s.ld_at(at));
            }
        }
        e += nt;
    }
}

/// `x · w mod q` in `[0, 2q)` for any `x < 2^64` and `w < q < 2^63`, with
/// Shoup's `wp = ⌊w · 2^64 / q⌋` ([`shoup_prep`]): the quotient estimate
/// `⌊x · wp / 2^64⌋` is at most one below `⌊x · w / q⌋`.
#[inline(always)]
pub fn shoup_lazy(x: u64, w: u64, wp: u64, q: u64) -> u64 {
    let quot = ((x as u128 * wp as u128) >> 64) as u64;
    x.wrapping_mul(w).wrapping_sub(quot.wrapping_mul(q))
}

/// [`shoup_lazy`] reduced to `[0, q)`.
#[inline(always)]
pub fn shoup(x: u64, w: u64, wp: u64, q: u64) -> u64 {
    let r = shoup_lazy(x, w, wp, q);
    if r >= q { r - q } else { r }
}

/// Shoup's precomputed `⌊w · 2^64 / q⌋` for `w < q` (host side).
pub fn shoup_prep(w: u64, q: u64) -> u64 {
    (((w as u128) << 64) / q.max(1) as u128) as u64
}

/// `(w·2^64) mod q` for `w < q` (host side).
pub fn shift64_mod(w: u64, q: u64) -> u64 {
    (((w as u128) << 64) % q.max(1) as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_magic_divides_every_limb_index_of_a_block() {
        // Every L to 200 and the largest the host allows (4096 limbs).
        for l in (1..=200u32).chain([255, 256, 257, 1000, 4093, 4095, 4096]) {
            let m = div_magic(l);
            for e in 0..128 * l {
                assert_eq!(div_by(e, m), e / l, "e = {e}, l = {l}");
            }
        }
    }

    #[test]
    fn shoup_reduces_any_word() {
        for q in [5u64, 0x3fff_ffff_ffff_ffe7, (1 << 61) - 1, 1_073_479_681] {
            for w in [0, 1, q / 3, q - 1] {
                let wp = shoup_prep(w, q);
                for x in [0u64, 1, q - 1, q, u64::MAX, u64::MAX / 3, 1 << 63] {
                    let want = ((x as u128 * w as u128) % q as u128) as u64;
                    assert_eq!(shoup(x, w, wp, q), want, "x={x} w={w} q={q}");
                }
            }
        }
    }

    #[test]
    fn blocks_shrink_to_fit_shared_memory() {
        assert_eq!(block_coeffs(20, 20, 8, 48 * 1024), 128);
        assert!(block_coeffs(64, 67, 8, 48 * 1024) >= 32);
        assert!(block_coeffs(64, 140, 4, 48 * 1024) >= 32);
        assert_eq!(block_coeffs(4000, 4000, 8, 48 * 1024), 0);
    }
}
