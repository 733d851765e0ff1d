//! NTT-style steps of a DGT pass (issue 34): each thread holds radix-`2^u`
//! units of Gaussians in registers and runs `u` stages between two
//! barriers, where Coala's fixed access ([`super::pass::step`]) gives each
//! butterfly two threads and each stage a barrier and a trip through shared
//! memory.
//!
//! The tile holds the block's sets in place, local position `r` of set `y`
//! at `unit_slot(…, comp, y, r)` (`layout.rs`): one buffer, since a step reads and
//! writes the same places of its own units. Step `j` runs local stages
//! `g .. g + u'` ([`PassGeometry::unit_step`]); its units are the `2^u'`
//! Gaussians `a0 + x·h` (`h = 2^(k − g − u')`, `x < 2^u'`) that those
//! stages connect, `a0` with its bits `k − g − u' .. k − g` clear. Within a
//! unit, level `d` is local stage `t = g + d`, pairing registers `x` and
//! `x + 2^(u'−d−1)` (logical elements differing in bit `k − 1 − t`), as
//! the Gentleman–Sande butterfly of the forward and the Cooley–Tukey
//! butterfly of the inverse (levels in reverse, steps in reverse).
//!
//! The butterflies and their twiddles are Coala's: the pair whose first
//! logical element is `a` at stage `t` takes the twiddle of exponent
//! [`PassGeometry::twiddle_exponent`]`(set, t, i)` with `i >> t = a mod
//! 2^(k−1−t)`, from the same packed table (entry `i = (a mod 2^(k−1−t)) <<
//! t`), and computes the same two words per component ([`Gauss::add`],
//! [`Gauss::sub`], [`Gauss::mul_op`] are [`super::pass::step`]'s
//! `add_mod`, `sub_mod` and `mul_part`). So a pass of register units
//! writes the very words Coala's pass writes: the CPU tests and the GPU
//! check compare the two.

use super::gauss::{Gauss, GaussTable};
use super::layout::{PassGeometry, unit_slot};
use crate::Word;
use crate::arith::{ModMul, Shoup};
use crate::smem::Shared;

/// Step `n` (`< geo.steps()`) of a register-unit pass for thread `tid` on
/// the tile at `tile`: forward = unit step `n`'s Gentleman–Sande levels,
/// inverse = unit step `steps − 1 − n`'s Cooley–Tukey levels in reverse,
/// with `tw` the pass's packed table (forward or inverse). A thread runs
/// `2^(u − u')` units of `2^u'` Gaussians (one where `u' = u`).
///
/// # Safety
/// `geo.units()`, `tid < geo.threads()`, `set0` a cluster start, the tile
/// [`super::layout::shared_words`] words from `tile`, `tw` the pass's
/// packed table ([`PassGeometry::twiddle_len`] entries).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn step<W: Word, S: Shared<W>>(
    s: &S,
    tile: usize,
    geo: &PassGeometry,
    set0: u32,
    n: u32,
    tid: u32,
    inverse: bool,
    tw: &GaussTable<W>,
    red: &Shoup<W>,
) {
    let j = if inverse { geo.steps() - 1 - n } else { n };
    let (g, lu) = geo.unit_step(j);
    let per = 1u32 << (geo.log_unit - lu);
    let threads = geo.threads();
    for v in 0..per {
        let p = tid + v * threads;
        // SAFETY: `unit`'s contract is this function's with `p` one of the
        // step's `λ · 2^(k − lu)` units (`tid < threads`, `v < per`).
        unsafe {
            match (lu, inverse) {
                (3, false) => unit::<W, S, 8, false>(s, tile, geo, set0, g, p, tw, red),
                (2, false) => unit::<W, S, 4, false>(s, tile, geo, set0, g, p, tw, red),
                (_, false) => unit::<W, S, 2, false>(s, tile, geo, set0, g, p, tw, red),
                (3, true) => unit::<W, S, 8, true>(s, tile, geo, set0, g, p, tw, red),
                (2, true) => unit::<W, S, 4, true>(s, tile, geo, set0, g, p, tw, red),
                (_, true) => unit::<W, S, 2, true>(s, tile, geo, set0, g, p, tw, red),
            }
        }
    }
}

