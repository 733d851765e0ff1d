//! The schedule of the fused two-pass kernels: both passes of a
//! transform in one launch, blocks ordered by tickets, a polynomial's
//! second pass waiting on counters for its first.

use super::geometry::{Shape, tile_words};

/// What ticket `t` of a fused two-pass launch ([`fused_item`]) works on:
/// `(second, blk)` — block `blk` of the first pass (`second = false`) or
/// of the second. `polys` polynomials of `per_poly` blocks in each pass
/// (both passes' tiles hold the same number of words, so the counts are
/// equal, and block `blk` belongs to polynomial `blk / per_poly` in both);
/// the second pass of a polynomial trails its first by `lag` polynomials:
/// the first `lag · per_poly` tickets are first-pass blocks, then first-
/// and second-pass blocks alternate, then the remaining second-pass blocks.
/// Every second-pass block comes after all the first-pass blocks of its
/// polynomial (for `lag ≥ 1`; of its group of `2^lp` polynomials where a
/// pass holds rows of several, for `lag ≥ 2^lp`), so a block that waits for them waits only
/// for blocks that took earlier tickets, and those are running or done:
/// tickets, not `blockIdx`, order the work, so no launch order can
/// deadlock it.
#[inline(always)]
pub const fn fused_item(t: u32, polys: u32, per_poly: u32, lag: u32) -> (bool, u32) {
    let lag = if lag > polys {
        polys
    } else if lag == 0 {
        1
    } else {
        lag
    };
    let head = lag * per_poly;
    if t < head {
        return (false, t);
    }
    let u = t - head;
    let both = (polys - lag) * per_poly;
    if u < 2 * both {
        if u & 1 == 0 { (false, head + u / 2) } else { (true, u / 2) }
    } else {
        (true, u - both)
    }
}

/// The polynomials block `blk` of one pass of a fused launch works on:
/// `(first, count)`. A column pass block holds columns of one polynomial;
/// a row pass block rows of `2^lp` consecutive polynomials ([`row_of`](super::row_of);
/// `lp` from [`clamp_polys_log`](super::clamp_polys_log)), `2^lp · per_poly` blocks per group.
#[inline(always)]
pub const fn fused_polys(row: bool, lp: u32, blk: u32, per_poly: u32) -> (u32, u32) {
    if row { ((blk / (per_poly << lp)) << lp, 1 << lp) } else { (blk / per_poly, 1) }
}

/// The count a polynomial's counter reaches once every first-pass block
/// that touches it is done: `per_poly`, or `2^lp · per_poly` where the first
/// pass is a row pass of `2^lp` polynomials per block (each of a group's
/// blocks touches all its polynomials).
#[inline(always)]
pub const fn fused_target(first_is_row: bool, lp: u32, per_poly: u32) -> u32 {
    if first_is_row { per_poly << lp } else { per_poly }
}

/// Blocks per polynomial of each pass of a fused launch: a polynomial's
/// words over one tile's.
pub const fn fused_per_poly(log_n: u32, word_bytes: usize) -> u32 {
    let lt = tile_words(word_bytes).trailing_zeros();
    if log_n > lt { 1 << (log_n - lt) } else { 1 }
}

/// Physical words of a fused kernel's tile: the larger of its two passes'
/// (the ticket's shared slot follows it).
pub const fn fused_smem_words(col: Shape, row: Shape, word_bytes: usize) -> u32 {
    let (a, b) = (col.smem_words(word_bytes), row.smem_words(word_bytes));
    if a > b { a } else { b }
}

/// Words of a fused launch's control block per tower: the ticket counter,
/// the finished-block counter, then one counter per polynomial (its
/// first-pass blocks that have finished). Every launch leaves them zero.
pub const fn fused_ctrl_words(batch: usize) -> usize {
    batch + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fused_tickets_are_every_block_once_and_never_wait_on_later_ones() {
        for (polys, per_poly) in [(1u32, 8u32), (3, 8), (32, 8), (20, 16), (7, 4), (512, 8)] {
            for lag in [0u32, 1, 2, 5, 25, 1000] {
                let total = 2 * polys * per_poly;
                let mut first_done = [0u32; 512];
                let mut seen = [0u8; 2 * 4096];
                for t in 0..total {
                    let (second, blk) = fused_item(t, polys, per_poly, lag);
                    assert!(blk < polys * per_poly, "{polys} {per_poly} {lag} {t}");
                    let k = (blk + if second { polys * per_poly } else { 0 }) as usize;
                    seen[k] += 1;
                    let p = (blk / per_poly) as usize;
                    if second {
                        // Every first-pass block of its polynomial has an earlier ticket.
                        assert_eq!(first_done[p], per_poly, "{polys} {per_poly} {lag} {t}");
                    } else {
                        first_done[p] += 1;
                    }
                }
                assert!(seen[..total as usize].iter().all(|&c| c == 1));
            }
        }
    }
}
