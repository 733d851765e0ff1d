//! Plans: parameters and twiddles resident on a GPU, created once and
//! executed many times (cuFFT's plan/exec split, concrete-ntt's `Plan`).

mod engine;
pub(crate) mod launch;
pub(crate) mod lazy;
pub(crate) mod twiddles;

pub(crate) use engine::NttEngine;

use crate::gpu::{DeviceView, Gpu};
use crate::params::NttParams;
use crate::reduction::Reduction;
use crate::{Coeff, Result};

use polymul_kernels::ntt::tiled::TileGeometry;

/// Tile sizes the automatic rule chooses from, smallest first.
const AUTO_TILES: [usize; 4] = [8 << 10, 16 << 10, 32 << 10, 64 << 10];

/// Which NTT implementation a plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum NttKernel {
    /// The best measured kernel for the plan's N, word size and batch (see
    /// [`NttPlan::kernel_for`]; the rule comes from the H200 sweep in
    /// docs/results).
    #[default]
    Auto,
    /// Radix-2, one launch per stage, coefficients in global memory: the
    /// baseline every other kernel is measured against.
    Radix2Global,
    /// Shared memory: one block per polynomial runs every stage when a
    /// polynomial fits in a tile (see [`PlanOptions::tile_bytes`]; the
    /// paper's LOS-NTT); larger N take two passes, a strided one for the
    /// first `log N − log tile` stages and a contiguous one for the rest
    /// (LOM). Batches are one launch per pass (TOM). Each thread keeps a
    /// radix-`r` unit's `r` words in registers for `log2 r` stages
    /// ([`PlanOptions::radix`]).
    Tiled,
    /// The 2D NTT: `N = n1 × n2`, `n1 = 2^⌊log N / 2⌋`, viewed as a matrix;
    /// a column pass (`n1`-point transforms) then a row pass (`n2`-point
    /// transforms, the twist merged into their twiddles), each in shared
    /// memory with the same radix-`r` steps. Always two passes.
    TwoD,
    /// [`NttKernel::TwoD`], pipelined: polynomial `i` of a batch runs on
    /// one of two streams (`i mod 2`), so one polynomial's row pass overlaps
    /// the next one's column pass. Batches above 64 polynomials run in 64
    /// groups of consecutive polynomials instead (group `j` on stream
    /// `j mod 2`), so that a call queues at most 64 launches per pass.
    TwoDPipelined,
    /// The lazy NTT (`polymul_kernels::ntt::lazy`): Harvey's butterflies
    /// (values kept in `[0, 4q)` with Shoup twiddles, one correction per
    /// butterfly), register-resident radix-8 or radix-16 units with every
    /// shape fixed at compile time, one pass for N up to 2^12 (`u64`) or
    /// 2^14 (`u32`; 2^13 at radix 8) and two above (a column pass of at most 2^8 points,
    /// then a row pass), the inverse without per-stage `½` (the `1/N` is
    /// folded into its last stage). Always Shoup: [`PlanOptions::reduction`]
    /// does not apply. Covers N = 2^3 to 2^21; not for fused-polymul plans.
    Lazy,
    /// The lazy kernels in one pass over global memory
    /// (`polymul_kernels::ntt::cluster`): a Hopper thread-block cluster of 8
    /// blocks holds each polynomial in distributed shared memory, so the
    /// column pass hands its words to the row pass without a trip through
    /// global memory. N = 2^16 on a GPU with clusters (sm_90) and a driver
    /// with `cuLaunchKernelEx` (CUDA 12); elsewhere it runs
    /// [`NttKernel::Lazy`] (which `NttPlan::kernel_for` then reports).
    Cluster,
}

impl NttKernel {
    /// Every concrete kernel (all but [`NttKernel::Auto`]).
    pub const ALL: [NttKernel; 6] = [
        NttKernel::Radix2Global,
        NttKernel::Tiled,
        NttKernel::TwoD,
        NttKernel::TwoDPipelined,
        NttKernel::Lazy,
        NttKernel::Cluster,
    ];

