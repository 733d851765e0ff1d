//! The shared-memory kernels' tile geometry rules as plan parameters: which
//! tiles cover N, or a typed error (the rules themselves live beside the
//! geometry, in `polymul_kernels::ntt::tiled::TileGeometry`).

use crate::{Error, Result};
use polymul_kernels::ntt::tiled::TileGeometry;

/// `2^k`, saturated at `usize::MAX` (the N of an error about a `log_n` too large).
fn pow2(k: u32) -> usize {
    1usize.checked_shl(k).unwrap_or(usize::MAX)
}

/// The tile geometry for `N = 2^log_n` with tiles of at most `2^log_max_tile`
/// words: one tile if the polynomial fits, else a strided pass over the first
/// `log_n − log_max_tile` stages and a contiguous pass over the rest.
///
/// # Errors
/// [`Error::InvalidN`] when tiles of `2^log_max_tile` words cannot cover
/// `N` in two passes (or `log_max_tile = 0`); `n` and `max` saturate at
/// `usize::MAX` for shifts beyond the word.
pub fn tile_geometry(log_n: u32, log_max_tile: u32) -> Result<TileGeometry> {
    TileGeometry::tiled(log_n, log_max_tile).ok_or(Error::InvalidN {
        n: pow2(log_n),
        min: 2,
        max: pow2(log_max_tile.saturating_mul(2)),
    })
}

/// The 2D geometry: `N = n1 × n2` with `n1 = 2^⌊log_n/2⌋` rows of
/// `n2 = N/n1` words: a column pass (the `n1`-point transforms of the
/// strided view) and a row pass (the `n2`-point transforms, the twist merged
/// into their twiddles), each block holding as many columns or rows as a
/// tile of at most `2^log_max_tile` words takes. Always two passes (for
/// `N ≥ 4`).
///
/// # Errors
/// [`Error::InvalidN`] for `N < 4`, or when such tiles cannot hold a row or
/// a column (`n` and `max` saturate at `usize::MAX`).
pub fn geometry_2d(log_n: u32, log_max_tile: u32) -> Result<TileGeometry> {
    TileGeometry::two_d(log_n, log_max_tile).ok_or(Error::InvalidN {
        n: pow2(log_n),
        min: 4,
        max: pow2(log_max_tile.saturating_mul(2)),
    })
}
