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
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx, asm_experimental_arch))]
// Every `unsafe` block says which invariant it relies on and where that is
// established (issue 31); the argument blocks' `# Invariants` sections hold
// what the kernels share.
#![deny(clippy::undocumented_unsafe_blocks)]

#[cfg(not(target_arch = "nvptx64"))]
pub mod args;
pub mod arith;
pub mod dgt;
pub mod gmem;
pub mod microbench;
pub mod names;
pub mod ntt;
pub mod pointwise;
pub mod reduced;
pub mod rns;
pub mod smem;
pub mod tensor;
pub mod towers;
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

/// Default bytes of the shared-memory tile of a tiled-NTT block (4096 `u64`
/// or 8192 `u32` words); plans may choose other powers of two up to the
/// device's per-block limit (dynamic shared memory).
pub const TILE_BYTES: usize = 32 * 1024;

/// The folder holding this crate's `Cargo.toml` and `src`, as cargo saw it
/// when it compiled the crate for the host.
///
/// polymul's build script (a build-dependency on this crate) builds the
/// kernels for `nvptx64-nvidia-cuda` from here: in place in polymul's
/// repository, or from a copy in the target folder when this is a packaged
/// crate (crates.io, a vendor folder), whose folder cargo may share or keep
/// read-only.
#[cfg(not(target_arch = "nvptx64"))]
pub const SOURCE_DIR: &str = env!("CARGO_MANIFEST_DIR");

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // Never reached: the build checks that no panic path survives in the PTX.
    // SAFETY: `trap` has no preconditions: it aborts the kernel with an error
    // the host sees at synchronisation.
    unsafe { core::arch::nvptx::trap() }
}