    /// A short name for tables and the command line.
    pub fn name(self) -> &'static str {
        match self {
            NttKernel::Auto => "auto",
            NttKernel::Radix2Global => "radix2-global",
            NttKernel::Tiled => "tiled",
            NttKernel::TwoD => "2d",
            NttKernel::TwoDPipelined => "2d-pipelined",
            NttKernel::Lazy => "lazy",
            NttKernel::Cluster => "cluster",
        }
    }
}

/// Whether the lazy kernels run a two-pass transform as one fused launch
/// (both passes in one kernel, the intermediate words in L2;
/// [`PlanOptions::lazy_fused`]). Only N and batches the fused kernels
/// cover use them in any case (docs/ntt.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum LazyFused {
    /// The fused kernels where they cover the call, a row block taking
    /// rows of several polynomials where that fits (the default; what an
    /// unset `POLYMUL_LAZY_FUSED` did).
    #[default]
    Auto,
    /// The fused kernels, one polynomial per row block
    /// (`POLYMUL_LAZY_FUSED=one`).
    OnePolyPerBlock,
    /// No fused kernels: two launches per transform
    /// (`POLYMUL_LAZY_FUSED=0`).
    Off,
    /// The fused kernels for every transform they cover, whatever the
    /// batch (`POLYMUL_LAZY_FUSED=always`; [`LazyFused::Auto`] takes them
    /// from twice their lag in polynomials per tower, and not on the
    /// moderate path): for measuring few polynomials of many towers, whose
    /// towers' ticket streams are independent (issue 54).
    Always,
}

/// Where the lazy kernels' row passes get their twiddles past a pass's
/// first step ([`PlanOptions::row_twiddles`]). The result is the same bit
/// for bit; what differs is the bytes a transform reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum RowTwiddles {
    /// The plan decides (the default): every plan reads its tables, which
    /// measured faster on an H100 for RNS products too (2026-11-27,
    /// docs/ntt.md "Computed row twiddles": one product of 20 × 62-bit
    /// towers 102.3 µs from tables against 107.1 computed, 42 × 30-bit 76.0
    /// against 88.3), although there each tower's tables serve only that
    /// tower's polynomials (~1.2 MB per tower at N = 2^16).
    #[default]
    Auto,
    /// Read from the thread-ordered table region: about `N` Shoup pairs per
    /// direction and tower, coalesced loads.
    Tables,
    /// Computed as `lo · hi mod q` with its exact Shoup companion from two
    /// small tables per direction and tower (`~3·√N` pairs: 6 KiB on `u32`
    /// and 12 KiB on `u64` at N = 2^16, instead of ~0.5 / 1 MiB of region):
    /// six word products per twiddle instead of a load. Kernels of their
    /// own, compiled for the row passes of N = 2^16 only (the size measured)
    /// at the default radix (`polymul_kernels::ntt::lazy::has_computed_rows`); a
    /// plan whose passes have none (another radix, another N) reads its
    /// tables instead, and a plan that computes runs no latency, fused or
    /// cluster kernels (their kernels read the tables). docs/ntt.md
    /// ("Computed row twiddles").
    Computed,
}

