//! Plans: parameters and twiddles resident on a GPU, created once and
//! executed many times (cuFFT's plan/exec split, concrete-ntt's `Plan`).

use crate::gpu::launch::{self, Direction, Radix2Kernels, TiledKernels};
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
    /// Radix-2, one launch per stage, coefficients in global memory: the
    /// baseline every other kernel is measured against.
    Radix2Global,
    /// Shared memory like [`NttKernel::Tiled`], but one stage per
    /// shared-memory round trip (radix-2): the "SM" step of Table III.
    TiledRadix2,
    /// Shared memory: one block per polynomial runs every stage when a
    /// polynomial fits in a tile (see [`PlanOptions::tile_bytes`]; the
    /// paper's LOS-NTT); larger N take two passes, a strided one for the
    /// first stages and a contiguous one for the rest (LOM). Batches are one
    /// launch per pass. Stages go two at a time: each thread keeps a radix-4
    /// unit's four words in registers between them.
    #[default]
    Tiled,
}

/// How a plan computes: which NTT kernel, which modular reduction, which
/// shared-memory tile.
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
    /// else 8 KiB — big tiles (fewer passes) for batches, small tiles (more
    /// blocks in flight) for a single polynomial.
    pub tile_bytes: Option<usize>,
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
    params: NttParams<W>,
    twiddles: DevicePrepared<W>,
    inv_twiddles: DevicePrepared<W>,
    kernels: Radix2Kernels<'g>,
    tiled: TiledKernels<'g>,
    /// Usable tile geometries, smallest tile first.
    geometries: Vec<TileGeometry>,
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
        let twiddles = DevicePrepared::upload(gpu, &Prepared::new(r, params.q(), params.twiddles())?)?;
        let inv_twiddles =
            DevicePrepared::upload(gpu, &Prepared::new(r, params.q(), params.inv_twiddles())?)?;
        let kernels = Radix2Kernels::new::<W>(gpu, r)?;
        let w = std::mem::size_of::<W>();
        let max = gpu.info().max_shared_per_block;
        // The tile sizes this plan may use: the one asked for, or the
        // automatic candidates (see `PlanOptions::tile_bytes`).
        let candidates: Vec<usize> = match options.tile_bytes {
            Some(b) => {
                if !b.is_power_of_two() || b < 2 * w || b > max {
                    return Err(Error::BadTile { bytes: b, min: 2 * w, max });
                }
                vec![b]
            }
            None => AUTO_TILES.iter().copied().filter(|&b| b <= max).collect(),
        };
        let (mut geometries, mut refusal) = (Vec::new(), None);
        for &b in &candidates {
            match crate::cpu::tile_geometry(params.log_n(), (b / w).trailing_zeros()) {
                Ok(g) => geometries.push(g),
                Err(e) => refusal = Some(e),
            }
        }
        let Some(largest) = geometries.last().map(|g: &TileGeometry| (1usize << g.log_tile) * w) else {
            // Not even the largest tile covers N in two passes (or none fits the device).
            return Err(refusal.unwrap_or(Error::BadTile {
                bytes: polymul_kernels::TILE_BYTES,
                min: 2 * w,
                max,
            }));
        };
        let tiled = TiledKernels::new::<W>(gpu, r, largest)?;
        Ok(Self { gpu, params, twiddles, inv_twiddles, kernels, tiled, geometries, options })
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
        self.transform(Direction::Forward, data)
    }

    /// Queues the inverse NTT (bit-reversed in, normal out, scaled by `1/N`).
    pub fn inverse(&self, data: &mut DeviceVec<W>) -> Result<()> {
        self.transform(Direction::Inverse, data)
    }

    /// The tile geometry for a batch: the largest candidate tile that still
    /// launches at least two blocks per SM, else the smallest.
    fn tile_for(&self, batch: usize) -> TileGeometry {
        let want = 2 * self.gpu.info().multiprocessors.max(1) as usize;
        let first = self.geometries[0];
        self.geometries.iter().rev().copied().find(|g| batch * g.blocks_per_poly() >= want).unwrap_or(first)
    }

    /// How many passes over global memory one transform of a `batch` makes:
    /// `log N` for the radix-2 kernel, 1 or 2 for the tiled kernels.
    pub fn global_passes(&self, batch: usize) -> u32 {
        match self.options.kernel {
            NttKernel::Radix2Global => self.params.log_n(),
            _ => 1 + u32::from(self.tile_for(batch).l1 > 0),
        }
    }

    /// The tile geometries this plan chooses from (one when a tile size was
    /// requested), smallest tile first.
    pub fn tile_geometries(&self) -> &[TileGeometry] {
        &self.geometries
    }

    fn transform(&self, dir: Direction, data: &mut DeviceVec<W>) -> Result<()> {
        let batch = self.batch_of("data", data)?;
        let twiddles = match dir {
            Direction::Forward => &self.twiddles,
            Direction::Inverse => &self.inv_twiddles,
        };
        match self.options.kernel {
            NttKernel::Radix2Global => {
                launch::radix2_ntt(self.gpu, &self.kernels, dir, data, twiddles, batch, self.params.log_n())
            }
            NttKernel::Tiled | NttKernel::TiledRadix2 => {
                let pairs = self.options.kernel == NttKernel::Tiled;
                let geo = self.tile_for(batch);
                launch::tiled_ntt(self.gpu, &self.tiled, dir, data, twiddles, batch, &geo, pairs)
            }
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