/// Unit `p` (`< λ · 2^(k − log2 R)`: set `p >> (k − log2 R)`, unit
/// `p mod 2^(k − log2 R)` of it) of the step whose first local stage is
/// `g`, `R` Gaussians.
///
/// # Safety
/// As [`step`], with `g + log2 R <= k` and `p` below the step's units.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn unit<W: Word, S: Shared<W>, const R: usize, const INV: bool>(
    s: &S,
    tile: usize,
    geo: &PassGeometry,
    set0: u32,
    g: u32,
    p: u32,
    tw: &GaussTable<W>,
    red: &Shoup<W>,
) {
    let k = geo.k();
    let lu = R.trailing_zeros();
    let (y, q) = (p >> (k - lu), p & ((1 << (k - lu)) - 1));
    let lh = k - g - lu;
    let h = 1u32 << lh;
    let a0 = ((q >> lh) << (k - g)) | (q & (h - 1));
    let set = set0 + y;
    let m = red.q();
    let mut a = [Gauss { re: W::zero(), im: W::zero() }; R];
    // SAFETY: `a0 + x·h < 2^k` and `y < λ`: slots inside the tile (caller).
    unsafe {
        for (x, v) in a.iter_mut().enumerate() {
            let r = a0 + ((x as u32) << lh);
            *v = Gauss { re: s.ld(unit_slot(geo, tile, 0, y, r)), im: s.ld(unit_slot(geo, tile, 1, y, r)) };
        }
    }
    // The twiddle of level `d`'s pairs whose first register is `b·width + x`
    // (`x` below the span): it does not depend on `b` (the pair's first
    // logical element mod 2^(k−1−t) is `a0 + x·h`'s).
    let twiddle = |d: u32, x: usize| {
        let t = g + d;
        let low = (a0 + ((x as u32) << lh)) & ((1 << (k - 1 - t)) - 1);
        // SAFETY: `low << t < 2^(k−1)`: an entry of the pass's table (caller).
        unsafe { tw.get::<Shoup<W>>(geo.twiddle_index(set, t, low << t)) }
    };
    let level = |a: &mut [Gauss<W>; R], d: u32| {
        let (span, width) = (R >> (d + 1), R >> d);
        for x in 0..span {
            let w = twiddle(d, x);
            for b in 0..1usize << d {
                let (lo, hi) = (b * width + x, b * width + x + span);
                if INV {
                    let bw = a[hi].mul_op(w, red);
                    (a[lo], a[hi]) = (a[lo].add(bw, m), a[lo].sub(bw, m));
                } else {
                    (a[lo], a[hi]) = (a[lo].add(a[hi], m), a[lo].sub(a[hi], m).mul_op(w, red));
                }
            }
        }
    };
    if INV {
        for d in (0..lu).rev() {
            level(&mut a, d);
        }
    } else {
        for d in 0..lu {
            level(&mut a, d);
        }
    }
    // SAFETY: the unit's own slots, as above.
    unsafe {
        for (x, v) in a.iter().enumerate() {
            let r = a0 + ((x as u32) << lh);
            s.st(unit_slot(geo, tile, 0, y, r), v.re);
            s.st(unit_slot(geo, tile, 1, y, r), v.im);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dgt::layout::MAX_LOG_UNIT;

    /// Every step's units (as [`unit`] places them) cover each element of
    /// every set once, and level `d` of a unit pairs logical elements
    /// differing in bit `k − 1 − (g + d)` only, the pairs of Coala's stage
    /// `g + d`.
    #[test]
    fn units_cover_the_sets_and_pair_the_stage_bits() {
        for k in 1..=10u32 {
            for log_unit in 1..=MAX_LOG_UNIT.min(k) {
                for log_cluster in 0..=2u32 {
                    let geo = PassGeometry { log_m: 12, s0: 0, s1: k, log_cluster, log_unit };
                    let mut stages = 0;
                    for j in 0..geo.steps() {
                        let (g, lu) = geo.unit_step(j);
                        assert_eq!(g, stages);
                        stages += lu;
                        let mut seen = [0u8; 1 << 12];
                        let seen = &mut seen[..1 << (log_cluster + k)];
                        let units = (1u32 << (log_cluster + k)) >> lu;
                        assert_eq!(units, geo.threads() << (log_unit - lu));
                        for p in 0..units {
                            let (y, q) = (p >> (k - lu), p & ((1 << (k - lu)) - 1));
                            let lh = k - g - lu;
                            let h = 1u32 << lh;
                            let a0 = ((q >> lh) << (k - g)) | (q & (h - 1));
                            for x in 0..1u32 << lu {
                                seen[((y << k) | (a0 + x * h)) as usize] += 1;
                            }
                            for d in 0..lu {
                                let span = 1u32 << (lu - d - 1);
                                for x in 0..1u32 << lu {
                                    if x & span == 0 {
                                        let (lo, hi) = (a0 + x * h, a0 + (x + span) * h);
                                        assert_eq!(lo ^ hi, 1 << (k - 1 - (g + d)), "k={k} u={log_unit}");
                                    }
                                }
                            }
                        }
                        assert!(seen.iter().all(|&c| c == 1), "k={k} u={log_unit} λ=2^{log_cluster} j={j}");
                    }
                    assert_eq!(stages, k);
                }
            }
        }
    }
}
