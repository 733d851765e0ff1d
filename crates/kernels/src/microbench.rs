//! The per-thread body of the modular-multiplication microbenchmark
//! (Fig. 4 of the SEED 2022 paper): four independent chains
//! `x ← x · w mod q` per thread, `iters` steps each, so that the
//! measurement is throughput of the reduction, not memory traffic.

use crate::Word;
use crate::arith::ModMul;

/// Independent chains per thread.
pub const CHAINS: usize = 4;

/// Runs thread `t`'s chains over `data[4t .. 4t+4]` in place, multiplying by
/// the prepared operand `(main[t], aux[t])`.
///
/// # Safety
/// `data` must hold `4·(t+1)` words `< q`; `main` (and `aux` if
/// `R::NEEDS_AUX`) `t + 1` prepared words.
#[inline(always)]
pub unsafe fn modmul_chains<W: Word, R: ModMul<W>, const SELECT: bool>(
    data: *mut W,
    main: *const W,
    aux: *const W,
    t: usize,
    iters: u32,
    red: &R,
) {
    // SAFETY: the caller guarantees the indices are in bounds.
    unsafe {
        let a = if R::NEEDS_AUX { *aux.add(t) } else { W::zero() };
        let w = R::op(*main.add(t), a);
        let p = data.add(CHAINS * t);
        let (mut x0, mut x1, mut x2, mut x3) = (*p, *p.add(1), *p.add(2), *p.add(3));
        for _ in 0..iters {
            x0 = red.mul_with::<SELECT>(x0, w);
            x1 = red.mul_with::<SELECT>(x1, w);
            x2 = red.mul_with::<SELECT>(x2, w);
            x3 = red.mul_with::<SELECT>(x3, w);
        }
        *p = x0;
        *p.add(1) = x1;
        *p.add(2) = x2;
        *p.add(3) = x3;
    }
}
