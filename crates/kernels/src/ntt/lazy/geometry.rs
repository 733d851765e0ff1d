//! The compile-time geometry of the lazy passes: the tile, the range of
//! sub-transform sizes with kernels, [`Shape`] (threads, register steps,
//! shared-memory layout), the split of a transform into a column and a row
//! pass, which rows a row-pass block works on, and the layout of the
//! twiddle tables.

/// Words per block tile for `word_bytes`-byte words: 32 KiB.
pub const fn tile_words(word_bytes: usize) -> u32 {
    (32 * 1024 / if word_bytes == 0 { 1 } else { word_bytes }) as u32
}

/// Largest `l` of a row pass (a row fits one block: 2^13 words).
pub const MAX_ROW_L: u32 = 13;
/// Smallest `l` of a row pass with a kernel.
pub const MIN_ROW_L: u32 = 3;
/// The `l` of the one-pass `u32` row kernels beyond [`MAX_ROW_L`]: 2^14
/// words in one 64 KiB tile, radix 16 only (1024 threads; radix 8 would
/// need 2048). One pass instead of two halves the memory traffic of a
/// memory-bound size.
pub const WIDE_ROW_L: u32 = 14;

/// The largest `log2 N` a lazy transform of `word_bytes`-byte words at
/// row radix `2^log_r` runs in one pass: the 32 KiB tile (2^12 `u64`, 2^13
/// `u32` words), or [`WIDE_ROW_L`] for `u32` at radix 16.
pub const fn one_pass_max(word_bytes: usize, log_r: u32) -> u32 {
    if word_bytes == 4 && log_r >= 4 { WIDE_ROW_L } else { tile_words(word_bytes).trailing_zeros() }
}
/// Largest `l` of a column pass (`S` columns of `2^l` words fill a 32 KiB
/// tile with at least 16 `u64` / 32 `u32` columns, 128 bytes per row).
pub const MAX_COL_L: u32 = 8;
/// Smallest `l` of a column pass with a kernel.
pub const MIN_COL_L: u32 = 5;

/// `log2` of the sub-transforms per block of the latency shapes
/// ([`Shape::latency`]): two rows or columns, so that one polynomial of
/// 2^16 words spreads over 128 blocks instead of the 8 (`u32`) or 16
/// (`u64`) of 32 KiB tiles, which left all but a few SMs idle (H100, Nsight
/// Compute without cache flush, one polynomial: the `u32` product pass of
/// 8 blocks took 11.6 µs, the `u64` one-pass 2^12 row of one block 10.7 µs).
pub const LATENCY_LOG_S: u32 = 1;

/// The `l` of the latency-shape kernels, rows and columns: the two passes
/// of N = 2^10 to 2^16.
pub const LATENCY_L: core::ops::RangeInclusive<u32> = MIN_COL_L..=MAX_COL_L;

/// The split of a latency-shape transform of `2^log_n` words: two passes
/// of `(l1, l2)` points, `l1 = ⌊log_n / 2⌋`, both in [`LATENCY_L`]; `None`
/// outside N = 2^10 to 2^16.
pub const fn latency_split(log_n: u32) -> Option<(u32, u32)> {
    let l1 = log_n / 2;
    let l2 = log_n - l1;
    if l1 >= MIN_COL_L && l2 <= MAX_COL_L { Some((l1, l2)) } else { None }
}

/// The compile-time shape of one pass kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// `log2` of the points of each sub-transform.
    pub l: u32,
    /// `log2` of the largest register radix (`k` of the widest step).
    pub log_r: u32,
    /// `log2` of the sub-transforms per block.
    pub log_s: u32,
    /// A column pass (`true`) or a row pass.
    pub strided: bool,
}

impl Shape {
    /// The shape of the kernel for `l`, radix `2^log_r` and `word_bytes`:
    /// as many sub-transforms as fill [`tile_words`] (at least one).
    pub const fn new(l: u32, log_r: u32, strided: bool, word_bytes: usize) -> Shape {
        let lt = tile_words(word_bytes).trailing_zeros();
        let log_s = lt.saturating_sub(l);
        let log_r = if log_r > l { l } else { log_r };
        Shape { l, log_r, log_s, strided }
    }