/// How a plan computes: which NTT kernel, which modular reduction, which
/// shared-memory tile and radix, and the switches for comparing variants
/// of the lazy kernels' launches (`latency_kernels`, `latency_radix`,
/// `lazy_fused`, `graph_cache`: their defaults are the measured best).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlanOptions {
    /// The NTT implementation.
    pub kernel: NttKernel,
    /// The reduction in the butterflies (the pointwise product always uses
    /// Algorithm 4). Default: Shoup, the fastest measured.
    pub reduction: Reduction,
    /// Bytes of shared memory per tile for the tiled kernels (a power of two
    /// up to the device's per-block limit). `None` (the default) chooses per
    /// call, by the rule measured on an H200 (docs/ntt.md): the largest of
    /// 8, 16, 32 and 64 KiB that still gives at least two blocks per SM,
    /// else the smallest that covers N in two passes — big tiles (fewer
    /// passes) for batches, small tiles (more blocks in flight) for a single
    /// polynomial. (2 and 4 KiB tiles, and a 100% shared-memory carveout,
    /// measured slower on the H200: docs/ntt.md.)
    pub tile_bytes: Option<usize>,
    /// Largest radix of the shared-memory kernels' steps: 2, 4, 8 or 16
    /// stages' worth of words per thread between shared-memory round trips
    /// (radix 2^k runs k stages at once). `None`: the measured default
    /// ([`NttPlan::radix_for`], [`auto_radix`]).
    pub radix: Option<usize>,
    /// Keep every step in shared memory: no direct global reads in a pass's
    /// first step and writes in its last (the "shared memory only" rows of
    /// the ablation). Default `false`: direct where it stays coalesced.
    pub shared_only: bool,
    /// A fused-polymul plan (Algorithm 8 of the SEED paper): polymul runs a
    /// truncated forward transform (last stage omitted) on both operands,
    /// the Karatsuba-fused butterfly/Hadamard/butterfly step and a truncated
    /// inverse (first stage omitted), so the plan stores and reads only the
    /// first half of each twiddle table ([`NttPlan::twiddle_bytes`]). Such a
    /// plan multiplies only: its [`crate::Transform::forward`] and
    /// [`crate::Transform::inverse`]
    /// return [`crate::Error::FusedPlanTransform`]. Needs N ≥ 4.
    pub fused_polymul: bool,
    /// Launches of the lazy kernels over a few polynomials (fewer blocks
    /// than SMs) run the latency schedule: smaller blocks, more of them
    /// (docs/latency.md); polymuls of moderate batches (up to 2^20 or 2^21
    /// words), and forward transforms in measured bands, run the full
    /// tiles at radix 8 (docs/ntt.md). Default `true`;
    /// `false` runs the throughput schedule at the default radix for every
    /// batch (what `POLYMUL_LATENCY_KERNELS=0` did). A plan with an
    /// explicit [`PlanOptions::radix`] uses neither.
    pub latency_kernels: bool,
    /// The radix of the latency schedule's passes: 4, 8 or 16 ([`crate::Error::BadLatencyRadix`]
    /// otherwise). `None` (the default): the measured one, 4 (what an
    /// unset `POLYMUL_LATENCY_RADIX` did).
    pub latency_radix: Option<usize>,
    /// The lazy kernels' fused two-pass launches ([`LazyFused`]). Default
    /// [`LazyFused::Auto`].
    pub lazy_fused: LazyFused,
    /// Repeated small calls on the same buffers replay a CUDA graph the
    /// plan captured on its second call (see [`crate::Gpu`] on graphs and
    /// threads). Default `true`; `false` launches every call's kernels
    /// (what `POLYMUL_GRAPH_CACHE=0` did).
    pub graph_cache: bool,
    /// Where the lazy kernels' row passes get their twiddles
    /// ([`RowTwiddles`]). Default [`RowTwiddles::Auto`]; an expert switch
    /// for comparing the two on a GPU.
    pub row_twiddles: RowTwiddles,
}

impl Default for PlanOptions {
    fn default() -> Self {
        Self {
            kernel: NttKernel::default(),
            reduction: Reduction::default(),
            tile_bytes: None,
            radix: None,
            shared_only: false,
            fused_polymul: false,
            latency_kernels: true,
            latency_radix: None,
            lazy_fused: LazyFused::Auto,
            graph_cache: true,
            row_twiddles: RowTwiddles::Auto,
        }
    }
}

