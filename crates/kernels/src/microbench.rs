//! The per-thread body of the modular-multiplication microbenchmark
//! (Fig. 4 of the SEED 2022 paper): four independent chains
//! `x ← x · w mod q` per thread, `iters` steps each, so that the
//! measurement is throughput of the reduction, not memory traffic.

use crate::Word;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf};
use crate::arith::ModMul;
use crate::gmem::Gmem;

/// Independent chains per thread.
pub const CHAINS: usize = 4;

/// The argument block of the microbenchmark kernels
/// (`modmul_bench_{if,select}_<reduction>_<word>`,
/// [`crate::names::ModMulBenchKernel`]): one `#[repr(C)]` value, the
/// kernel's only parameter, which the host fills field by field. Thread
/// `t < threads` runs [`modmul_chains`].
///
/// # Invariants
///
/// What the `unsafe` blocks of `modmul_bench_*` rely on: `data` points to
/// [`CHAINS`]` · threads` words below `q`, `ops` (and `ops_aux` where the
/// reduction has auxiliary words) to `threads` prepared words, and
/// `(q, k, m)` are [`ModMul::parts`] of the reduction for `q`.
/// [`ModMulBenchArgs::new`] (host only) checks the buffers' extents
/// (`data`: `CHAINS · threads` words; `ops` and a non-null `ops_aux`:
/// `threads` words; `threads > 0`) and `q` in `3..2^(β−1)`; the words being
/// below `q`, the operands' preparation and `(q, k, m)` matching the
/// kernel's reduction stay the caller's.
/// Established by `polymul::microbench::ModMulBench::new` (the buffers
/// and the prepared operands) and `polymul::microbench::modmul_bench` (the
/// block, through [`ModMulBenchArgs::new`]).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct ModMulBenchArgs<W> {
    /// The chains' values, [`CHAINS`] words per thread.
    pub(crate) data: *mut W,
    /// The prepared operands, one per thread.
    pub(crate) ops: *const W,
    /// Their auxiliary words, or null when the reduction needs none.
    pub(crate) ops_aux: *const W,
    /// Threads that run (the launch may have more).
    pub(crate) threads: u32,
    /// Steps per chain.
    pub(crate) iters: u32,
    /// The reduction's third constant (`m` of [`ModMul::parts`]).
    pub(crate) m: u32,
    /// The modulus.
    pub(crate) q: W,
    /// The reduction's second constant.
    pub(crate) k: W,
}

