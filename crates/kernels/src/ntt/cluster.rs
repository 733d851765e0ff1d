//! The lazy NTT in one pass over global memory: a Hopper thread-block
//! cluster of `2^log_cs` blocks holds a whole polynomial in its blocks'
//! shared memory (distributed shared memory).
//!
//! The transform is the two passes of [`super::lazy`] in one kernel. Block
//! `b` of a cluster runs the column pass on its `2^(l2 − log_cs)` columns
//! (read from global memory) and, instead of writing them back, its last
//! step stores every word straight into the *row tile* of the block that
//! owns the word's row in the row pass ([`ToRows`], `st.shared::cluster`
//! through `mapa`). After a cluster barrier every block runs the row pass
//! on its `2^(l1 − log_cs)` rows from its own row tile and writes the
//! result to global memory. The inverse is the mirror: inverse row pass
//! from global memory into the column tiles ([`ToCols`]), cluster barrier,
//! inverse column pass to global memory. Each word crosses global memory
//! once each way: half the traffic of the two-pass kernels.
//!
//! The column and row tiles are separate regions of a block's dynamic
//! shared memory (column tile first, unpadded; then the padded row tile),
//! so a block may receive words while another block still exchanges its
//! column pass's words: one cluster barrier between the passes suffices.
//! A block may write another's shared memory only once that block runs, so
//! every block arrives at a cluster barrier when it starts and waits on it
//! just before its remote stores (compute-sanitizer's racecheck reported
//! the writes as hazards without it).

use super::lazy::{Shape, Sink};
use crate::Word;

/// The compile-time shape of a cluster kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterShape {
    /// `log2 N`.
    pub log_n: u32,
    /// `log2` of the blocks per cluster.
    pub log_cs: u32,
    /// The column pass: `l1` stages on `2^(l2 − log_cs)` columns per block.
    pub col: Shape,
    /// The row pass: `l2` stages on `2^(l1 − log_cs)` rows per block.
    pub row: Shape,
}

impl ClusterShape {
    /// The shape for `N = 2^log_n` split `l1 + (log_n − l1)`, clusters of
    /// `2^log_cs` blocks, radix `2^log_r` in both passes.
    pub const fn new(log_n: u32, l1: u32, log_cs: u32, log_r: u32) -> ClusterShape {
        let l2 = log_n - l1;
        let r1 = if log_r > l1 { l1 } else { log_r };
        let r2 = if log_r > l2 { l2 } else { log_r };
        ClusterShape {
            log_n,
            log_cs,
            col: Shape { l: l1, log_r: r1, log_s: l2 - log_cs, strided: true },
            row: Shape { l: l2, log_r: r2, log_s: l1 - log_cs, strided: false },
        }
    }

    /// Threads per block: the larger pass's (a thread of the other pass
    /// with no unit skips it).
    pub const fn threads(&self) -> u32 {
        let (a, b) = (self.col.threads(), self.row.threads());
        if a > b { a } else { b }
    }

    /// Blocks per cluster.
    pub const fn cluster_blocks(&self) -> u32 {
        1 << self.log_cs
    }

    /// Physical words of the column tile (first in shared memory).
    pub const fn col_words(&self, word_bytes: usize) -> u32 {
        self.col.smem_words(word_bytes)
    }

    /// Physical words of a block's dynamic shared memory: both tiles.
    pub const fn smem_words(&self, word_bytes: usize) -> u32 {
        self.col.smem_words(word_bytes) + self.row.smem_words(word_bytes)
    }
}

/// Shared memory of another block of the cluster (or of this one): a store
/// to physical word `i` of the region at the same place in block `rank`.
pub trait RemoteTile<W> {
    /// `tile(rank)[i] = v`.
    ///
    /// # Safety
    /// `rank` is a block of the cluster and `i` inside the region.
    unsafe fn st(&self, rank: u32, i: u32, v: W);
}

/// The forward kernel's sink: a column-pass word (column `gsub`, row `y`)
/// goes to the row tile of the block that owns row `y`, at its place in the
/// row pass's padded layout.
#[derive(Debug, Clone, Copy)]
pub struct ToRows<T> {
    /// The blocks' row tiles.
    pub tiles: T,
    /// The kernel's shape.
    pub shape: ClusterShape,
    /// `log2` of the words per padding word of the row layout.
    pub log_pad: u32,
}

impl<W: Word, T: RemoteTile<W>> Sink<W> for ToRows<T> {
    const ACTIVE: bool = true;
    #[inline(always)]
    unsafe fn put(&self, gsub: u32, y: u32, v: W) {
        let (row, l2) = (self.shape.row, self.shape.row.l);
        let col = gsub & ((1 << l2) - 1);
        let (rank, local) = (y >> row.log_s, y & ((1 << row.log_s) - 1));
        let o = (local << l2) + col;
        // SAFETY: rank < cluster blocks, o inside the row tile.
        unsafe { self.tiles.st(rank, o + (o >> self.log_pad), v) }
    }
}

/// The inverse kernel's sink: a row-pass word (row `gsub`, column `y`) goes
/// to the column tile of the block that owns column `y`.
#[derive(Debug, Clone, Copy)]
pub struct ToCols<T> {
    /// The blocks' column tiles.
    pub tiles: T,
    /// The kernel's shape.
    pub shape: ClusterShape,
}

impl<W: Word, T: RemoteTile<W>> Sink<W> for ToCols<T> {
    const ACTIVE: bool = true;
    #[inline(always)]
    unsafe fn put(&self, gsub: u32, y: u32, v: W) {
        let col = self.shape.col;
        let row = gsub & ((1 << col.l) - 1);
        let (rank, local) = (y >> col.log_s, y & ((1 << col.log_s) - 1));
        // SAFETY: rank < cluster blocks, inside the column tile.
        unsafe { self.tiles.st(rank, (row << col.log_s) + local, v) }
    }
}

/// The sizes with cluster kernels: `(log_n, l1, log_cs)` — N = 2^16 split
/// 8 + 8 in clusters of 8 blocks (32 columns and 32 rows per block).
pub const SHAPES: [(u32, u32, u32); 1] = [(16, 8, 3)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_cover_the_polynomial_with_equal_blocks() {
        for &(log_n, l1, log_cs) in &SHAPES {
            for lr in [3, 4] {
                let c = ClusterShape::new(log_n, l1, log_cs, lr);
                assert_eq!(c.col.log_tile(), log_n - log_cs);
                assert_eq!(c.row.log_tile(), log_n - log_cs);
                assert_eq!(c.col.threads(), c.row.threads());
                assert!(c.threads() <= 1024);
            }
        }
    }
}