/// A negacyclic NTT of size N modulo q on one GPU.
///
/// ```no_run
/// use polymul::prelude::*;
/// use polymul::{Gpu, NttParams, NttPlan};
/// let gpu = Gpu::new()?;
/// let plan = NttPlan::new(&gpu, NttParams::<u64>::with_prime_bits(1 << 12, 62)?)?;
/// let q = plan.params().q();
/// let a: Vec<u64> = (0..1 << 12).map(|i| i as u64 % q).collect();
/// let b = a.clone();
/// let c = plan.polymul(&a, &b)?; // a·b mod (X^N + 1, q)
/// # Ok::<(), polymul::Error>(())
/// ```
pub struct NttPlan<W: Coeff> {
    engine: NttEngine<W>,
    params: NttParams<W>,
}

impl<W: Coeff> std::fmt::Debug for NttPlan<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NttPlan")
            .field("n", &self.params.n())
            .field("q", &self.params.q())
            .field("word_bits", &W::BITS)
            .field("options", &self.engine.options)
            .finish()
    }
}

impl<W: Coeff> NttPlan<W> {
    /// Uploads the twiddles and prepares the kernels for `params`, with the
    /// default options.
    pub fn new(gpu: &Gpu, params: NttParams<W>) -> Result<Self> {
        Self::with_options(gpu, params, PlanOptions::default())
    }

    /// As [`NttPlan::new`], with an explicit kernel and reduction. Errors if
    /// the reduction refuses `q` (e.g. a 62-bit q with Dhem–Quisquater).
    pub fn with_options(gpu: &Gpu, params: NttParams<W>, options: PlanOptions) -> Result<Self> {
        let engine = NttEngine::new(gpu, std::slice::from_ref(&params), options, RowTwiddles::Tables)?;
        Ok(Self { engine, params })
    }

    /// The parameters.
    pub fn params(&self) -> &NttParams<W> {
        &self.params
    }

    /// The kernel and reduction this plan runs.
    pub fn options(&self) -> PlanOptions {
        self.engine.options
    }

    /// Captures the work `work` queues on this plan's stream, on buffers the
    /// returned [`crate::Graph`] owns (`state`), for replays with one driver
    /// call each ([`crate::Graph::launch`]). `work` runs once, while
    /// capturing: nothing is computed until the first replay.
    ///
    /// # Errors
    /// Those of `work` (e.g. buffers of the wrong length); a [`crate::Error::CudaCode`] if
    /// the driver refuses the capture (work that waits for the GPU or copies
    /// from or to the host cannot be captured).
    ///
    /// ```no_run
    /// # use polymul::prelude::*;
    /// # use polymul::{Gpu, NttParams, NttPlan};
    /// # let gpu = Gpu::new()?;
    /// let plan = NttPlan::new(&gpu, NttParams::<u32>::with_prime_bits(1 << 16, 30)?)?;
    /// let graph = plan.capture(plan.zeros(1)?, |plan, a| plan.forward(a))?;
    /// graph.launch()?;
    /// graph.synchronize()?;
    /// # Ok::<(), polymul::Error>(())
    /// ```
    pub fn capture<S: crate::GraphState>(
        &self,
        state: S,
        work: fn(&Self, &mut S) -> Result<()>,
    ) -> Result<crate::Graph<'_, S>> {
        crate::gpu::graph::capture(self.engine.queue(), self, state, work)
    }

    /// Device bytes of the plan's twiddle tables (forward and inverse, main
    /// and auxiliary words): half as many for a fused-polymul plan.
    pub fn twiddle_bytes(&self) -> usize {
        self.engine.twiddle_bytes()
    }

    /// The kernel that runs a forward transform of `batch` polynomials: the
    /// one asked for, or for [`NttKernel::Auto`] the rule measured on an
    /// H200 ([`auto_kernel`]).
    pub fn kernel_for(&self, batch: usize) -> NttKernel {
        self.engine.kernel_for_dir(batch, false)
    }

    /// [`NttPlan::kernel_for`] for the inverse transform (the rule differs:
    /// the inverse's extra `½` corrections change which kernel wins).
    pub fn inverse_kernel_for(&self, batch: usize) -> NttKernel {
        self.engine.kernel_for_dir(batch, true)
    }

    /// The largest radix of the shared-memory steps of a forward transform
    /// of `batch` polynomials: the one asked for, or the measured rule's
    /// ([`auto_radix`]).
    pub fn radix_for(&self, batch: usize) -> usize {
        1 << self.engine.log_radix_for(batch, false)
    }

    /// How many passes over global memory one transform of a `batch` makes:
    /// `log N` for the radix-2 kernel, 1 or 2 for the shared-memory kernels
    /// (1 for a fused lazy transform: both passes in one launch, the words
    /// between them in L2).
    pub fn global_passes(&self, batch: usize) -> u32 {
        self.engine.global_passes(batch)
    }

    /// The tile geometry (tile size and split) a batch runs with, `None`
    /// for the radix-2 kernel.
    pub fn geometry_for(&self, batch: usize) -> Option<TileGeometry> {
        self.engine.geometry_for(batch)
    }

    /// Queues the middle of a polymul alone, on operands `a` and `b` that
    /// went through stages `0..log N − 1` of the forward transform
    /// (any reduced words will do): on a fused-polymul plan the Karatsuba
    /// step of Algorithm 8 (4 products per pair, `b` untouched); on other
    /// plans its unfused counterpart, the last forward stage of both
    /// operands, the pointwise product and the first (`½`-scaled) inverse
    /// stage (5 products per pair, `b` left transformed). Both leave the same
    /// words in `a` — what the benchmark times the fused step against.
    pub fn hadamard_step(&self, a: &mut DeviceView<W>, b: &mut DeviceView<W>) -> Result<()> {
        self.engine.hadamard_step(a, b)
    }
}

