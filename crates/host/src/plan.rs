//! Plans: parameters and twiddles resident on a GPU, created once and
//! executed many times (cuFFT's plan/exec split, concrete-ntt's `Plan`).

use crate::gpu::launch::{self, Direction, Pipeline, Radix2Kernels, TiledKernels, TiledLaunch};
use crate::gpu::{DeviceVec, Gpu};
use crate::params::NttParams;
use crate::reduction::{DevicePrepared, Prepared, Reduction};
use crate::{Coeff, Error, Result};
use polymul_kernels::ntt::tiled::TileGeometry;

/// Tile sizes the automatic rule chooses from, smallest first.
const AUTO_TILES: [usize; 4] = [8 << 10, 16 << 10, 32 << 10, 64 << 10];

/// Which NTT implementation a plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
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
    /// the next one's column pass.
    TwoDPipelined,
}

impl NttKernel {
    /// Every concrete kernel (all but [`NttKernel::Auto`]).
    pub const ALL: [NttKernel; 4] =
        [NttKernel::Radix2Global, NttKernel::Tiled, NttKernel::TwoD, NttKernel::TwoDPipelined];

    /// A short name for tables and the command line.
    pub fn name(self) -> &'static str {
        match self {
            NttKernel::Auto => "auto",
            NttKernel::Radix2Global => "radix2-global",
            NttKernel::Tiled => "tiled",
            NttKernel::TwoD => "2d",
            NttKernel::TwoDPipelined => "2d-pipelined",
        }
    }
}

/// How a plan computes: which NTT kernel, which modular reduction, which
/// shared-memory tile and radix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
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
    /// plan multiplies only: [`NttPlan::forward`] and [`NttPlan::inverse`]
    /// return [`Error::FusedPlanTransform`]. Needs N ≥ 4.
    pub fused_polymul: bool,
}

/// A negacyclic NTT of size N modulo q on one GPU.
///
/// ```no_run
/// use polymul::{Gpu, NttParams, NttPlan};
/// let gpu = Gpu::new()?;
/// let plan = NttPlan::new(&gpu, NttParams::<u64>::with_prime_bits(1 << 12, 62)?)?;
/// let q = plan.params().q();
/// let a: Vec<u64> = (0..1 << 12).map(|i| i as u64 % q).collect();
/// let b = a.clone();
/// let c = plan.polymul(&a, &b)?; // a·b mod (X^N + 1, q)
/// # Ok::<(), polymul::Error>(())
/// ```
pub struct NttPlan<'g, W: Coeff> {
    gpu: &'g Gpu,
    /// The fused Hadamard kernel of a fused-polymul plan.
    fused: Option<cust::function::Function<'g>>,
    pipeline: Option<Pipeline>,
    /// `log2` of the radix asked for, `None` = by the measured rule.
    log_radix: Option<u32>,
    params: NttParams<W>,
    twiddles: DevicePrepared<W>,
    inv_twiddles: DevicePrepared<W>,
    kernels: Radix2Kernels<'g>,
    /// The shared-memory kernels for each largest radix 2, 4, 8, 16.
    tiled: Vec<TiledKernels<'g>>,
    /// Usable tile geometries of the tiled kernel, smallest tile first.
    geometries: Vec<TileGeometry>,
    /// Usable 2D geometries, smallest tile first.
    geometries_2d: Vec<TileGeometry>,
    options: PlanOptions,
}

impl<W: Coeff> std::fmt::Debug for NttPlan<'_, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NttPlan")
            .field("n", &self.params.n())
            .field("q", &self.params.q())
            .field("word_bits", &W::BITS)
            .field("options", &self.options)
            .finish()
    }
}

impl<'g, W: Coeff> NttPlan<'g, W> {
    /// Uploads the twiddles and prepares the kernels for `params`, with the
    /// default options.
    pub fn new(gpu: &'g Gpu, params: NttParams<W>) -> Result<Self> {
        Self::with_options(gpu, params, PlanOptions::default())
    }

