//! Tools for benchmarking and testing, not needed to use polymul: the
//! kernel, radix, reduction and tile choices the planner makes for you, the
//! kernels' own code run on the CPU (bit-exact emulations of what each GPU
//! thread computes), event timing and the embedded kernel images.
//!
//! Everything here is public so that `polymul-bench`, the CLI's `tune` and
//! the test suites can force one configuration; a user who wants the
//! fastest plan asks the planner ([`crate::Multiplier`]) or takes the
//! defaults ([`crate::NttPlan::new`]).

/// One conformance check for every plan kind, through the plan traits.
pub mod conformance {
    pub use crate::conformance::{Mismatch, check_product, check_transform};
}
pub use crate::dgt::schedule::DgtPipeline;
pub use crate::gpu::{
    GpuTiming, LaunchChain, Timing, embedded_cubin, embedded_cubin_archs, embedded_ptx, embedded_ptx_archs,
    median,
};
pub use crate::microbench::ModMulBench;
pub use crate::params::geometry::{geometry_2d, tile_geometry};
pub use crate::plan::{
    LazyFused, NttKernel, PlanOptions, RowTwiddles, auto_kernel, auto_radix, is_batched, shared_memory_kernel,
};
pub use crate::random::SplitMix64;
pub use crate::reduction::{Multiplicands, Reduction};
/// The GPU kernels' crate (`no_std`, compiled to PTX), whose code also
/// runs on the host: argument blocks, geometry, arithmetic.
pub use polymul_kernels as kernels;
pub use polymul_kernels::ntt::tiled::TileGeometry;

/// The kernels' code run on the CPU, thread by thread and stage by stage:
/// what each GPU kernel computes, bit for bit. Slow; for tests. (The fast
/// CPU backend is [`crate::CpuPlan`].)
pub mod emulation {
    pub use crate::cpu::emulation::*;

    /// The DGT kernels' code on the CPU, launch by launch.
    pub mod dgt {
        pub use crate::dgt::cpu::*;
        pub use crate::dgt::params::{G, ginv, gmul, gpow};
        pub use crate::dgt::tables::{DgtTables, pass_twiddles};
    }
}