/// The plans that run on an [`NttEngine`] ([`NttPlan`], [`crate::RnsPlan`]):
/// the plan traits are implemented once, for both, through it.
/// (Implemented by a macro for both types: a blanket implementation over
/// a trait of theirs would overlap the other plans' in coherence's eyes.)
macro_rules! engine_plan {
    ($plan:ident, $words:literal) => {
        impl<W: $crate::Coeff> $crate::Plan<W> for $plan<W> {
            fn n(&self) -> usize {
                self.engine.tower_set().n()
            }

            fn moduli(&self) -> Vec<u64> {
                self.engine.tower_set().primes()
            }

            fn backend(&self) -> $crate::Backend {
                $crate::Backend::Gpu(self.engine.gpu.info().name.clone())
            }

            fn polymul(&self, a: &[W], b: &[W]) -> $crate::Result<Vec<W>> {
                self.engine.host_product(a, b)
            }

            fn tensor(&self, a: &[W], b: &[W]) -> $crate::Result<Vec<W>> {
                self.engine.host_tensor(a, b)
            }
        }

        /// Queues on the plan's stream; `a` and `b` are copied into the
        /// plan's tensor scratch first (the inherent `tensor_in_place`
        /// skips the copies).
        impl<W: $crate::Coeff> $crate::Tensor<W, $crate::DeviceView<W>> for $plan<W> {
            fn tensor_into(
                &self,
                a: &$crate::DeviceView<W>,
                b: &$crate::DeviceView<W>,
                out: &mut $crate::DeviceView<W>,
            ) -> $crate::Result<()> {
                let gpu = &self.engine.gpu;
                gpu.check_operand(self, "a", a)?;
                gpu.check_operand(self, "b", b)?;
                gpu.check_operand(self, "out", out)?;
                self.engine.tensor_into(a, b, out)
            }
        }

        /// Validated, uploaded, computed on the device, downloaded.
        impl<W: $crate::Coeff> $crate::Tensor<W, [W]> for $plan<W> {
            fn tensor_into(&self, a: &[W], b: &[W], out: &mut [W]) -> $crate::Result<()> {
                let shape = $crate::ciphertext::TensorShape::check(
                    $crate::Plan::n(self),
                    self.engine.tower_set().len(),
                    a.len(),
                    b.len(),
                    out.len(),
                )?;
                let c = self.engine.host_tensor(a, b)?;
                debug_assert_eq!(c.len(), shape.out_words());
                out.copy_from_slice(&c);
                Ok(())
            }
        }

        impl<W: $crate::Coeff> $plan<W> {
            /// Queues, on the plan's stream, a check that every word of
            /// `data` (whole polynomials of every tower) lies below its
            /// tower's modulus, and returns without waiting: the plans
            /// assume reduced device words and do not check them. A
            /// failure is reported by [`Self::take_reduced_error`], which
            /// reads a word in host-mapped memory: by the first call
            /// made after the check kernel ran (at the latest, after the
            /// next synchronisation). Calls queued after the check run on
            /// the unreduced words regardless, and their outputs are wrong.
            ///
            /// # Errors
            /// [`crate::Error::NotAMultipleOfN`],
            /// [`crate::Error::BatchTooLarge`], device errors.
            pub fn check_reduced_async(&self, data: &$crate::DeviceView<W>) -> $crate::Result<()> {
                self.engine.gpu.check_operand(self, "data", data)?;
                self.engine.queue_reduced_check(data)
            }

            /// [`crate::Error::UnreducedDeviceInput`] if a check queued by
            /// [`Self::check_reduced_async`] that ran since the last call
            /// found an unreduced word; `Ok` otherwise. Does not wait for
            /// the GPU: checks still queued report at a later call.
            ///
            /// # Errors
            /// [`crate::Error::UnreducedDeviceInput`].
            pub fn take_reduced_error(&self) -> $crate::Result<()> {
                self.engine.take_reduced_error()
            }

            /// The ciphertext tensor product ([`crate::Tensor`]) without
            /// copies: `a` and `b` are transformed forward where they are
            /// (their words are left in the NTT domain, scratch for the
            /// caller), the tensor kernel writes `out`, whose inverse
            /// transform ends the call. Queues on the plan's stream.
            ///
            /// # Errors
            /// As [`crate::Tensor::tensor_into`];
            /// [`crate::Error::FusedPlanTransform`] on a fused-polymul plan.
            pub fn tensor_in_place(
                &self,
                a: &mut $crate::DeviceView<W>,
                b: &mut $crate::DeviceView<W>,
                out: &mut $crate::DeviceView<W>,
            ) -> $crate::Result<()> {
                let gpu = &self.engine.gpu;
                gpu.check_operand(self, "a", a)?;
                gpu.check_operand(self, "b", b)?;
                gpu.check_operand(self, "out", out)?;
                self.engine.tensor_in_place(a, b, out)
            }
        }

        /// Queues on the plan's stream. `polymul_in_place` clobbers `b`: its words
        /// are scratch afterwards (the NTT domain for most kernels; the lazy
        /// kernels leave it column-transformed, since their product pass finishes
        /// `b`'s transform in registers).
        impl<W: $crate::Coeff> $crate::Product<W, $crate::DeviceView<W>> for $plan<W> {
            fn polymul_into(
                &self,
                a: &$crate::DeviceView<W>,
                b: &$crate::DeviceView<W>,
                out: &mut $crate::DeviceView<W>,
            ) -> $crate::Result<()> {
                let gpu = &self.engine.gpu;
                gpu.check_operand(self, "a", a)?;
                gpu.check_operand(self, "b", b)?;
                gpu.check_operand(self, "out", out)?;
                self.engine.polymul_into(a, b, out)
            }

            fn polymul_in_place(
                &self,
                a: &mut $crate::DeviceView<W>,
                b: &mut $crate::DeviceView<W>,
            ) -> $crate::Result<()> {
                self.engine.gpu.check_operand(self, "a", a)?;
                self.engine.gpu.check_operand(self, "b", b)?;
                self.engine.polymul_in_place(a, b)
            }
        }

        /// Queues on the plan's stream; coefficients must be reduced (as
        /// [`crate::DevicePlan::upload`] guarantees).
        impl<W: $crate::Coeff> $crate::Transform<W, $crate::DeviceView<W>> for $plan<W> {
            fn forward(&self, data: &mut $crate::DeviceView<W>) -> $crate::Result<()> {
                self.engine.gpu.check_operand(self, "data", data)?;
                self.engine.whole($crate::plan::launch::Direction::Forward, data)
            }

            fn inverse(&self, data: &mut $crate::DeviceView<W>) -> $crate::Result<()> {
                self.engine.gpu.check_operand(self, "data", data)?;
                self.engine.whole($crate::plan::launch::Direction::Inverse, data)
            }

            fn pointwise_mul(
                &self,
                acc: &mut $crate::DeviceView<W>,
                other: &$crate::DeviceView<W>,
            ) -> $crate::Result<()> {
                self.engine.gpu.check_operand(self, "acc", acc)?;
                self.engine.gpu.check_operand(self, "other", other)?;
                self.engine.pointwise_mul(acc, other)
            }
        }

        impl<W: $crate::Coeff> $crate::DevicePlan<W> for $plan<W> {
            fn gpu(&self) -> &$crate::Gpu {
                &self.engine.gpu
            }

            fn upload(&self, words: &[W]) -> $crate::Result<$crate::DeviceVec<W>> {
                self.engine.upload($words, words)
            }

            fn zeros(&self, batch: usize) -> $crate::Result<$crate::DeviceVec<W>> {
                self.engine.zeros(batch)
            }

            fn download(&self, v: &$crate::DeviceView<W>) -> $crate::Result<Vec<W>> {
                self.engine.queue().download(v)
            }

            fn set_stream(&mut self, stream: Option<&$crate::GpuStream>) {
                self.engine.set_stream(stream);
            }

            fn synchronize(&self) -> $crate::Result<()> {
                self.engine.queue().synchronize()
            }
        }
        impl<W: $crate::Coeff> $crate::gpu::split::SplitPlan<W> for $plan<W> {
            fn split_towers(&self) -> &$crate::layout::Towers<W> {
                self.engine.split_towers()
            }

            fn split_queue(&self) -> $crate::gpu::launch::Queue<'_> {
                self.engine.split_queue()
            }

            fn run_piece(
                &self,
                op: $crate::gpu::split::Op,
                a: &mut $crate::DeviceView<W>,
                b: Option<&mut $crate::DeviceView<W>>,
            ) -> $crate::Result<()> {
                self.engine.run_piece(op, a, b)
            }
        }
        $crate::traits::host_slices_via_device!($plan, transform, $words);
    };
}
pub(crate) use engine_plan;

