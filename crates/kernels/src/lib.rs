//! # polymul-kernels
//!
//! The device side of polymul: modular arithmetic and NTT kernels written in
//! plain `no_std` Rust.
//!
//! The same source compiles twice:
//!
//! * for `nvptx64-nvidia-cuda`, where the `entry` module exposes `extern "ptx-kernel"`
//!   entry points that `polymul-ptx-builder` links into PTX;
//! * for the host, where the host crate calls the very same per-thread bodies
//!   (for example [`ntt::radix2::ct_butterfly`]) in a loop, so every kernel's
//!   arithmetic is tested on a CPU.
//!
//! Nothing in here allocates, formats or panics: index arithmetic uses shifts
//! and masks (no `/` or `%` by run-time values), memory is reached through raw
//! pointers (no bounds checks), and the PTX build fails if a panic or
//! `core::fmt` symbol survives linking.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]

pub mod arith;
pub mod ntt;
pub mod pointwise;
pub mod word;

#[cfg(target_arch = "nvptx64")]
pub mod entry;
#[cfg(target_arch = "nvptx64")]
mod gpu;

pub use word::Word;

/// Threads per block used by the element-wise and radix-2 kernels.
///
/// The host launch code reads this constant, so the two sides cannot disagree.
pub const BLOCK_THREADS: u32 = 256;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // Never reached: the build checks that no panic path survives in the PTX.
    // `trap` aborts the kernel with an error the host sees at synchronisation.
    unsafe { core::arch::nvptx::trap() }
}

/// Base names of the kernel entry points; the full symbol is
/// `<base>_<Word::NAME>` (for example `ntt_fwd_radix2_stage_u64`).
pub mod names {
    /// One forward merged-CT radix-2 stage in global memory.
    pub const NTT_FWD_RADIX2_STAGE: &str = "ntt_fwd_radix2_stage";
    /// One inverse merged-GS radix-2 stage (½-scaled) in global memory.
    pub const NTT_INV_RADIX2_STAGE: &str = "ntt_inv_radix2_stage";
    /// Element-wise modular product.
    pub const POINTWISE_MUL: &str = "pointwise_mul";
    /// Every base name, for build-time checks that each entry exists.
    pub const ALL: &[&str] = &[NTT_FWD_RADIX2_STAGE, NTT_INV_RADIX2_STAGE, POINTWISE_MUL];
}
