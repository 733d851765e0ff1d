//! The per-thread phases of the DGT kernels: one shared-memory pass (load,
//! `k` fixed-access stages, store), encoding and decoding, and the pointwise
//! Gaussian product. The GPU entry points call them between barriers; the
//! host calls them in loops over every thread (`polymul::dgt::cpu`).
//!
//! Fixed access (Coala's Algorithms 2 and 3): in a Gentleman–Sande stage
//! butterfly `i` always reads positions `i` and `i + 2^(k−1)` of its set and
//! writes `2i` and `2i + 1`; a Cooley–Tukey stage reads `2i`, `2i + 1` and
//! writes `i`, `i + 2^(k−1)`. The element at local position `p` before GS
//! stage `t` is logical element `rotr^t(p)`, so after all `k` stages every
//! element is back at its in-place position — the pass's output is the
//! in-place DIF result, and the CT pass undoes it exactly (times 2 per
//! stage; the decoder's weights carry `1/M`). The stages read one buffer and
//! write the other (ping-pong), so one barrier per stage suffices.
//!
//! Each butterfly is two threads, one per output component (real or
//! imaginary part: two products each), the split Coala makes between the
//! real and imaginary halves of the Gaussian butterfly. Coala puts the
//! component on the grid's y axis; within a pass of several stages each
//! stage needs both components of the previous one, so here the two halves
//! are neighbouring threads of one block that exchange through shared
//! memory.

use super::gauss::{Gauss, GaussOp};
use super::layout::PassGeometry;
use crate::Word;
use crate::arith::{Barrett4, ModMul, add_mod, sub_mod};
use crate::smem::Shared;

/// A table of prepared Gaussian values: `len` real main words, then `len`
/// real auxiliary words, `len` imaginary main, `len` imaginary auxiliary.
#[derive(Debug, Clone, Copy)]
pub struct GaussTable<W> {
    /// First word.
    pub base: *const W,
    /// Entries.
    pub len: u32,
}

impl<W: Word> GaussTable<W> {
    /// Entry `idx`, as the reduction's operand.
    ///
    /// # Safety
    /// `idx < len` and the table holds `4·len` words.
    #[inline(always)]
    pub unsafe fn get<R: ModMul<W>>(&self, idx: u32) -> GaussOp<R::Op> {
        let (i, n) = (idx as usize, self.len as usize);
        // SAFETY: inside the table (caller).
        unsafe {
            let aux = |k: usize| if R::NEEDS_AUX { *self.base.add(k) } else { W::zero() };
            GaussOp {
                re: R::op(*self.base.add(i), aux(n + i)),
                im: R::op(*self.base.add(2 * n + i), aux(3 * n + i)),
            }
        }
    }
}

/// Shared-memory word of buffer `buf`, component `comp`, set `y` of the
/// cluster, local position `r`: `[buf][comp][y][r]`.
#[inline(always)]
fn slot(geo: &PassGeometry, buf: u32, comp: u32, y: u32, r: u32) -> usize {
    ((((((buf << 1) | comp) << geo.log_cluster) | y) << geo.k()) | r) as usize
}

/// Shared words a pass needs: two buffers of `2·λ·2^k`.
#[inline(always)]
pub fn shared_words(geo: &PassGeometry) -> usize {
    4usize << (geo.log_cluster + geo.k())
}

/// Load phase: thread `tid` moves one Gaussian (both planes) of the block
/// whose first set is `set0` from `src` (one polynomial, planar) into
/// buffer 0.
///
/// # Safety
/// `tid < geo.threads()`, `set0` a cluster start, `src` holds `2M` words,
/// the shared tile [`shared_words`].
#[inline(always)]
pub unsafe fn load<W: Word, S: Shared<W>>(
    src: *const W,
    s: &S,
    geo: &PassGeometry,
    set0: u32,
    tid: u32,
    packed: bool,
) {
    let (pos, y, r) = geo.element(set0, tid, packed);
    let m = 1usize << geo.log_m;
    // SAFETY: positions below M (caller).
    unsafe {
        s.st(slot(geo, 0, 0, y, r), *src.add(pos as usize));
        s.st(slot(geo, 0, 1, y, r), *src.add(m + pos as usize));
    }
}