engine_plan!(NttPlan, "coeffs");

/// Whether a call on `batch` polynomials of `n` words counts as batched for
/// the automatic rules: at least 2^20 words, enough to give every SM of a
/// large GPU several blocks. (The rules were measured at one polynomial and
/// at 2^25 words; `polymul tune` (issue 7) will measure the sizes between.)
pub fn is_batched(n: usize, batch: usize) -> bool {
    n.saturating_mul(batch) >= 1 << 20
}

/// The kernel [`NttKernel::Auto`] runs for `N = 2^log_n` on `word_bits`
/// words, single or batched, forward or inverse: the lazy kernels wherever
/// they cover N (2^3 to 2^21), else [`shared_memory_kernel`]. The one-pass
/// cluster kernels are not chosen: on an H100 they measured slower than the
/// two-pass lazy kernels (docs/ntt.md).
pub fn auto_kernel(word_bits: u32, log_n: u32, batched: bool, inverse: bool) -> NttKernel {
    if polymul_kernels::ntt::lazy::split(log_n, 0).is_some() {
        NttKernel::Lazy
    } else {
        shared_memory_kernel(word_bits, log_n, batched, inverse)
    }
}

/// The fastest of the shared-memory kernels (tiled and 2D) in the H200
/// sweep with prebuilt SASS (docs/results/2026-11-22-nvidia-h200-ntt-family-sass):
/// what [`NttKernel::Auto`] runs where the lazy kernels do not apply (N
/// outside their range, fused-polymul plans).
/// Batched forward transforms of large N take the 2D split (its balanced
/// passes beat the tiled kernel's long contiguous pass); small N fit one
/// tile; batched inverse transforms (two `½` corrections per butterfly, more
/// registers) are fastest in the tiled kernel at every N; a single polynomial
/// is latency-bound and takes the tiled kernel (the 2D one for 32-bit words
/// from N = 2^11).
pub fn shared_memory_kernel(word_bits: u32, log_n: u32, batched: bool, inverse: bool) -> NttKernel {
    match (word_bits, batched, inverse) {
        (_, true, true) => NttKernel::Tiled,
        (64, true, false) if log_n >= 14 => NttKernel::TwoD,
        (64, _, _) => NttKernel::Tiled,
        (_, true, false) if log_n >= 15 => NttKernel::TwoD,
        (_, true, false) => NttKernel::Tiled,
        (_, false, _) if log_n >= 11 => NttKernel::TwoD,
        (_, false, _) => NttKernel::Tiled,
    }
}