/// The argument block of the compute-floor kernels
/// (`butterfly_floor_<word>`, [`crate::names::ButterflyFloorKernel`]):
/// thread `t` stores [`lazy_butterflies`] at `out[t]`.
///
/// # Invariants
///
/// What the `unsafe` store of `butterfly_floor_*` relies on: `out` points to
/// one word per launched thread (`gridDim.x · blockDim.x` words).
/// [`ButterflyFloorArgs::new`] (host only) checks that `out` holds the
/// launch's threads' words and `3 ≤ q < 2^`[`harvey::max_bits`](crate::arith::harvey::max_bits);
/// the grid having that many threads stays the caller's.
/// Established by `polymul::Gpu::lazy_butterfly_rate` (`gpu/timing.rs`,
/// through [`ButterflyFloorArgs::new`]), which also checks `q` and
/// `rounds` first to report them as its own errors.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct ButterflyFloorArgs<W> {
    /// One word per launched thread.
    pub(crate) out: *mut W,
    /// Rounds of four butterflies.
    pub(crate) rounds: u32,
    /// The twiddle.
    pub(crate) w: W,
    /// Its Shoup companion.
    pub(crate) wp: W,
    /// The modulus.
    pub(crate) q: W,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> ModMulBenchArgs<W> {
    /// The block of `threads` threads' chains over `data` with the prepared
    /// operands `(ops, ops_aux)` (`ops_aux`: [`Buf::none`] for a reduction
    /// without auxiliary words), `iters` steps each, and the reduction's
    /// `(q, k, m)` ([`ModMul::parts`]). Checks what the
    /// [`ModMulBenchArgs`] docs say.
    pub fn new(
        data: Buf<W>,
        (ops, ops_aux): (Buf<W>, Buf<W>),
        threads: u32,
        iters: u32,
        (q, k, m): (W, W, u32),
    ) -> Result<Self, ArgsError> {
        if threads == 0 {
            return Err(ArgsError::Count);
        }
        data.holds(CHAINS as u64 * threads as u64)?;
        ops.holds(threads as u64)?;
        ops_aux.holds_if_any(threads as u64)?;
        let q64 = q.as_u64();
        if !(3..1u64 << (W::BITS - 1)).contains(&q64) {
            return Err(ArgsError::Modulus);
        }
        Ok(ModMulBenchArgs {
            data: data.mut_ptr(),
            ops: ops.ptr,
            ops_aux: ops_aux.ptr,
            threads,
            iters,
            m,
            q,
            k,
        })
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> ButterflyFloorArgs<W> {
    /// The block of a launch of `threads` threads in all, each storing its
    /// result in `out`, `rounds` rounds with the twiddle `w` modulo `q`.
    /// Checks what the [`ButterflyFloorArgs`] docs say.
    pub fn new(
        out: Buf<W>,
        threads: u64,
        rounds: u32,
        w: crate::arith::harvey::ShoupPair<W>,
        q: W,
    ) -> Result<Self, ArgsError> {
        if threads == 0 {
            return Err(ArgsError::Count);
        }
        out.holds(threads)?;
        let q64 = q.as_u64();
        if !(3..1u64 << crate::arith::harvey::max_bits(W::BITS)).contains(&q64) {
            return Err(ArgsError::Modulus);
        }
        Ok(ButterflyFloorArgs { out: out.mut_ptr(), rounds, w: w.w, wp: w.wp, q })
    }
}

/// Runs thread `t`'s chains over `data[4t .. 4t+4]` in place, multiplying by
/// the prepared operand `(main[t], aux[t])`.
///
/// # Safety
/// `data` must hold `4·(t+1)` words `< q`; `main` (and `aux` if
/// `R::NEEDS_AUX`) `t + 1` prepared words.
#[inline(always)]
pub unsafe fn modmul_chains<W: Gmem, R: ModMul<W>, const SELECT: bool>(
    data: *mut W,
    main: *const W,
    aux: *const W,
    t: usize,
    iters: u32,
    red: &R,
) {
    // SAFETY: the caller guarantees the indices are in bounds.
    unsafe {
        let a = if R::NEEDS_AUX { W::ld(aux.add(t)) } else { W::zero() };
        let w = R::op(W::ld(main.add(t)), a);
        let p = data.add(CHAINS * t);
        let (mut x0, mut x1, mut x2, mut x3) = (W::ld(p), W::ld(p.add(1)), W::ld(p.add(2)), W::ld(p.add(3)));
        for _ in 0..iters {
            x0 = red.mul_with::<SELECT>(x0, w);
            x1 = red.mul_with::<SELECT>(x1, w);
            x2 = red.mul_with::<SELECT>(x2, w);
            x3 = red.mul_with::<SELECT>(x3, w);
        }
        W::st(p, x0);
        W::st(p.add(1), x1);
        W::st(p.add(2), x2);
        W::st(p.add(3), x3);
    }
}

/// The compute floor of the lazy NTT: thread `t`'s eight registers go
/// through `rounds` rounds of four independent Harvey butterflies
/// ([`crate::arith::harvey::ct`]), register-only (no memory traffic
/// inside the loop); returns the XOR of the eight values, which the kernel
/// stores so that the work stays alive. The twin of
/// `shared/tools/butterfly_floor.cu` in the project's own Rust.
#[inline(always)]
pub fn lazy_butterflies<W: Word>(t: u32, w: crate::arith::harvey::ShoupPair<W>, q: W, rounds: u32) -> W {
    let q2 = q + q;
    let mut x = [W::zero(); 8];
    for (i, v) in x.iter_mut().enumerate() {
        *v = W::from_u64(u64::from((t * 8 + i as u32) & 0xffff));
    }
    for _ in 0..rounds {
        for i in 0..4 {
            (x[i], x[i + 4]) = crate::arith::harvey::ct(x[i], x[i + 4], w, q, q2);
        }
    }
    x.iter().fold(W::zero(), |acc, &v| acc ^ v)
}