    /// As [`NttPlan::new`], with an explicit kernel and reduction. Errors if
    /// the reduction refuses `q` (e.g. a 62-bit q with Dhem–Quisquater).
    pub fn with_options(gpu: &'g Gpu, params: NttParams<W>, options: PlanOptions) -> Result<Self> {
        let r = options.reduction;
        if options.fused_polymul && params.log_n() < 2 {
            return Err(Error::InvalidN { n: params.n(), min: 4, max: 1 << 30 });
        }
        // A fused plan's truncated transforms and fused step read only the
        // first half of each table (stages below log N − 1).
        let len = if options.fused_polymul { params.n() / 2 } else { params.n() };
        let twiddles =
            DevicePrepared::upload(gpu, &Prepared::new(r, params.q(), &params.twiddles()[..len])?)?;
        let inv_twiddles =
            DevicePrepared::upload(gpu, &Prepared::new(r, params.q(), &params.inv_twiddles()[..len])?)?;
        let fused = if options.fused_polymul { Some(launch::fused_kernel::<W>(gpu, r)?) } else { None };
        let kernels = Radix2Kernels::new::<W>(gpu, r)?;
        let w = std::mem::size_of::<W>();
        let max = gpu.info().max_shared_per_block;
        // The tile sizes this plan may use: the one asked for, or the
        // automatic candidates (see `PlanOptions::tile_bytes`).
        let log_radix = match options.radix {
            None => None,
            Some(r @ (2 | 4 | 8 | 16)) => Some(r.trailing_zeros()),
            Some(radix) => return Err(Error::BadRadix { radix }),
        };
        let two_d = matches!(options.kernel, NttKernel::TwoD | NttKernel::TwoDPipelined);
        let candidates: Vec<usize> = match options.tile_bytes {
            Some(b) => {
                let padded = polymul_kernels::smem::padded_words(b / w, w) * w;
                if !b.is_power_of_two() || b < 2 * w || padded > max {
                    return Err(Error::BadTile { bytes: b, min: 2 * w, max });
                }
                vec![b]
            }
            None => AUTO_TILES
                .iter()
                .copied()
                .filter(|&b| polymul_kernels::smem::padded_words(b / w, w) * w <= max)
                .collect(),
        };
        let geometries_for = |two_d: bool| -> (Vec<TileGeometry>, Option<Error>) {
            let (mut out, mut refusal) = (Vec::new(), None);
            for &b in &candidates {
                let log_tile = (b / w).trailing_zeros();
                let geo = if two_d {
                    crate::cpu::geometry_2d(params.log_n(), log_tile)
                } else {
                    crate::cpu::tile_geometry(params.log_n(), log_tile)
                };
                match geo {
                    Ok(g) if !out.contains(&g) => out.push(g),
                    Ok(_) => {}
                    Err(e) => refusal = Some(e),
                }
            }
            (out, refusal)
        };
        let (geometries, refusal) = geometries_for(false);
        let (geometries_2d, refusal_2d) = geometries_for(true);
        let (needed, refusal) = if two_d { (&geometries_2d, refusal_2d) } else { (&geometries, refusal) };
        let Some(largest) = needed.last().map(|g: &TileGeometry| (1usize << g.log_tile) * w) else {
            // Not even the largest tile covers N in two passes (or none fits the device).
            return Err(refusal.unwrap_or(Error::BadTile {
                bytes: polymul_kernels::TILE_BYTES,
                min: 2 * w,
                max,
            }));
        };
        let largest = geometries_2d.last().map_or(largest, |g| largest.max((1usize << g.log_tile) * w));
        let tiled =
            (1..=4).map(|lr| TiledKernels::new::<W>(gpu, r, lr, largest)).collect::<Result<Vec<_>>>()?;
        let pipeline = match options.kernel {
            NttKernel::TwoDPipelined => Some(Pipeline::new(gpu)?),
            _ => None,
        };
        Ok(Self {
            gpu,
            fused,
            pipeline,
            log_radix,
            params,
            twiddles,
            inv_twiddles,
            kernels,
            tiled,
            geometries,
            geometries_2d,
            options,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &NttParams<W> {
        &self.params
    }

    /// The kernel and reduction this plan runs.
    pub fn options(&self) -> PlanOptions {
        self.options
    }

    /// The GPU this plan runs on.
    pub fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    /// Validates host coefficients (a positive multiple of N, all `< q`) and
    /// uploads them.
    pub fn upload(&self, coeffs: &[W]) -> Result<DeviceVec<W>> {
        self.params.check_batch("coeffs", coeffs)?;
        self.gpu.upload(coeffs)
    }

    fn batch_of(&self, what: &'static str, v: &DeviceVec<W>) -> Result<usize> {
        let n = self.params.n();
        if v.is_empty() || !v.len().is_multiple_of(n) {
            return Err(Error::NotAMultipleOfN { what, got: v.len(), n });
        }
        let batch = v.len() / n;
        self.params.check_batch_size(batch)?;
        Ok(batch)
    }

    /// Queues the forward NTT (normal order in, bit-reversed out) of every
    /// polynomial in `data`. Coefficients must be reduced (as [`NttPlan::upload`]
    /// guarantees).
    pub fn forward(&self, data: &mut DeviceVec<W>) -> Result<()> {
        self.whole(Direction::Forward, data)
    }

    fn whole(&self, dir: Direction, data: &mut DeviceVec<W>) -> Result<()> {
        if self.options.fused_polymul {
            return Err(Error::FusedPlanTransform);
        }
        self.transform(dir, data, self.params.log_n())
    }

    /// Device bytes of the plan's twiddle tables (forward and inverse, main
    /// and auxiliary words): half as many for a fused-polymul plan.
    pub fn twiddle_bytes(&self) -> usize {
        self.twiddles.bytes() + self.inv_twiddles.bytes()
    }

    /// Queues the inverse NTT (bit-reversed in, normal out, scaled by `1/N`).
    pub fn inverse(&self, data: &mut DeviceVec<W>) -> Result<()> {
        self.whole(Direction::Inverse, data)
    }

    /// The kernel that runs a forward transform of `batch` polynomials: the
    /// one asked for, or for [`NttKernel::Auto`] the rule measured on an
    /// H200 ([`auto_kernel`]).
    pub fn kernel_for(&self, batch: usize) -> NttKernel {
        self.kernel_for_dir(batch, false)
    }

    /// [`NttPlan::kernel_for`] for the inverse transform (the rule differs:
    /// the inverse's extra `½` corrections change which kernel wins).
    pub fn inverse_kernel_for(&self, batch: usize) -> NttKernel {
        self.kernel_for_dir(batch, true)
    }

    fn kernel_for_dir(&self, batch: usize, inverse: bool) -> NttKernel {
        match self.options.kernel {
            NttKernel::Auto => {
                let batched = is_batched(self.params.n(), batch);
                let k = auto_kernel(W::BITS, self.params.log_n(), batched, inverse);
                if k == NttKernel::TwoD && self.geometries_2d.is_empty() { NttKernel::Tiled } else { k }
            }
            k => k,
        }
    }

    /// The largest radix of the shared-memory steps of a forward transform
    /// of `batch` polynomials: the one asked for, or the measured rule's
    /// ([`auto_radix`]).
    pub fn radix_for(&self, batch: usize) -> usize {
        1 << self.log_radix_for(batch, false)
    }

    fn log_radix_for(&self, batch: usize, inverse: bool) -> u32 {
        let n = self.params.n();
        self.log_radix.unwrap_or_else(|| {
            let k = self.kernel_for_dir(batch, inverse);
            auto_radix(k, W::BITS, self.params.log_n(), is_batched(n, batch), inverse)
        })
    }

    /// The tile geometry a kernel uses for a batch: the largest candidate
    /// tile that still launches at least two blocks per SM, else the
    /// smallest.
    fn tile_for(&self, kernel: NttKernel, batch: usize) -> TileGeometry {
        let geos = match kernel {
            NttKernel::TwoD | NttKernel::TwoDPipelined => &self.geometries_2d,
            _ => &self.geometries,
        };
        // Pipelined launches are one polynomial each.
        let batch = if kernel == NttKernel::TwoDPipelined { 1 } else { batch };
        let want = 2 * self.gpu.info().multiprocessors.max(1) as usize;
        let first = geos[0];
        geos.iter().rev().copied().find(|g| batch * g.blocks_per_poly() >= want).unwrap_or(first)
    }

    /// How many passes over global memory one transform of a `batch` makes:
    /// `log N` for the radix-2 kernel, 1 or 2 for the shared-memory kernels.
    pub fn global_passes(&self, batch: usize) -> u32 {
        match self.kernel_for(batch) {
            NttKernel::Radix2Global => self.params.log_n(),
            k => 1 + u32::from(self.tile_for(k, batch).l1 > 0),
        }
    }

    /// The tile geometry (tile size and split) a batch runs with, `None`
    /// for the radix-2 kernel.
    pub fn geometry_for(&self, batch: usize) -> Option<TileGeometry> {
        match self.kernel_for(batch) {
            NttKernel::Radix2Global => None,
            k => Some(self.tile_for(k, batch)),
        }
    }

    /// Runs stages `0..stop` of a transform (`stop = log N`: the whole one).
    fn transform(&self, dir: Direction, data: &mut DeviceVec<W>, stop: u32) -> Result<()> {
        let batch = self.batch_of("data", data)?;
        let twiddles = match dir {
            Direction::Forward => &self.twiddles,
            Direction::Inverse => &self.inv_twiddles,
        };
        let inverse = dir == Direction::Inverse;
        let kernel = self.kernel_for_dir(batch, inverse);
        let log_radix = self.log_radix_for(batch, inverse);
        let tiled = &self.tiled[(log_radix - 1) as usize];
        let cfg = |k| TiledLaunch {
            geo: self.tile_for(k, batch),
            log_radix,
            direct: !self.options.shared_only,
            stop,
        };
        match (kernel, &self.pipeline) {
            (NttKernel::Radix2Global, _) => launch::radix2_ntt(
                self.gpu,
                &self.kernels,
                dir,
                data,
                twiddles,
                batch,
                self.params.log_n(),
                stop,
            ),
            (NttKernel::TwoDPipelined, Some(pipe)) => {
                let c = cfg(kernel);
                launch::tiled_ntt_pipelined(self.gpu, tiled, dir, data, twiddles, batch, &c, pipe)
            }
            (k, _) => launch::tiled_ntt(self.gpu, tiled, dir, data, twiddles, batch, &cfg(k)),
        }
    }

    /// Queues `acc ← acc ⊙ other` (element-wise product mod q).
    pub fn pointwise_mul(&self, acc: &mut DeviceVec<W>, other: &DeviceVec<W>) -> Result<()> {
        self.batch_of("acc", acc)?;
        if other.len() != acc.len() {
            return Err(Error::LengthMismatch { what: "other", got: other.len(), expected: acc.len() });
        }
        launch::pointwise_mul(self.gpu, &self.kernels, acc, other, acc.len(), self.params.barrett())
    }

    /// Queues `a ← a ⊗ b` (negacyclic product of each pair); `b` is left in
    /// the NTT domain.
    pub fn polymul_in_place(&self, a: &mut DeviceVec<W>, b: &mut DeviceVec<W>) -> Result<()> {
        if a.len() != b.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        if let Some(f) = &self.fused {
            // Algorithm 8: truncated forward transforms, the fused step,
            // truncated inverse.
            let (log_n, batch) = (self.params.log_n(), self.batch_of("a", a)?);
            self.transform(Direction::Forward, a, log_n - 1)?;
            self.transform(Direction::Forward, b, log_n - 1)?;
            launch::fused_hadamard(self.gpu, f, a, b, &self.twiddles, batch, log_n, self.params.barrett())?;
            return self.transform(Direction::Inverse, a, log_n - 1);
        }
        self.forward(a)?;
        self.forward(b)?;
        self.pointwise_mul(a, b)?;
        self.inverse(a)
    }

    /// Negacyclic product of each pair of polynomials in `a` and `b` (host in,
    /// host out; one or many polynomials back to back).
    pub fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        if a.len() != b.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        let mut da = self.upload(a)?;
        let mut db = self.upload(b)?;
        self.polymul_in_place(&mut da, &mut db)?;
        self.gpu.download(&da)
    }

    /// Forward NTT of host data (convenience for tests and tools).
    pub fn forward_host(&self, a: &[W]) -> Result<Vec<W>> {
        let mut d = self.upload(a)?;
        self.forward(&mut d)?;
        self.gpu.download(&d)
    }

    /// Inverse NTT of host data.
    pub fn inverse_host(&self, a: &[W]) -> Result<Vec<W>> {
        let mut d = self.upload(a)?;
        self.inverse(&mut d)?;
        self.gpu.download(&d)
    }
}

/// Whether a call on `batch` polynomials of `n` words counts as batched for
/// the automatic rules: at least 2^20 words, enough to give every SM of a
/// large GPU several blocks. (The rules were measured at one polynomial and
/// at 2^25 words; `polymul tune` (issue 7) will measure the sizes between.)
pub fn is_batched(n: usize, batch: usize) -> bool {
    n.saturating_mul(batch) >= 1 << 20
}

/// The kernel [`NttKernel::Auto`] runs for `N = 2^log_n` on `word_bits`
/// words, single or batched, forward or inverse: the fastest in the H200
/// sweep with prebuilt SASS (docs/results/2026-11-22-nvidia-h200-ntt-family-sass).
/// Batched forward transforms of large N take the 2D split (its balanced
/// passes beat the tiled kernel's long contiguous pass); small N fit one
/// tile; batched inverse transforms (two `½` corrections per butterfly, more
/// registers) are fastest in the tiled kernel at every N; a single polynomial
/// is latency-bound and takes the tiled kernel (the 2D one for 32-bit words
/// from N = 2^11).
pub fn auto_kernel(word_bits: u32, log_n: u32, batched: bool, inverse: bool) -> NttKernel {
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
