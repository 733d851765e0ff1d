//! The ciphertext tensor product in the NTT domain: the core of BFV, BGV
//! and CKKS multiplication.
//!
//! A ciphertext is two polynomials `(c0, c1)`. The product of `a = (a0,
//! a1)` and `b = (b0, b1)` is the three polynomials
//! `(a0·b0, a0·b1 + a1·b0, a1·b1)`. In the NTT domain every coefficient
//! position is independent, so one thread per position and tower computes
//! all three outputs from the four inputs: four Algorithm 4 products and one
//! modular sum. The host runs the forward transforms before and the inverse
//! transforms after (`polymul::plan::engine::NttEngine::tensor_in_place`).
//!
//! Layout, per tower (the plans' tower-major layout, `m` ciphertexts): the
//! inputs hold `2m` polynomials, ciphertext `j`'s `c0` at polynomial `2j`
//! and `c1` at `2j + 1`; the output holds `3m`, ciphertext `j`'s three at
//! `3j`, `3j + 1`, `3j + 2`.

use crate::Word;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf, TowerGrid, one_tower_modulus, span};
use crate::arith::{Barrett4, ModMul, add_mod};
use crate::gmem::Gmem;
use crate::towers::Towers;

/// The argument block of the tensor-product kernel (`tensor_<word>`,
/// [`crate::names::TensorKernel`]): one `#[repr(C)]` value, the kernel's
/// only parameter, which the host fills field by field. Thread `t < len` of
/// block row `y` runs [`tensor_at`] on position `t` of tower `y`.
///
/// # Invariants
///
/// What the `unsafe` blocks of `tensor_*` rely on (`N = 2^log_n`):
///
/// * `towers` satisfies the invariants of [`Towers`] with
///   `data_words = 2m · N` (the inputs' words per tower; `tw_words`
///   unused), `len = m · N`;
/// * `a` and `b` each point to `rows · data_words` words of global memory,
///   tower `y`'s words below its modulus;
/// * `out` points to `rows · out_words` words, `out_words = 3m · N`, and
///   overlaps neither `a` nor `b`;
/// * a one-tower launch's `(q, mu, qbits)` are Algorithm 4's constants of
///   its modulus.
///
/// [`TensorArgs::new`] (host only) checks what it can see: the tower table
/// ([`TowerGrid`]); `a`, `b` and `out` non-null and long enough,
/// `data_words` a non-zero multiple of `2N`, `len` below `2^32`, `log_n <
/// 32`; a one-tower modulus with `4q < 2^β`. That `out` overlaps neither
/// input, the words' reduction, the constants and the grid stay the
/// caller's.
///
/// Established by `polymul::plan::launch::tensor` (host, through
/// [`TensorArgs::new`]: grid `⌈len / 256⌉ × rows`), whose caller
/// `polymul::plan::engine::NttEngine::tensor_in_place` checked the three
/// buffers with `polymul::ciphertext::TensorShape` and holds them as
/// distinct `&mut` views.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct TensorArgs<W> {
    /// The three products, tower 0's.
    pub(crate) out: *mut W,
    /// The first ciphertext (NTT domain), tower 0's.
    pub(crate) a: *const W,
    /// The second ciphertext (NTT domain), tower 0's.
    pub(crate) b: *const W,
    /// The RNS tower arguments ([`crate::towers`]): `data_words` is the
    /// inputs' words per tower.
    pub(crate) towers: Towers<W>,
    /// The output's words per tower (`3m · N`).
    pub(crate) out_words: u64,
    /// Positions per tower: `m · N`.
    pub(crate) len: u32,
    /// `log2 N`.
    pub(crate) log_n: u32,
    /// Algorithm 4's bit length `m` of a one-tower launch's modulus.
    pub(crate) qbits: u32,
    /// A one-tower launch's modulus.
    pub(crate) q: W,
    /// Algorithm 4's `µ` of that modulus.
    pub(crate) mu: W,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> TensorArgs<W> {
    /// The block of `out ← a ⊗ b` (the tensor product) over every tower:
    /// `grid.data_words()` input words per tower (`2m · N`), `out` holding
    /// `3m · N` per tower, a one-tower launch's modulus and Algorithm 4's
    /// constants `barrett`. Checks what the [`TensorArgs`] docs say.
    pub fn new(
        out: Buf<W>,
        a: Buf<W>,
        b: Buf<W>,
        grid: &TowerGrid<W>,
        log_n: u32,
        barrett: Barrett4<W>,
    ) -> Result<Self, ArgsError> {
        if log_n >= 32 {
            return Err(ArgsError::Size);
        }
        let dw = grid.data_words();
        let len = dw >> 1;
        if dw == 0 || dw & ((2u64 << log_n) - 1) != 0 || len > u32::MAX as u64 {
            return Err(ArgsError::Count);
        }
        grid.data(&a, dw)?;
        grid.data(&b, dw)?;
        let out_words = span(len, 3, 0)?;
        out.holds(span(grid.rows() as u64 - 1, out_words, out_words)?)?;
        one_tower_modulus(grid, barrett.q, W::BITS - 2)?;
        Ok(TensorArgs {
            out: out.mut_ptr(),
            a: a.ptr,
            b: b.ptr,
            towers: grid.with_tw_words(0).towers(),
            out_words,
            len: len as u32,
            log_n,
            qbits: barrett.m,
            q: barrett.q,
            mu: barrett.mu,
        })
    }
}

