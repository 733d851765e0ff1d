//! Shared memory behind one interface, so the tiled NTT's per-thread code
//! runs on the GPU (real `.shared` accesses) and on the host (a buffer).

use crate::Word;

/// A block's shared tile of words.
pub trait Shared<W: Word> {
    /// Reads word `i`.
    ///
    /// # Safety
    /// `i` must be inside the tile.
    unsafe fn ld(&self, i: usize) -> W;
    /// Writes word `i`.
    ///
    /// # Safety
    /// `i` must be inside the tile.
    unsafe fn st(&self, i: usize, v: W);
    /// Reads physical word `i` (no padding applied: the caller lays the
    /// tile out itself, see `ntt::lazy`).
    ///
    /// # Safety
    /// `i` must be inside the tile's physical words.
    unsafe fn ld_at(&self, i: u32) -> W;
    /// Writes physical word `i`.
    ///
    /// # Safety
    /// `i` must be inside the tile's physical words.
    unsafe fn st_at(&self, i: u32, v: W);
}

/// Words of one shared-memory bank row (32 banks × 4 bytes) for a word of
/// `word_bytes` bytes: the tile skips one word after every this many, so
/// that strided accesses (a radix-`r` unit's `r` consecutive words, one unit
/// per thread) spread over all banks instead of piling onto a few.
#[inline(always)]
pub const fn pad_every(word_bytes: usize) -> usize {
    128 / word_bytes
}

/// Physical words a tile of `words` logical words occupies in shared memory
/// (with the padding of [`pad_every`]).
#[inline(always)]
pub const fn padded_words(words: usize, word_bytes: usize) -> usize {
    words + words / pad_every(word_bytes)
}

/// A tile in ordinary memory: what the host emulation of a block uses.
#[derive(Debug, Clone, Copy)]
pub struct HostShared<W>(pub *mut W);

impl<W: Word> Shared<W> for HostShared<W> {
    #[inline(always)]
    unsafe fn ld(&self, i: usize) -> W {
        // SAFETY: `i` is inside the tile `self.0` points at: the contract of `Shared::ld`,
        // established by its caller (the host emulation allocates the tile).
        unsafe { *self.0.add(i) }
    }
    #[inline(always)]
    unsafe fn st(&self, i: usize, v: W) {
        // SAFETY: `i` is inside the tile `self.0` points at: the contract of `Shared::st`,
        // established by its caller (the host emulation allocates the tile).
        unsafe { *self.0.add(i) = v }
    }
    #[inline(always)]
    unsafe fn ld_at(&self, i: u32) -> W {
        // SAFETY: `i` is inside the tile's physical words at `self.0`: the contract of
        // `Shared::ld_at`, established by its caller (the host emulation allocates the tile).
        unsafe { *self.0.add(i as usize) }
    }
    #[inline(always)]
    unsafe fn st_at(&self, i: u32, v: W) {
        // SAFETY: `i` is inside the tile's physical words at `self.0`: the contract of
        // `Shared::st_at`, established by its caller (the host emulation allocates the tile).
        unsafe { *self.0.add(i as usize) = v }
    }
}

/// The static shared tile of a kernel, addressed through the 32-bit shared
/// window so that accesses compile to `ld.shared` / `st.shared` (a generic
/// pointer would make every access a generic `ld`/`st`).
#[cfg(target_arch = "nvptx64")]
#[derive(Debug, Clone, Copy)]
pub struct DeviceShared {
    /// Shared-window address of word 0.
    pub base: u32,
}

/// The same region of shared memory in every block of a thread-block
/// cluster: stores go to block `rank`'s copy through `mapa` and
/// `st.shared::cluster` (distributed shared memory).
#[cfg(target_arch = "nvptx64")]
#[derive(Debug, Clone, Copy)]
pub struct DeviceCluster {
    /// Shared-window address of word 0 of the region in this block.
    pub base: u32,
}

/// The same region in every block of an emulated cluster: one tile per block.
#[derive(Debug, Clone, Copy)]
pub struct HostCluster<'a, W> {
    /// Word 0 of each block's region, by rank.
    pub tiles: &'a [*mut W],
}