    /// The latency shape of the same pass: [`LATENCY_LOG_S`] sub-transforms
    /// (`log2`) per block instead of a full tile, for launches too small to
    /// give every SM a block ([`LATENCY_L`]).
    pub const fn latency(l: u32, log_r: u32, strided: bool) -> Shape {
        let log_r = if log_r > l { l } else { log_r };
        Shape { l, log_r, log_s: LATENCY_LOG_S, strided }
    }

    /// `log2` of the words of one block's tile.
    pub const fn log_tile(&self) -> u32 {
        self.l + self.log_s
    }

    /// Threads per block: one per radix-`2^log_r` unit of the tile.
    pub const fn threads(&self) -> u32 {
        1 << (self.log_tile() - self.log_r)
    }

    /// Register steps per pass: `⌈l / log_r⌉`.
    pub const fn steps(&self) -> u32 {
        self.l.div_ceil(self.log_r)
    }

    /// Forward step `j`: `(stages before it in this pass, stages in it)`;
    /// the `l` stages are split as evenly as possible, wider steps first.
    pub const fn step(&self, j: u32) -> (u32, u32) {
        let n = self.steps();
        let (small, extra) = (self.l / n, self.l % n);
        let k = small + if j < extra { 1 } else { 0 };
        let before = j * small + if j < extra { j } else { extra };
        (before, k)
    }

    /// `log2` of the words after which the row layout skips one padding word
    /// (128 bytes: a shared-memory bank row), `0` for a column pass (no
    /// padding: its warps already touch 128 consecutive bytes).
    pub const fn log_pad(&self, word_bytes: usize) -> u32 {
        if self.strided { 0 } else { (128 / word_bytes).trailing_zeros() }
    }

    /// Physical words of the tile in shared memory (padding included).
    pub const fn smem_words(&self, word_bytes: usize) -> u32 {
        let w = 1u32 << self.log_tile();
        match self.log_pad(word_bytes) {
            0 => w,
            p => w + (w >> p),
        }
    }
}

/// Pairs before the thread-ordered region of the row-pass step with `g`
/// stages before it, not counting the `N + 1` pairs of the plain table and
/// in units of `2^l1` (rows per polynomial): `Σ (2^k' − 1) · 2^g'` over the
/// earlier steps with `g' > 0`.
pub const fn row_region_before(shape: Shape, g: u32) -> u32 {
    let mut sum = 0;
    let mut j = 1;
    while j < shape.steps() {
        let (gj, kj) = shape.step(j);
        if gj >= g {
            break;
        }
        sum += ((1 << kj) - 1) << gj;
        j += 1;
    }
    sum
}

/// Pairs of one direction's table for a plan whose row pass has `shape`
/// (`l1 = log_n − shape.l` column stages before it): the plain `N + 1`
/// pairs, then the thread-ordered copy of every row-pass twiddle past the
/// pass's first step (see [`row_twiddle_index`]).
pub const fn table_pairs(shape: Shape, log_n: u32) -> usize {
    (1usize << log_n) + 1 + ((row_region_before(shape, shape.l) as usize) << (log_n - shape.l))
}

/// Where the row pass's twiddle for row `rr` of its polynomial (`rr <
/// 2^l1`), step `(g, k)` (`g > 0`), slot `2^d − 1 + b` of the unit's
/// `2^k − 1` twiddles (level `d`, sub-group `b`) and group `i < 2^g` lives:
/// `N + 1 + 2^l1 · before + (rr · (2^k − 1) + slot) · 2^g + i`. It holds the
/// plain table's pair `((2^l1 + rr) << (g + d)) + (i << d) + b`.
#[inline(always)]
pub const fn row_twiddle_index(
    shape: Shape,
    log_n: u32,
    g: u32,
    k: u32,
    rr: u32,
    slot: u32,
    i: u32,
) -> usize {
    let l1 = log_n - shape.l;
    let base = (1usize << log_n) + 1 + ((row_region_before(shape, g) as usize) << l1);
    base + ((((rr as usize) * ((1 << k) - 1) + slot as usize) << g) | i as usize)
}

/// `log2` of the low table's entries of the computed row twiddles for
/// `N = 2^log_n` ([`computed_row_pairs`]): `m = ⌈log_n / 2⌉`, so that the
/// low table (`2^m` pairs) and the high one (`2^(log_n − m)` factors of two
/// pairs) stay a few KiB.
pub const fn row_lo_log(log_n: u32) -> u32 {
    log_n.div_ceil(2)
}