/// One position's tensor product: `[a0·b0, a0·b1 + a1·b0, a1·b1] mod q`
/// (Algorithm 4 products) for reduced inputs. What [`tensor_at`] computes,
/// and what the host's CPU backend loops over.
#[inline(always)]
pub fn tensor_one<W: Word>([a0, a1]: [W; 2], [b0, b1]: [W; 2], red: &Barrett4<W>) -> [W; 3] {
    let cross = add_mod(red.mul(a0, b1), red.mul(a1, b0), red.q);
    [red.mul(a0, b0), cross, red.mul(a1, b1)]
}

/// The tensor product at position `t` (of `m · N`) of one tower: with
/// ciphertext `j = t >> log_n` and coefficient `i = t mod N`, reads
/// `a0, a1, b0, b1` at `i` of input polynomials `2j`, `2j + 1` and writes
/// `a0·b0`, `a0·b1 + a1·b0`, `a1·b1` at `i` of output polynomials `3j`,
/// `3j + 1`, `3j + 2`.
///
/// # Safety
/// `a`, `b` hold `2m · N` words and `out` `3m · N` (the tower's), `t < m ·
/// N`, every input word below `red.q`; `out` overlaps neither input.
#[inline(always)]
pub unsafe fn tensor_at<W: Gmem>(
    out: *mut W,
    a: *const W,
    b: *const W,
    t: usize,
    log_n: u32,
    red: &Barrett4<W>,
) {
    let n = 1usize << log_n;
    let (j, i) = (t >> log_n, t & (n - 1));
    let (at, ot) = (((2 * j) << log_n) + i, ((3 * j) << log_n) + i);
    // SAFETY: `at + n < 2m · N` and `ot + 2n < 3m · N` for `t < m · N`
    // (caller).
    unsafe {
        let (a0, a1) = (W::ld(a.add(at)), W::ld(a.add(at + n)));
        let (b0, b1) = (W::ld(b.add(at)), W::ld(b.add(at + n)));
        let [c0, c1, c2] = tensor_one([a0, a1], [b0, b1], red);
        W::st(out.add(ot), c0);
        W::st(out.add(ot + n), c1);
        W::st(out.add(ot + 2 * n), c2);
    }
}

