//! Global-memory accesses the kernels spell out: plain loads and stores in
//! the global state space (every kernel takes its pointers inside a
//! by-value `#[repr(C)]` argument block, which rustc passes as bytes, so to
//! LLVM they are generic and would otherwise give generic `ld`/`st`),
//! 16-byte vector accesses for runs of consecutive words, and words of
//! tables no kernel writes (twiddles, weights, tower constants) through the
//! read-only (non-coherent) path, twiddle pairs as one vector load.
//!
//! On the host every function is a plain pointer access, so the kernels'
//! per-thread code runs unchanged in the CPU emulation.

use crate::Word;
use crate::arith::harvey::ShoupPair;

/// Words the kernels load and store with explicit global accesses.
pub trait Gmem: Word {
    /// `*p`.
    ///
    /// # Safety
    /// `p` points at a readable word of global memory.
    unsafe fn ld(p: *const Self) -> Self;
    /// `*p = v`.
    ///
    /// # Safety
    /// `p` points at a writable word of global memory.
    unsafe fn st(p: *mut Self, v: Self);
    /// `*p`, a word of a table that no kernel writes during the launch
    /// (twiddles, weights, tower constants), through the read-only
    /// (non-coherent) path (`ld.global.nc`).
    ///
    /// # Safety
    /// `p` points at a readable word of global memory that nothing writes
    /// while the kernel runs.
    unsafe fn ld_nc(p: *const Self) -> Self;
    /// `*p`, a twiddle pair that no kernel writes (read-only path).
    ///
    /// # Safety
    /// `p` points at a pair of a table, aligned to the pair's size.
    unsafe fn ld_pair(p: *const ShoupPair<Self>) -> ShoupPair<Self>;
    /// The `R` consecutive words at `p` in 16-byte vector loads.
    ///
    /// # Safety
    /// `p` is 16-byte aligned and `R` words long, a multiple of 16 bytes.
    unsafe fn ld_run<const R: usize>(p: *const Self, out: &mut [Self; R]);
    /// `*p` from L2, bypassing the SM's L1 (`ld.global.cg`): a word another
    /// block of the same launch wrote (the fused kernels' second pass).
    ///
    /// # Safety
    /// As for [`Gmem::ld`].
    unsafe fn ld_cg(p: *const Self) -> Self;
    /// [`Gmem::ld_run`] from L2, bypassing the SM's L1.
    ///
    /// # Safety
    /// As for [`Gmem::ld_run`].
    unsafe fn ld_run_cg<const R: usize>(p: *const Self, out: &mut [Self; R]);
    /// Stores `R` consecutive words at `p` in 16-byte vector stores.
    ///
    /// # Safety
    /// As for [`Gmem::ld_run`], writable.
    unsafe fn st_run<const R: usize>(p: *mut Self, v: &[Self; R]);
}

#[cfg(not(target_arch = "nvptx64"))]
macro_rules! host_gmem {
    ($t:ty) => {
        impl Gmem for $t {
            #[inline(always)]
            unsafe fn ld(p: *const Self) -> Self {
                // SAFETY: `p` points at a readable word of global memory: the contract of
                // `Gmem::ld` (its `# Safety`), established by its caller.
                unsafe { *p }
            }
            #[inline(always)]
            unsafe fn st(p: *mut Self, v: Self) {
                // SAFETY: `p` points at a writable word of global memory: the contract of
                // `Gmem::st` (its `# Safety`), established by its caller.
                unsafe { *p = v }
            }
            #[inline(always)]
            unsafe fn ld_nc(p: *const Self) -> Self {
                // SAFETY: `p` points at a readable word of global memory that nothing writes during
                // the launch: the contract of `Gmem::ld_nc` (its `# Safety`), established by its
                // caller.
                unsafe { *p }
            }
            #[inline(always)]
            unsafe fn ld_pair(p: *const ShoupPair<Self>) -> ShoupPair<Self> {
                // SAFETY: `p` points at a pair of a table that nothing writes during the launch,
                // aligned to the pair's size: the contract of `Gmem::ld_pair` (its `# Safety`),
                // established by its caller.
                unsafe { *p }
            }
            #[inline(always)]
            unsafe fn ld_run<const R: usize>(p: *const Self, out: &mut [Self; R]) {
                for (x, o) in out.iter_mut().enumerate() {
                    // SAFETY: `p` is 16-byte aligned and its `R` words (a multiple of 16 bytes) are
                    // readable: the contract of `Gmem::ld_run` (its `# Safety`), established by its
                    // caller.
                    *o = unsafe { *p.add(x) };
                }
            }
            #[inline(always)]
            unsafe fn ld_cg(p: *const Self) -> Self {
                // SAFETY: `p` points at a readable word of global memory: the contract of
                // `Gmem::ld_cg` (its `# Safety`), established by its caller.
                unsafe { *p }
            }
            #[inline(always)]
            unsafe fn ld_run_cg<const R: usize>(p: *const Self, out: &mut [Self; R]) {
                // SAFETY: `p` is 16-byte aligned and its `R` words (a multiple of 16 bytes) are
                // readable: the contract of `Gmem::ld_run_cg` (its `# Safety`), established by its
                // caller.
                unsafe { Self::ld_run(p, out) }
            }
            #[inline(always)]
            unsafe fn st_run<const R: usize>(p: *mut Self, v: &[Self; R]) {
                for (x, o) in v.iter().enumerate() {
                    // SAFETY: `p` is 16-byte aligned and its `R` words (a multiple of 16 bytes) are
                    // writable: the contract of `Gmem::st_run` (its `# Safety`), established by its
                    // caller.
                    unsafe { *p.add(x) = *o };
                }
            }
        }
    };
}

