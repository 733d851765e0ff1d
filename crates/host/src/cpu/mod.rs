//! The CPU path: an independent naive reference and the kernels' own code
//! run on the host.
//!
//! * [`negacyclic_naive`]: O(N²) schoolbook product in `Z_q[X]/(X^N + 1)`
//!   with `u128` arithmetic. It shares no code with the kernels, so it is
//!   the ground truth every test compares with.
//! * [`crate::expert::emulation`]: the exact per-thread bodies the GPU
//!   runs (`polymul_kernels::ntt::radix2`, the lazy kernels, RNS), looped
//!   over all threads of every stage. A GPU result must equal these bit for
//!   bit.
//! * [`CpuPlan`], [`CpuRnsPlan`]: the CPU backend — the same results,
//!   vectorised (`concrete-ntt` on polymul's roots) and spread over all
//!   cores; what runs when there is no GPU (see its module docs).

mod backend;
mod lazy;
mod naive;
mod ntt;
mod rns;

pub use backend::{CpuPlan, CpuRnsPlan};
pub use naive::{negacyclic_naive, negacyclic_naive_big};
pub(crate) use ntt::modmul_chains;

/// The kernels' code on the CPU (re-exported as
/// [`crate::expert::emulation`]).
pub(crate) mod emulation {
    pub use super::backend::GRAIN;
    pub use super::lazy::{
        forward_lazy, inverse_lazy, polymul_lazy, polymul_lazy_latency, tensor_lazy, transform_cluster,
        transform_lazy_fused, transform_lazy_latency,
    };
    pub use super::ntt::{
        TiledConfig, forward, forward_tiled, forward_with, inverse, inverse_tiled, inverse_with,
        pointwise_mul, polymul, polymul_fused, polymul_fused_tiled, polymul_with,
    };
    pub use super::rns::{rns_polymul, rns_polymul_big, rns_polymul_limbs};
}
