//! # polymul
//!
//! Negacyclic polynomial multiplication in `Z_q[X]/(X^N + 1)`, the core
//! operation of lattice-based homomorphic encryption, on NVIDIA GPUs with
//! kernels written in pure Rust (`polymul-kernels`, compiled to PTX by
//! rustc's nvptx64 backend and embedded in this crate at build time).
//!
//! * [`Multiplier`] (the [`planner`]): the entry point. It picks the
//!   transform (NTT or DGT) and its configuration for N, a modulus (or RNS
//!   towers), a batch size and the device, from measured [`Wisdom`] or the
//!   documented rule, on the GPU or on the CPU backend.
//! * One shape for every plan: [`Plan`], [`Product`] and [`Transform`]
//!   (the NTT domain) over host slices and device views, and
//!   [`DevicePlan`] for device memory and streams (see [`prelude`]). The
//!   plans: [`NttPlan`], [`RnsPlan`], [`DgtPlan`] (GPU), [`CpuPlan`],
//!   [`CpuRnsPlan`] (CPU) and the planner's [`Multiplier`].
//! * [`Gpu`]: a device with the kernels loaded (a cheap, `Send + Sync`
//!   handle); [`DeviceVec`] owns device words, [`DeviceView`] borrows them
//!   (also memory of other libraries: [`DeviceView::from_raw_parts_mut`]);
//!   [`Graph`]: captured work replayed with one driver call.
//! * [`params`], [`rns`], [`dgt`]: NTT-friendly primes and parameters, RNS
//!   bases and big-integer conversions, Coala's DGT.
//! * [`cpu`]: the CPU backend and the naive reference.
//! * [`expert`]: kernel, radix, reduction and tile choices, the kernels'
//!   code run on the CPU, timing tools: for benchmarking and tests.
//!
//! ```no_run
//! use polymul::prelude::*;
//! use polymul::{Gpu, NttParams, NttPlan};
//!
//! let n = 1 << 14;
//! let params = NttParams::<u64>::with_prime_bits(n, 62)?; // q ≡ 1 (mod 2N), 62 bits
//! let gpu = Gpu::new()?;                                  // Err(NoGpu) without a GPU
//! let plan = NttPlan::new(&gpu, params)?;
//! let q = plan.params().q();
//! let a: Vec<u64> = (0..n as u64).map(|i| i * i % q).collect();
//! let b: Vec<u64> = (0..n as u64).map(|i| (i + 7) % q).collect();
//! let c = plan.polymul(&a, &b)?;
//! assert_eq!(c, polymul::CpuPlan::new(plan.params().clone())?.polymul(&a, &b)?); // the CPU backend's product
//! # Ok::<(), polymul::Error>(())
//! ```
//!
//! Errors are typed ([`Error`]); no public function panics on bad input.
// Every `unsafe` block says which invariant it relies on and where that is
// established (issue 31); kernel launches refer to the `# Invariants`
// section of their argument block in polymul-kernels.
#![deny(clippy::undocumented_unsafe_blocks)]

mod ciphertext;
mod conformance;
pub mod cpu;
pub mod dgt;
mod error;
pub mod expert;
mod gpu;
mod layout;
mod microbench;
pub mod multi;
pub mod params;
mod plan;
pub mod planner;
pub mod prelude;
mod random;
mod reduction;
pub mod rns;
mod traits;

pub use cpu::{CpuPlan, CpuRnsPlan};
pub use dgt::{DgtParams, DgtPlan, DgtView};
pub use error::{DriverError, Error, ErrorKind, Result};
pub use gpu::{DeviceInfo, DeviceVec, DeviceView, Gpu, GpuOptions, GpuStream, Graph, GraphState};
pub use layout::{Layout, MAX_TOWERS};
pub use multi::{MultiPlan, SpreadVec};
pub use params::NttParams;
pub use plan::NttPlan;
pub use planner::{Decision, Modulus, Multiplier, Wisdom};
pub use rns::{RnsBasis, RnsPlan};
pub use traits::{Backend, DevicePlan, Plan, Product, Tensor, Transform, tensor_by_products};

/// A coefficient word polymul computes on: `u32` (moduli up to 30 bits) or
/// `u64` (up to 62 bits). Sealed: implemented for these two only.
pub trait Coeff:
    polymul_kernels::Word + sealed::DeviceWord + std::fmt::Debug + std::fmt::Display + Send + Sync
{
}

impl Coeff for u32 {}
impl Coeff for u64 {}

/// What the GPU side needs of a word, kept out of the public API (the
/// vendored `cust`'s traits are an implementation detail).
mod sealed {
    /// A word the kernels and the driver copies take.
    pub trait DeviceWord:
        polymul_kernels::gmem::Gmem + cust::memory::DeviceCopy + cust::memory::bytemuck::Zeroable
    {
    }
    impl DeviceWord for u32 {}
    impl DeviceWord for u64 {}
}