/// `log2` of the largest radix the shared-memory kernels use when
/// [`PlanOptions::radix`] is `None`, from the same sweep: radix 16 where
/// the batch keeps every SM busy and the tile is small enough, radix 8 or 4
/// where fewer registers per thread (more threads in flight) matter more.
pub fn auto_radix(kernel: NttKernel, word_bits: u32, log_n: u32, batched: bool, inverse: bool) -> u32 {
    if matches!(kernel, NttKernel::Lazy | NttKernel::Cluster) {
        // The row pass's radix (the column pass may use another; see
        // `polymul_kernels::ntt::lazy::log_radix`).
        // Any word width in, a radix of 2 to 16 out (a public rule: no panic).
        let wb = ((word_bits / 8) as usize).max(1);
        let words = polymul_kernels::ntt::lazy::tile_words(wb);
        let lazy =
            polymul_kernels::ntt::lazy::split(log_n, words.trailing_zeros()).map_or(log_n, |(_, l2)| l2);
        let mode =
            if inverse { polymul_kernels::ntt::lazy::INVERSE } else { polymul_kernels::ntt::lazy::FORWARD };
        return polymul_kernels::ntt::lazy::log_radix(wb, lazy, false, mode).clamp(1, 4);
    }
    let two_d = matches!(kernel, NttKernel::TwoD | NttKernel::TwoDPipelined);
    match (word_bits, batched, two_d, inverse) {
        (64, true, _, true) if log_n <= 11 => 3,
        (64, true, _, true) => 2,
        (_, true, _, true) => 3,
        (64, true, true, false) => 4,
        (64, true, false, false) if log_n <= 12 => 4,
        (64, true, false, false) => 2,
        (64, false, true, _) => 3,
        (64, false, false, _) => 2,
        (_, true, true, false) => 3,
        (_, true, false, false) if log_n <= 12 => 4,
        (_, true, false, false) => 3,
        (_, false, _, _) if log_n <= 10 => 2,
        (_, false, _, _) => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The switches that were environment variables default to what an
    /// unset variable meant.
    #[test]
    fn plan_options_default_to_the_measured_choices() {
        let p = PlanOptions::default();
        assert!(p.latency_kernels && p.graph_cache);
        assert_eq!((p.latency_radix, p.lazy_fused), (None, LazyFused::Auto));
    }
}
