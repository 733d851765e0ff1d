//! The reduction check of device operands: whether every word of a tower
//! lies below that tower's modulus. The plans assume reduced device words
//! and do not check them; the Python layer's device calls queue this check
//! before the call instead of comparing on the host (issue 54), and learn
//! of a failure from a word in host-mapped memory, without waiting: a
//! failing check stores its launch's tag there (tags grow launch by
//! launch), so the host sees a new tag where a check failed since it last
//! looked. A plain store: host-mapped memory over PCIe takes no device
//! atomics (compute-sanitizer refuses a system-scope atomic there).
//!
//! Thread `t` of block row `y` reads words `base + k · 256` (`k <
//! UNROLL`, `base = ⌊t / 256⌋ · 256 · UNROLL + t mod 256`) of tower `y`:
//! every load of a warp is one contiguous run, and a thread keeps `UNROLL`
//! loads in flight. Where one of them is not below `q`, the entry point
//! stores the tag (`polymul_kernels::entry`).

#[cfg(not(target_arch = "nvptx64"))]
use crate::Word;
#[cfg(not(target_arch = "nvptx64"))]
use crate::args::{ArgsError, Buf, TowerGrid, one_tower_modulus};
use crate::gmem::Gmem;
use crate::towers::Towers;

/// Words each thread reads.
pub const UNROLL: u32 = 8;

/// Threads per block of the check.
pub const THREADS: u32 = 256;

/// The argument block of the reduction check (`check_reduced_<word>`,
/// [`crate::names::ReducedKernel`]): one `#[repr(C)]` value, the kernel's
/// only parameter, which the host fills field by field.
///
/// # Invariants
///
/// What the `unsafe` blocks of `check_reduced_*` rely on:
///
/// * `towers` satisfies the invariants of [`Towers`] (`tw_words` unused),
///   `len = towers.data_words < 2^32`;
/// * `data` points to `rows · len` words of global memory;
/// * `flag` points to a `u32` that the device may write (host-mapped or
///   device memory), alive until the launch ends;
/// * the grid is `⌈len / (THREADS · UNROLL)⌉ × rows` blocks of
///   [`THREADS`] threads.
///
/// [`ReducedArgs::new`] (host only) checks what it can see: the tower
/// table; `data` non-null and holding `rows · len` words, `0 < len <
/// 2^32`; `flag` non-null; a one-tower modulus of at most `β − 1` bits.
/// That `flag` stays alive, the table's contents and the grid stay the
/// caller's.
///
/// Established by `polymul::gpu::reduced::RangeCheck::queue` (host,
/// through [`ReducedArgs::new`]), whose flag lives as long as the check.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct ReducedArgs<W> {
    /// The words, tower 0's.
    pub(crate) data: *const W,
    /// The RNS tower arguments ([`crate::towers`]; `tw_words` unused).
    pub(crate) towers: Towers<W>,
    /// The failure word: set to `tag` where a word is not reduced; the
    /// host only reads it.
    pub(crate) flag: *mut u32,
    /// This launch's tag (non-zero, different from the previous launch's).
    pub(crate) tag: u32,
    /// Words per tower.
    pub(crate) len: u32,
    /// A one-tower launch's modulus.
    pub(crate) q: W,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<W: Word> ReducedArgs<W> {
    /// The block of the check of `data` (`grid.data_words()` words per
    /// tower) with the failure word at `flag` and the launch's `tag`, a
    /// one-tower launch's modulus `q`. Checks what the [`ReducedArgs`]
    /// docs say.
    pub fn new(data: Buf<W>, grid: &TowerGrid<W>, flag: Buf<u32>, tag: u32, q: W) -> Result<Self, ArgsError> {
        let dw = grid.data_words();
        if dw == 0 || dw > u32::MAX as u64 {
            return Err(ArgsError::Count);
        }
        grid.data(&data, dw)?;
        flag.holds(1)?;
        if tag == 0 {
            return Err(ArgsError::Count);
        }
        one_tower_modulus(grid, q, W::BITS - 1)?;
        Ok(ReducedArgs {
            data: data.ptr,
            towers: grid.with_tw_words(0).towers(),
            flag: flag.mut_ptr(),
            tag,
            len: dw as u32,
            q,
        })
    }
}

/// Blocks per tower of a check of `len` words.
pub const fn blocks(len: u32) -> u32 {
    len.div_ceil(THREADS * UNROLL)
}

/// Whether one of thread `(block, thread)`'s words of a tower (`len`
/// words at `data`) is not below `q`.
///
/// # Safety
/// `data` holds `len` words.
#[inline(always)]
pub unsafe fn any_unreduced<W: Gmem>(data: *const W, len: u32, block: u32, thread: u32, q: W) -> bool {
    let base = block * THREADS * UNROLL + thread;
    let mut bad = false;
    for k in 0..UNROLL {
        let i = base + k * THREADS;
        if i < len {
            // SAFETY: `i < len` (caller: `data` holds `len` words).
            bad |= unsafe { W::ld_nc(data.add(i as usize)) } >= q;
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// Every word of a tower is read by exactly one thread, and a single
    /// unreduced word anywhere (first, last, between) is found.
    #[test]
    fn the_threads_cover_every_word_once_and_find_one_bad_word() {
        let q = 97u32;
        for len in [1u32, 255, 2048, 2049, 5000] {
            for bad in [0, len / 2, len - 1] {
                let mut v = std::vec![96u32; len as usize];
                v[bad as usize] = q;
                let mut hits = 0;
                for block in 0..blocks(len) {
                    for thread in 0..THREADS {
                        // SAFETY: `v` holds `len` words.
                        hits += u32::from(unsafe { any_unreduced(v.as_ptr(), len, block, thread, q) });
                    }
                }
                assert_eq!(hits, 1, "len {len}, bad word {bad}");
            }
            let v = std::vec![96u32; len as usize];
            let none = (0..blocks(len))
                .flat_map(|b| (0..THREADS).map(move |t| (b, t)))
                // SAFETY: `v` holds `len` words.
                .any(|(b, t)| unsafe { any_unreduced(v.as_ptr(), len, b, t, q) });
            assert!(!none, "len {len}: all reduced");
        }
    }
}