/// The words of one unit of a lazy pass over the tensor product's outputs
/// (the tensor-source inverse row pass, `ntt::lazy::step_tensor`): `out[x]`
/// is the output word at `gbase + x · gstride` of the tower's `3m · N`
/// (all in one polynomial `3j + c`), computed from `a` and `b` (the
/// tower's `2m · N` input words each) as [`tensor_one`]'s component `c`,
/// bit for bit. Units of consecutive words (`gstride = 1`, `R` a multiple
/// of 4, `gbase` a multiple of 4) load their inputs four words at a time
/// in vector loads, one or two operand pairs at a time (few registers
/// beside the unit's).
///
/// # Safety
/// `a` and `b` hold `2m · N` words below `red.q` and `out`'s places lie
/// below `3m · N`; a unit of consecutive words starts 16-byte aligned in
/// `a` and `b` (as the buffers are: `gbase` a multiple of 4).
#[inline(always)]
pub unsafe fn tensor_unit<W: Gmem, const R: usize>(
    a: *const W,
    b: *const W,
    (gbase, gstride): (usize, usize),
    log_n: u32,
    red: &Barrett4<W>,
    out: &mut [W; R],
) {
    let n = 1usize << log_n;
    let poly = gbase >> log_n;
    let (j, c) = (poly / 3, poly % 3);
    let i0 = ((2 * j) << log_n) + (gbase & (n - 1));
    // The first product's operands: a0·b0 (c = 0), a0·b1 (c = 1, then +
    // a1·b0), a1·b1 (c = 2).
    let (da, db) = match c {
        0 => (0, 0),
        1 => (0, n),
        _ => (n, n),
    };
    // SAFETY: every index is below `2m · N` (`i0 + x · gstride + n`, the
    // unit inside polynomial `3j + c` of `3m`, so `j < m`), the caller's
    // bounds; vector loads start at multiples of 4 words of aligned buffers.
    unsafe {
        if gstride == 1 && R.is_multiple_of(4) && gbase.is_multiple_of(4) {
            for ch in 0..R / 4 {
                let i = i0 + 4 * ch;
                let (mut u, mut v) = ([W::zero(); 4], [W::zero(); 4]);
                W::ld_run(a.add(i + da), &mut u);
                W::ld_run(b.add(i + db), &mut v);
                let mut p = [W::zero(); 4];
                for k in 0..4 {
                    p[k] = red.mul(u[k], v[k]);
                }
                if c == 1 {
                    W::ld_run(a.add(i + n), &mut u);
                    W::ld_run(b.add(i), &mut v);
                    for k in 0..4 {
                        p[k] = add_mod(p[k], red.mul(u[k], v[k]), red.q);
                    }
                }
                out[4 * ch..4 * ch + 4].copy_from_slice(&p);
            }
        } else {
            for (x, o) in out.iter_mut().enumerate() {
                let i = i0 + x * gstride;
                let mut p = red.mul(W::ld(a.add(i + da)), W::ld(b.add(i + db)));
                if c == 1 {
                    p = add_mod(p, red.mul(W::ld(a.add(i + n)), W::ld(b.add(i))), red.q);
                }
                *o = p;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Every position of two ciphertexts against the three products
    /// computed in `u128`, at a modulus just below `u64`'s bound (2^62) and with
    /// the edge operands 0 and q − 1.
    #[test]
    fn each_position_gives_the_three_products() {
        let q: u64 = (1 << 62) - 57; // a prime below 2^62 (4q < 2^64)
        let red = Barrett4::<u64>::new(q).expect("an odd modulus below 2^62");
        let (log_n, m) = (3u32, 2usize);
        let n = 1usize << log_n;
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match s % 5 {
                0 => 0,
                1 => q - 1,
                _ => s % q,
            }
        };
        let a: Vec<u64> = (0..2 * m * n).map(|_| next()).collect();
        let b: Vec<u64> = (0..2 * m * n).map(|_| next()).collect();
        let mut out = std::vec![0u64; 3 * m * n];
        for t in 0..m * n {
            // SAFETY: the buffers hold two ciphertexts' words, `t < m · N`.
            unsafe { tensor_at(out.as_mut_ptr(), a.as_ptr(), b.as_ptr(), t, log_n, &red) };
        }
        let mul = |x: u64, y: u64| ((x as u128 * y as u128) % q as u128) as u64;
        for j in 0..m {
            for i in 0..n {
                let (a0, a1) = (a[2 * j * n + i], a[(2 * j + 1) * n + i]);
                let (b0, b1) = (b[2 * j * n + i], b[(2 * j + 1) * n + i]);
                let cross = ((mul(a0, b1) as u128 + mul(a1, b0) as u128) % q as u128) as u64;
                assert_eq!(out[3 * j * n + i], mul(a0, b0));
                assert_eq!(out[(3 * j + 1) * n + i], cross);
                assert_eq!(out[(3 * j + 2) * n + i], mul(a1, b1));
            }
        }
    }

    /// `tensor_unit` gives the words `tensor_at` writes, bit for bit, for
    /// units of consecutive words (vector loads) and strided units, in
    /// every component of three ciphertexts.
    #[test]
    fn units_give_the_tensor_kernels_words() {
        let q: u32 = (1 << 30) - 35;
        let red = Barrett4::<u32>::new(q).expect("an odd modulus below 2^30");
        let (log_n, m) = (5u32, 3usize);
        let n = 1usize << log_n;
        let mut s = 0x2545_f491u32;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            match s % 7 {
                0 => 0,
                1 => q - 1,
                _ => s % q,
            }
        };
        let a: Vec<u32> = (0..2 * m * n).map(|_| next()).collect();
        let b: Vec<u32> = (0..2 * m * n).map(|_| next()).collect();
        let mut want = std::vec![0u32; 3 * m * n];
        for t in 0..m * n {
            // SAFETY: the buffers hold `m` ciphertexts' words, `t < m · N`.
            unsafe { tensor_at(want.as_mut_ptr(), a.as_ptr(), b.as_ptr(), t, log_n, &red) };
        }
        for base in (0..3 * m * n).step_by(8) {
            let mut run = [0u32; 8];
            // SAFETY: 8 consecutive words inside one polynomial (N = 32), a multiple of 4 from
            // the start of a `Vec` (4-byte words: the host path has no alignment need).
            unsafe { tensor_unit(a.as_ptr(), b.as_ptr(), (base, 1), log_n, &red, &mut run) };
            assert_eq!(&run[..], &want[base..base + 8], "run at {base}");
        }
        for poly in 0..3 * m {
            for first in 0..4 {
                let base = poly * n + first;
                let mut unit = [0u32; 8];
                // SAFETY: words `base + 4x`, x < 8, all inside polynomial `poly`.
                unsafe { tensor_unit(a.as_ptr(), b.as_ptr(), (base, 4), log_n, &red, &mut unit) };
                for (x, w) in unit.iter().enumerate() {
                    assert_eq!(*w, want[base + 4 * x], "strided unit at {base}, word {x}");
                }
            }
        }
    }
}