/// Pairs after the plain `N + 1` of a table whose row pass computes its
/// twiddles past the first step instead of reading the thread-ordered
/// region: the low table, `2^m` pairs (`ψ^e` for `e < 2^m`, with its Shoup
/// companion; `m =` [`row_lo_log`]), then the high table, `2^(log_n − m)`
/// [`PairFactor`](crate::arith::harvey::PairFactor)s of two pairs each (`ψ^(2^m · e)`). The same for
/// every row shape: they depend on `log_n` only.
pub const fn computed_row_pairs(log_n: u32) -> usize {
    let m = row_lo_log(log_n);
    (1usize << m) + (2usize << (log_n - m))
}

/// Pairs of one direction's table with computed row twiddles: the plain
/// `N + 1` pairs and [`computed_row_pairs`].
pub const fn computed_table_pairs(log_n: u32) -> usize {
    (1usize << log_n) + 1 + computed_row_pairs(log_n)
}

/// The exponent `e < N` of the plain table's pair `i < N` (`Ψ_br[i] =
/// ψ^e`, `Ψ⁻¹_br[i] = ψ^(−e)`): `i` bit-reversed over `log_n` bits.
#[inline(always)]
pub const fn twiddle_exponent(i: u32, log_n: u32) -> u32 {
    if log_n == 0 { 0 } else { i.reverse_bits() >> (32 - log_n) }
}

/// Where the computed row twiddle of exponent `e` finds its factors
/// (`ψ^e = ψ^(e mod 2^m) · ψ^(2^m · ⌊e / 2^m⌋)`, `m =` [`row_lo_log`]):
/// `(low pair, first of the high factor's two pairs)`, indices into one
/// direction's table of [`computed_table_pairs`].
#[inline(always)]
pub const fn computed_row_index(log_n: u32, e: u32) -> (usize, usize) {
    let m = row_lo_log(log_n);
    let lo = (1usize << log_n) + 1;
    let hi = lo + (1usize << m);
    (lo + (e & ((1 << m) - 1)) as usize, hi + 2 * (e >> m) as usize)
}

/// The polynomials per row-pass block that `log_polys` asks for, as the
/// kernels use it: at most the block's `2^log_s` rows, and at least as many
/// as make the block's rows fit one polynomial's `2^l1` rows (`l1 = log_n −
/// shape.l`; a one-pass transform has one row per polynomial).
#[inline(always)]
pub const fn clamp_polys_log(shape: Shape, log_n: u32, log_polys: u32) -> u32 {
    let l1 = log_n - shape.l;
    let lo = shape.log_s.saturating_sub(l1);
    let lp = if log_polys > shape.log_s { shape.log_s } else { log_polys };
    if lp < lo { lo } else { lp }
}

/// The row (`poly · 2^l1 + rr`, `rr < 2^l1`) that sub-transform `sub` of
/// row-pass block `blk` works on, with `2^lp` polynomials per block
/// (`lp` from [`clamp_polys_log`]): the block holds rows `rr .. rr + 2^(log_s
/// − lp)` of `2^lp` consecutive polynomials, the polynomial varying fastest
/// with `sub`. Rows with the same `rr` need the same twiddles, so the
/// block's threads that work on the same place of different polynomials
/// load the same pairs (one L2 request, then L1 hits) instead of each row
/// bringing its own: the row pass of a 2^16-point `u32` transform read
/// twice as many twiddle bytes as data bytes with one polynomial per block.
/// With `lp = 0` this is `blk · 2^log_s + sub` (consecutive rows of one
/// polynomial), with `l1 = 0` one polynomial per row.
#[inline(always)]
pub const fn row_of(shape: Shape, log_n: u32, lp: u32, blk: u32, sub: u32) -> u32 {
    let l1 = log_n - shape.l;
    let lrows = shape.log_s - lp;
    let lgroups = l1 - lrows;
    let poly = ((blk >> lgroups) << lp) + (sub & ((1 << lp) - 1));
    let rr = ((blk & ((1 << lgroups) - 1)) << lrows) + (sub >> lp);
    (poly << l1) + rr
}

