//! Coala's Discrete Galois Transform: a second transform family beside the
//! NTT, giving the same negacyclic product (see docs/dgt.md).
//!
//! * [`DgtParams`]: primes `p ≡ 3 (mod 4)` with `N | p + 1`, the roots.
//! * [`DgtConfig`]: the stage split over kernels and the cluster sizes.
//! * [`crate::expert::DgtPipeline`]: the kernels an operation launches (fused, or
//!   Coala's separate encoding, pointwise and decoding kernels).
//! * [`DgtView`]: words in the DGT domain.
//! * `polymul::expert::emulation::dgt`: the kernels' code on the CPU,
//!   launch by launch.
//! * [`DgtPlan`]: the GPU plan (towers on the grid's z axis).

mod config;
pub(crate) mod cpu;
mod domain;
mod launch;
pub(crate) mod params;
mod plan;
pub(crate) mod schedule;
pub(crate) mod tables;

pub use config::{DgtConfig, MAX_PASS_STAGES, MAX_THREADS};
pub use domain::DgtView;
pub use params::{DgtParams, MAX_N, MIN_N, dgt_primes};
pub use plan::{BATCHED_FROM_COEFFS, BATCHED_TRANSFORMS_FROM_COEFFS, DgtPlan};