#[cfg(not(target_arch = "nvptx64"))]
host_gmem!(u32);
#[cfg(not(target_arch = "nvptx64"))]
host_gmem!(u64);

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::{Gmem, ShoupPair};
    use core::arch::asm;

    impl Gmem for u32 {
        #[inline(always)]
        unsafe fn ld(p: *const u32) -> u32 {
            let v: u32;
            // SAFETY: `p` points at a readable word of global memory: the contract of `Gmem::ld`
            // (its `# Safety`), established by its caller.
            unsafe {
                asm!("ld.global.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p,
                     options(nostack, readonly, preserves_flags))
            };
            v
        }
        #[inline(always)]
        unsafe fn st(p: *mut u32, v: u32) {
            // SAFETY: `p` points at a writable word of global memory: the contract of `Gmem::st`
            // (its `# Safety`), established by its caller.
            unsafe {
                asm!("st.global.u32 [{p}], {v};", v = in(reg32) v, p = in(reg64) p,
                     options(nostack, preserves_flags))
            };
        }
        #[inline(always)]
        unsafe fn ld_nc(p: *const u32) -> u32 {
            let v: u32;
            // SAFETY: `p` points at a readable word of global memory that nothing writes during the
            // launch: the contract of `Gmem::ld_nc` (its `# Safety`), established by its caller.
            unsafe {
                asm!("ld.global.nc.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p,
                     options(pure, nostack, readonly, preserves_flags))
            };
            v
        }
        #[inline(always)]
        unsafe fn ld_pair(p: *const ShoupPair<u32>) -> ShoupPair<u32> {
            let (w, wp): (u32, u32);
            // SAFETY: `p` points at a pair of a table that nothing writes during the launch,
            // aligned to the pair's size: the contract of `Gmem::ld_pair` (its `# Safety`),
            // established by its caller.
            unsafe {
                asm!("ld.global.nc.v2.u32 {{{w}, {wp}}}, [{p}];", w = out(reg32) w, wp = out(reg32) wp,
                     p = in(reg64) p, options(pure, nostack, readonly, preserves_flags))
            };
            ShoupPair { w, wp }
        }
        #[inline(always)]
        unsafe fn ld_run<const R: usize>(p: *const u32, out: &mut [u32; R]) {
            for c in 0..R / 4 {
                let (a, b, x, y): (u32, u32, u32, u32);
                // SAFETY: `p` is 16-byte aligned and its `R` words (a multiple of 16 bytes) are
                // readable: the contract of `Gmem::ld_run` (its `# Safety`), established by its
                // caller.
                unsafe {
                    asm!("ld.global.v4.u32 {{{a}, {b}, {x}, {y}}}, [{p}];", a = out(reg32) a, b = out(reg32) b,
                         x = out(reg32) x, y = out(reg32) y, p = in(reg64) p.add(4 * c),
                         options(nostack, readonly, preserves_flags))
                };
                out[4 * c..4 * c + 4].copy_from_slice(&[a, b, x, y]);
            }
        }
        #[inline(always)]
        unsafe fn ld_cg(p: *const u32) -> u32 {
            let v: u32;
            // SAFETY: `p` points at a readable word of global memory: the contract of `Gmem::ld_cg`
            // (its `# Safety`), established by its caller.
            unsafe {
                asm!("ld.global.cg.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p,
                     options(nostack, readonly, preserves_flags))
            };
            v
        }
        #[inline(always)]
        unsafe fn ld_run_cg<const R: usize>(p: *const u32, out: &mut [u32; R]) {
            for c in 0..R / 4 {
                let (a, b, x, y): (u32, u32, u32, u32);
                // SAFETY: `p` is 16-byte aligned and its `R` words (a multiple of 16 bytes) are
                // readable: the contract of `Gmem::ld_run_cg` (its `# Safety`), established by its
                // caller.
                unsafe {
                    asm!("ld.global.cg.v4.u32 {{{a}, {b}, {x}, {y}}}, [{p}];", a = out(reg32) a, b = out(reg32) b,
                         x = out(reg32) x, y = out(reg32) y, p = in(reg64) p.add(4 * c),
                         options(nostack, readonly, preserves_flags))
                };
                out[4 * c..4 * c + 4].copy_from_slice(&[a, b, x, y]);
            }
        }
        #[inline(always)]
        unsafe fn st_run<const R: usize>(p: *mut u32, v: &[u32; R]) {
            for c in 0..R / 4 {
                // SAFETY: `p` is 16-byte aligned and its `R` words (a multiple of 16 bytes) are
                // writable: the contract of `Gmem::st_run` (its `# Safety`), established by its
                // caller.
                unsafe {
                    asm!("st.global.v4.u32 [{p}], {{{a}, {b}, {x}, {y}}};", a = in(reg32) v[4 * c],
                         b = in(reg32) v[4 * c + 1], x = in(reg32) v[4 * c + 2], y = in(reg32) v[4 * c + 3],
                         p = in(reg64) p.add(4 * c), options(nostack, preserves_flags))
                };
            }
        }
    }

    impl Gmem for u64 {
        #[inline(always)]
        unsafe fn ld(p: *const u64) -> u64 {
            let v: u64;
            // SAFETY: `p` points at a readable word of global memory: the contract of `Gmem::ld`
            // (its `# Safety`), established by its caller.
            unsafe {
                asm!("ld.global.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p,
                     options(nostack, readonly, preserves_flags))
            };
            v
        }
        #[inline(always)]
        unsafe fn st(p: *mut u64, v: u64) {
            // SAFETY: `p` points at a writable word of global memory: the contract of `Gmem::st`
            // (its `# Safety`), established by its caller.
            unsafe {
                asm!("st.global.u64 [{p}], {v};", v = in(reg64) v, p = in(reg64) p,
                     options(nostack, preserves_flags))
            };
        }
        #[inline(always)]
        unsafe fn ld_nc(p: *const u64) -> u64 {
            let v: u64;
            // SAFETY: `p` points at a readable word of global memory that nothing writes during the
            // launch: the contract of `Gmem::ld_nc` (its `# Safety`), established by its caller.
            unsafe {
                asm!("ld.global.nc.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p,
                     options(pure, nostack, readonly, preserves_flags))
            };
            v
        }
        #[inline(always)]
        unsafe fn ld_pair(p: *const ShoupPair<u64>) -> ShoupPair<u64> {
            let (w, wp): (u64, u64);
            // SAFETY: `p` points at a pair of a table that nothing writes during the launch,
            // aligned to the pair's size: the contract of `Gmem::ld_pair` (its `# Safety`),
            // established by its caller.
            unsafe {
                asm!("ld.global.nc.v2.u64 {{{w}, {wp}}}, [{p}];", w = out(reg64) w, wp = out(reg64) wp,
                     p = in(reg64) p, options(pure, nostack, readonly, preserves_flags))
            };
            ShoupPair { w, wp }
        }
        #[inline(always)]
        unsafe fn ld_run<const R: usize>(p: *const u64, out: &mut [u64; R]) {
            for c in 0..R / 2 {
                let (a, b): (u64, u64);
                // SAFETY: `p` is 16-byte aligned and its `R` words (a multiple of 16 bytes) are
                // readable: the contract of `Gmem::ld_run` (its `# Safety`), established by its
                // caller.
                unsafe {
                    asm!("ld.global.v2.u64 {{{a}, {b}}}, [{p}];", a = out(reg64) a, b = out(reg64) b,
                         p = in(reg64) p.add(2 * c), options(nostack, readonly, preserves_flags))
                };
                out[2 * c] = a;
                out[2 * c + 1] = b;
            }
        }
        #[inline(always)]
        unsafe fn ld_cg(p: *const u64) -> u64 {
            let v: u64;
            // SAFETY: `p` points at a readable word of global memory: the contract of `Gmem::ld_cg`
            // (its `# Safety`), established by its caller.
            unsafe {
                asm!("ld.global.cg.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p,
                     options(nostack, readonly, preserves_flags))
            };
            v
        }
        #[inline(always)]
        unsafe fn ld_run_cg<const R: usize>(p: *const u64, out: &mut [u64; R]) {
            for c in 0..R / 2 {
                let (a, b): (u64, u64);
                // SAFETY: `p` is 16-byte aligned and its `R` words (a multiple of 16 bytes) are
                // readable: the contract of `Gmem::ld_run_cg` (its `# Safety`), established by its
                // caller.
                unsafe {
                    asm!("ld.global.cg.v2.u64 {{{a}, {b}}}, [{p}];", a = out(reg64) a, b = out(reg64) b,
                         p = in(reg64) p.add(2 * c), options(nostack, readonly, preserves_flags))
                };
                out[2 * c] = a;
                out[2 * c + 1] = b;
            }
        }
        #[inline(always)]
        unsafe fn st_run<const R: usize>(p: *mut u64, v: &[u64; R]) {
            for c in 0..R / 2 {
                // SAFETY: `p` is 16-byte aligned and its `R` words (a multiple of 16 bytes) are
                // writable: the contract of `Gmem::st_run` (its `# Safety`), established by its
                // caller.
                unsafe {
                    asm!("st.global.v2.u64 [{p}], {{{a}, {b}}};", a = in(reg64) v[2 * c], b = in(reg64) v[2 * c + 1],
                         p = in(reg64) p.add(2 * c), options(nostack, preserves_flags))
                };
            }
        }
    }
}