/// Store phase: the mirror of [`load`], from the buffer the last stage wrote.
///
/// # Safety
/// As [`load`]; `dst` holds `2M` words.
#[inline(always)]
pub unsafe fn store<W: Word, S: Shared<W>>(
    dst: *mut W,
    s: &S,
    geo: &PassGeometry,
    set0: u32,
    tid: u32,
    packed: bool,
) {
    let (pos, y, r) = geo.element(set0, tid, packed);
    let m = 1usize << geo.log_m;
    let buf = geo.k() & 1;
    // SAFETY: positions below M (caller).
    unsafe {
        *dst.add(pos as usize) = s.ld(slot(geo, buf, 0, y, r));
        *dst.add(m + pos as usize) = s.ld(slot(geo, buf, 1, y, r));
    }
}

/// Step `n` (`0..k`) of a pass for thread `tid`: forward = Gentleman–Sande
/// local stage `t = n` (Algorithm 2), inverse = Cooley–Tukey local stage
/// `t = k − 1 − n` (Algorithm 3) with the inverse twiddles. Reads buffer
/// `n mod 2`, writes the other.
///
/// # Safety
/// `tid < geo.threads()`; `tw` is the pass's packed table
/// ([`PassGeometry::twiddle_len`] entries).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn step<W: Word, R: ModMul<W>, S: Shared<W>>(
    s: &S,
    geo: &PassGeometry,
    set0: u32,
    n: u32,
    tid: u32,
    inverse: bool,
    tw: &GaussTable<W>,
    red: &R,
) {
    let k = geo.k();
    let half = 1u32 << (k - 1);
    let y = tid >> k;
    let x = tid & ((1 << k) - 1);
    let comp = x >> (k - 1);
    let i = x & (half - 1);
    let (from, to) = (n & 1, (n & 1) ^ 1);
    let p = red.q();
    // SAFETY: slots inside the tile, twiddle index inside the table.
    unsafe {
        let at = |r: u32| Gauss { re: s.ld(slot(geo, from, 0, y, r)), im: s.ld(slot(geo, from, 1, y, r)) };
        let part = |g: Gauss<W>| if comp == 0 { g.re } else { g.im };
        if !inverse {
            let w = tw.get::<R>(geo.twiddle_index(set0 + y, n, i));
            let (u, v) = (at(i), at(i + half));
            s.st(slot(geo, to, comp, y, 2 * i), add_mod(part(u), part(v), p));
            s.st(slot(geo, to, comp, y, 2 * i + 1), u.sub(v, p).mul_part(w, comp, red));
        } else {
            let t = k - 1 - n;
            let w = tw.get::<R>(geo.twiddle_index(set0 + y, t, i));
            let (a, b) = (at(2 * i), at(2 * i + 1));
            let bw = b.mul_part(w, comp, red);
            s.st(slot(geo, to, comp, y, i), add_mod(part(a), bw, p));
            s.st(slot(geo, to, comp, y, i + half), sub_mod(part(a), bw, p));
        }
    }
}

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
    // SAFETY: indices below M (caller).
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
    // SAFETY: as the caller's.
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
    // SAFETY: as the caller's.
    unsafe { codec::<W, R, true>(src, dst, geo0, j, inv_weights, red) }
}

/// Pointwise Gaussian product of element `j`: `a_j ← a_j · b_j`.
///
/// # Safety
/// `j < M`; both buffers hold `2M` words.
#[inline(always)]
pub unsafe fn pointwise<W: Word>(a: *mut W, b: *const W, m: usize, j: usize, red: &Barrett4<W>) {
    // SAFETY: indices below 2M (caller).
    unsafe {
        let x = Gauss { re: *a.add(j), im: *a.add(m + j) };
        let y = Gauss { re: *b.add(j), im: *b.add(m + j) };
        let z = x.mul(y, red);
        *a.add(j) = z.re;
        *a.add(m + j) = z.im;
    }
}