impl<W: Word> crate::ntt::cluster::RemoteTile<W> for HostCluster<'_, W> {
    #[inline(always)]
    unsafe fn st(&self, rank: u32, i: u32, v: W) {
        // SAFETY: `rank` is below the emulated cluster's blocks (`tiles.len()`) and `i` inside that
        // block's tile: the contract of `RemoteTile::st`, established by its caller.
        unsafe { *self.tiles[rank as usize].add(i as usize) = v }
    }
}

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::{DeviceCluster, DeviceShared, Shared};
    use core::arch::asm;

    /// Physical word of logical word `i`: one padding word after every
    /// `2^log_every` (see [`super::pad_every`]).
    #[inline(always)]
    fn padded(i: u32, log_every: u32) -> u32 {
        i + (i >> log_every)
    }

    impl Shared<u64> for DeviceShared {
        #[inline(always)]
        unsafe fn ld(&self, i: usize) -> u64 {
            let v: u64;
            // SAFETY: the caller keeps `i` inside the tile.
            unsafe {
                asm!("ld.shared.u64 {v}, [{a}];", v = out(reg64) v, a = in(reg32) self.base + 8 * padded(i as u32, 4),
                     options(nostack, readonly, preserves_flags));
            }
            v
        }
        #[inline(always)]
        unsafe fn st(&self, i: usize, v: u64) {
            // SAFETY: the caller keeps `i` inside the tile.
            unsafe {
                asm!("st.shared.u64 [{a}], {v};", v = in(reg64) v, a = in(reg32) self.base + 8 * padded(i as u32, 4),
                     options(nostack, preserves_flags));
            }
        }
        #[inline(always)]
        unsafe fn ld_at(&self, i: u32) -> u64 {
            let v: u64;
            // SAFETY: the caller keeps `i` inside the tile.
            unsafe {
                asm!("ld.shared.u64 {v}, [{a}];", v = out(reg64) v, a = in(reg32) self.base + 8 * i,
                     options(nostack, readonly, preserves_flags));
            }
            v
        }
        #[inline(always)]
        unsafe fn st_at(&self, i: u32, v: u64) {
            // SAFETY: the caller keeps `i` inside the tile.
            unsafe {
                asm!("st.shared.u64 [{a}], {v};", v = in(reg64) v, a = in(reg32) self.base + 8 * i,
                     options(nostack, preserves_flags));
            }
        }
    }

    impl crate::ntt::cluster::RemoteTile<u32> for DeviceCluster {
        #[inline(always)]
        unsafe fn st(&self, rank: u32, i: u32, v: u32) {
            // SAFETY: the caller keeps `rank` inside the cluster and `i`
            // inside the region.
            unsafe {
                asm!("{{ .reg .u32 r; mapa.shared::cluster.u32 r, {a}, {k}; st.shared::cluster.u32 [r], {v}; }}",
                     a = in(reg32) self.base + 4 * i, k = in(reg32) rank, v = in(reg32) v,
                     options(nostack, preserves_flags));
            }
        }
    }

    impl crate::ntt::cluster::RemoteTile<u64> for DeviceCluster {
        #[inline(always)]
        unsafe fn st(&self, rank: u32, i: u32, v: u64) {
            // SAFETY: as for the `u32` store above: `rank` inside the cluster and `i` inside
            // the region (`RemoteTile::st`'s contract, established by its caller).
            unsafe {
                asm!("{{ .reg .u32 r; mapa.shared::cluster.u32 r, {a}, {k}; st.shared::cluster.u64 [r], {v}; }}",
                     a = in(reg32) self.base + 8 * i, k = in(reg32) rank, v = in(reg64) v,
                     options(nostack, preserves_flags));
            }
        }
    }

    impl Shared<u32> for DeviceShared {
        #[inline(always)]
        unsafe fn ld(&self, i: usize) -> u32 {
            let v: u32;
            // SAFETY: the caller keeps `i` inside the tile.
            unsafe {
                asm!("ld.shared.u32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) self.base + 4 * padded(i as u32, 5),
                     options(nostack, readonly, preserves_flags));
            }
            v
        }
        #[inline(always)]
        unsafe fn st(&self, i: usize, v: u32) {
            // SAFETY: the caller keeps `i` inside the tile.
            unsafe {
                asm!("st.shared.u32 [{a}], {v};", v = in(reg32) v, a = in(reg32) self.base + 4 * padded(i as u32, 5),
                     options(nostack, preserves_flags));
            }
        }
        #[inline(always)]
        unsafe fn ld_at(&self, i: u32) -> u32 {
            let v: u32;
            // SAFETY: the caller keeps `i` inside the tile.
            unsafe {
                asm!("ld.shared.u32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) self.base + 4 * i,
                     options(nostack, readonly, preserves_flags));
            }
            v
        }
        #[inline(always)]
        unsafe fn st_at(&self, i: u32, v: u32) {
            // SAFETY: the caller keeps `i` inside the tile.
            unsafe {
                asm!("st.shared.u32 [{a}], {v};", v = in(reg32) v, a = in(reg32) self.base + 4 * i,
                     options(nostack, preserves_flags));
            }
        }
    }
}
