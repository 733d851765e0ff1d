//! # polymul
//!
//! Negacyclic polynomial multiplication in `Z_q[X]/(X^N + 1)`, the core
//! operation of lattice-based homomorphic encryption, on NVIDIA GPUs with
//! kernels written in pure Rust (`polymul-kernels`, compiled to PTX by
//! rustc's nvptx64 backend and embedded in this crate at build time).
//!
//! * [`params`]: NTT-friendly primes, roots of unity, twiddle tables.
//! * [`Gpu`]: a device with the kernels loaded, buffers, event timing.
//! * [`NttPlan`]: parameters resident on a GPU; forward/inverse NTT,
//!   pointwise product and polynomial multiplication, single or batched.
//! * [`cpu`]: the naive reference and the kernels' code run on the CPU.
//! * [`planner`]: one entry point that picks NTT or DGT and its
//!   configuration, from measured wisdom or the documented rule.
//!
//! ```no_run
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
//! assert_eq!(c, polymul::cpu::polymul(plan.params(), &a, &b)?);
//! # Ok::<(), polymul::Error>(())
//! ```
//!
//! Errors are typed ([`Error`]); no public function panics on bad input.

pub mod cpu;
mod device_plan;
pub mod dgt;
mod error;
pub mod gpu;
pub mod layout;
pub mod microbench;
pub mod params;
mod plan;
pub mod planner;
pub mod random;
pub mod reduction;
pub mod rns;

pub use cpu::{CpuPlan, CpuRnsPlan};
pub use device_plan::DevicePlan;
pub use error::{Error, ErrorKind, Result};
pub use gpu::{DeviceInfo, DeviceVec, ExternalVec, Gpu, GpuStream, Graph, Timing};
pub use layout::Layout;
pub use params::NttParams;
pub use plan::{NttKernel, NttPlan, PlanOptions, auto_kernel, auto_radix, is_batched, shared_memory_kernel};
pub use polymul_kernels as kernels;
pub use reduction::Reduction;
// Options a `Gpu` and a plan are created with (issue 31).
pub use gpu::GpuOptions;
pub use plan::LazyFused;

/// A coefficient word polymul computes on: `u32` (moduli up to 30 bits) or
/// `u64` (up to 62 bits).
pub trait Coeff:
    polymul_kernels::Word
    + polymul_kernels::gmem::Gmem
    + cust::memory::DeviceCopy
    + cust::memory::bytemuck::Zeroable
    + std::fmt::Debug
    + std::fmt::Display
    + Send
    + Sync
{
}

impl Coeff for u32 {}
impl Coeff for u64 {}