/// Blocks of a row pass over `batch` polynomials with `2^lp` polynomials
/// per block ([`row_of`]): `⌈batch / 2^lp⌉ · 2^(l1 − log_s + lp)`.
pub const fn row_blocks(shape: Shape, log_n: u32, lp: u32, batch: usize) -> u32 {
    let l1 = log_n - shape.l;
    (batch.div_ceil(1 << lp) << (l1 + lp - shape.log_s)) as u32
}

/// The split of a `2^log_n`-point transform into passes: `(l1, l2)` —
/// `l1` stages in a column pass (0: none) and `l2` in a row pass — or
/// `None` where no lazy kernel covers `log_n` (it needs
/// `MIN_ROW_L <= log_n <= MAX_COL_L + MAX_ROW_L`); `one_pass_max` is
/// [`one_pass_max`] (at most [`WIDE_ROW_L`], for the word that has it).
pub const fn split(log_n: u32, one_pass_max: u32) -> Option<(u32, u32)> {
    if log_n < MIN_ROW_L || log_n > MAX_COL_L + MAX_ROW_L {
        return None;
    }
    if log_n <= one_pass_max {
        return Some((0, log_n));
    }
    if log_n < 2 * MIN_COL_L {
        return if log_n <= MAX_ROW_L { Some((0, log_n)) } else { None };
    }
    let half = log_n / 2;
    let l1 = if half > MAX_COL_L { MAX_COL_L } else { half };
    let l2 = log_n - l1;
    if l2 > MAX_ROW_L { None } else { Some((l1, l2)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ntt::lazy::row_polys_log;

    #[test]
    fn steps_cover_the_stages_once_each() {
        for l in 1..=MAX_ROW_L {
            for lr in 1..=4 {
                let sh = Shape::new(l, lr, false, 8);
                let mut next = 0;
                for j in 0..sh.steps() {
                    let (g, k) = sh.step(j);
                    assert_eq!(g, next);
                    assert!(k >= 1 && k <= sh.log_r);
                    next = g + k;
                }
                assert_eq!(next, l);
            }
        }
    }

    #[test]
    fn row_blocks_cover_every_row_once() {
        // Every (block, sub) of a row pass names a distinct row, rows below
        // batch · 2^l1 are all named, and `row_blocks` launches exactly
        // the blocks needed, for every polynomials-per-block choice.
        for (log_n, l, wb) in
            [(16u32, 8u32, 4usize), (16, 8, 8), (14, 7, 4), (12, 12, 8), (13, 10, 4), (11, 11, 4)]
        {
            let shape = Shape::new(l, 4, false, wb);
            let l1 = log_n - l;
            for batch in [1usize, 2, 3, 4, 6, 8, 12, 32, 40] {
                for want in 0..=shape.log_s + 1 {
                    let lp = clamp_polys_log(shape, log_n, want);
                    assert!(lp <= shape.log_s && shape.log_s - lp <= l1);
                    let blocks = row_blocks(shape, log_n, lp, batch);
                    let mut seen = [0u8; 1 << 15];
                    assert!(((blocks as usize) << shape.log_s) <= seen.len());
                    let rows = batch << l1;
                    for blk in 0..blocks {
                        for sub in 0..1 << shape.log_s {
                            let r = row_of(shape, log_n, lp, blk, sub) as usize;
                            if r < rows {
                                seen[r] += 1;
                            }
                        }
                    }
                    assert!(seen[..rows].iter().all(|&c| c == 1), "{log_n} {l} {batch} {lp}");
                }
                let lp = row_polys_log(shape, log_n, batch);
                if (1usize << lp) <= batch && batch % (1 << lp) == 0 {
                    assert_eq!(
                        row_blocks(shape, log_n, lp, batch) as usize,
                        (batch << l1).div_ceil(1 << shape.log_s)
                    );
                }
            }
        }
    }

    #[test]
    fn splits_cover_every_size_they_claim() {
        for log_n in 0..30 {
            match split(log_n, 12) {
                Some((l1, l2)) => {
                    assert_eq!(l1 + l2, log_n);
                    assert!((MIN_ROW_L..=MAX_ROW_L).contains(&l2));
                    assert!(l1 == 0 || (MIN_COL_L..=MAX_COL_L).contains(&l1));
                }
                None => assert!(!(MIN_ROW_L..=21).contains(&log_n), "{log_n}"),
            }
        }
    }
}
