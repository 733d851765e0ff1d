//! RNS polymul on a GPU: every tower in one launch per step.

use super::RnsBasis;
use super::convert::{CrtChoice, DeviceConvert, DeviceLimbs};
use crate::gpu::split;
use crate::gpu::{DeviceView, Gpu};
use crate::plan::{NttEngine, NttKernel, PlanOptions};
use crate::{Coeff, DevicePlan, Error, Product, Result};
use num_bigint::BigUint;

/// Negacyclic polymul modulo `Q` on a GPU for the towers of an
/// [`RnsBasis`]: the twiddles and constants of every tower are resident on
/// the device, and each step of a polymul (a transform pass, the pointwise or
/// fused product) is **one launch over all towers** — the towers are the
/// grid's second dimension — instead of one launch per tower.
///
/// Data is tower-major: tower 0's `batch · N` residues, then tower 1's, …
/// (the layout of [`RnsBasis::to_residues`]).
///
/// ```no_run
/// use polymul::prelude::*;
/// use polymul::{Gpu, rns::{RnsBasis, RnsPlan}};
/// let gpu = Gpu::new()?;
/// let basis = RnsBasis::<u64>::new(1 << 12, 62, 4)?;
/// let plan = RnsPlan::new(&gpu, &basis)?;
/// let a = vec![0u64; 4 << 12]; // one polynomial: 4 towers of N residues
/// let c = plan.polymul(&a, &a)?;
/// # Ok::<(), polymul::Error>(())
/// ```
pub struct RnsPlan<W: Coeff> {
    engine: NttEngine<W>,
    basis: RnsBasis<W>,
    gpu: Gpu,
    /// The limb conversion kernels and their tables.
    conv: DeviceConvert<W>,
}

impl<W: Coeff> std::fmt::Debug for RnsPlan<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RnsPlan")
            .field("n", &self.basis.n())
            .field("towers", &self.basis.len())
            .field("options", &self.engine.options)
            .finish_non_exhaustive()
    }
}

impl<W: Coeff> RnsPlan<W> {
    /// A plan over every tower of `basis`, default options.
    pub fn new(gpu: &Gpu, basis: &RnsBasis<W>) -> Result<Self> {
        Self::with_options(gpu, basis, PlanOptions::default())
    }

    /// A plan with explicit options (kernel, reduction, fused polymul, …).
    /// Errors as [`crate::NttPlan::with_options`] for any tower, or
    /// [`Error::TooManyTowers`](crate::Error::TooManyTowers).
    pub fn with_options(gpu: &Gpu, basis: &RnsBasis<W>, options: PlanOptions) -> Result<Self> {
        // Row twiddles from tables unless asked otherwise: computed ones
        // measured slower for RNS products (`RowTwiddles::Auto`).
        let engine = NttEngine::new(gpu, basis.towers(), options, crate::plan::RowTwiddles::Tables)?;
        let conv = DeviceConvert::new(gpu, basis)?;
        Ok(Self { engine, basis: basis.clone(), gpu: gpu.clone(), conv })
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
    pub fn capture<S: crate::GraphState>(
        &self,
        state: S,
        work: fn(&Self, &mut S) -> Result<()>,
    ) -> Result<crate::Graph<'_, S>> {
        crate::gpu::graph::capture(self.engine.queue(), self, state, work)
    }

    /// The basis.
    pub fn basis(&self) -> &RnsBasis<W> {
        &self.basis
    }

    /// The options.
    pub fn options(&self) -> PlanOptions {
        self.engine.options
    }

    /// Device bytes of the twiddle tables of all towers.
    pub fn twiddle_bytes(&self) -> usize {
        self.engine.twiddle_bytes()
    }

    /// The kernel a forward transform of `batch` polynomials (per tower)
    /// runs; the automatic rule counts `batch · towers` polynomials.
    pub fn kernel_for(&self, batch: usize) -> NttKernel {
        self.engine.kernel_for_dir(batch, false)
    }

    /// The kernel an inverse transform of `batch` polynomials (per tower)
    /// runs.
    pub fn inverse_kernel_for(&self, batch: usize) -> NttKernel {
        self.engine.kernel_for_dir(batch, true)
    }

    /// Global-memory passes of one transform of `batch` polynomials per
    /// tower (as [`crate::NttPlan::global_passes`]).
    pub fn global_passes(&self, batch: usize) -> u32 {
        self.engine.global_passes(batch)
    }

    /// Kernel launches of one tensor product of `ciphertexts` ciphertexts
    /// per tower (`tensor_in_place`): both forwards paired, then the
    /// inverse, whose first pass reads the products itself where the plan
    /// has that kernel (N = 2^16), else a tensor launch before it.
    pub fn tensor_launches(&self, ciphertexts: usize) -> u32 {
        self.engine.tensor_launches(ciphertexts)
    }

    /// Validates coefficient-major limbs ([`RnsBasis::check_limbs`]: a
    /// positive multiple of `N · L` words, every coefficient below `Q`) and
    /// uploads them.
    ///
    /// # Errors
    /// Those of [`RnsBasis::check_limbs`], then
    /// [`Error::OutOfDeviceMemory`](crate::Error::OutOfDeviceMemory).
    pub fn upload_limbs(&self, limbs: &[u64]) -> Result<DeviceLimbs> {
        let batch = self.basis.check_limbs("limbs", limbs)?;
        self.stage_limbs(limbs, batch, self.basis.limbs())
    }

    /// Uploads validated limbs of `batch` polynomials of `l` limbs per
    /// coefficient (this plan's, or a multi-device plan's whole basis's)
    /// through the GPU's pinned staging memory (every core copies; the bus
    /// copies overlap).
    pub(crate) fn stage_limbs(&self, limbs: &[u64], batch: usize, l: usize) -> Result<DeviceLimbs> {
        let mut data = self.gpu.zeros(limbs.len())?;
        self.gpu.staging().upload(&self.engine.queue(), limbs, &mut data)?;
        Ok(DeviceLimbs { data, n: self.basis.n(), l, batch, ordinal: self.gpu.info().ordinal })
    }

    /// `batch` zero polynomials of `l` limbs per coefficient on this plan's
    /// GPU ([`RnsPlan::zeros_limbs`] with another `L`).
    pub(crate) fn zeros_limbs_of(&self, batch: usize, l: usize) -> Result<DeviceLimbs> {
        crate::params::check_batch_size(self.basis.n(), batch)?;
        let data = self.gpu.zeros(batch * self.basis.n() * l)?;
        Ok(DeviceLimbs { data, n: self.basis.n(), l, batch, ordinal: self.gpu.info().ordinal })
    }

    /// Where this plan queues its work.
    pub(crate) fn queue(&self) -> crate::gpu::launch::Queue<'_> {
        self.engine.queue()
    }

    /// A device limb buffer of `batch` zero polynomials (`batch · N · L`
    /// words).
    ///
    /// # Errors
    /// [`Error::NotAMultipleOfN`](crate::Error::NotAMultipleOfN) for
    /// `batch = 0`, [`Error::BatchTooLarge`](crate::Error::BatchTooLarge),
    /// [`Error::OutOfDeviceMemory`](crate::Error::OutOfDeviceMemory).
    pub fn zeros_limbs(&self, batch: usize) -> Result<DeviceLimbs> {
        self.zeros_limbs_of(batch, self.basis.limbs())
    }

    /// Copies device limbs back (after the work queued on this plan's
    /// stream).
    ///
    /// # Errors
    /// [`Error::WrongDevice`](crate::Error::WrongDevice) for limbs of
    /// another GPU; device errors.
    pub fn download_limbs(&self, limbs: &DeviceLimbs) -> Result<Vec<u64>> {
        let expected = self.gpu.info().ordinal;
        if limbs.ordinal != expected {
            return Err(Error::WrongDevice { what: "limbs", on: limbs.ordinal, expected });
        }
        self.gpu.staging().download(&self.engine.queue(), &limbs.data)
    }

    /// `limbs` of this plan's shape (N and L) on this plan's GPU, or
    /// [`Error::LimbsMismatch`](crate::Error::LimbsMismatch),
    /// [`Error::WrongDevice`](crate::Error::WrongDevice).
    fn check_device_limbs(&self, what: &'static str, limbs: &DeviceLimbs) -> Result<()> {
        let (plan_n, plan_limbs) = (self.basis.n(), self.basis.limbs());
        if (limbs.n, limbs.l) != (plan_n, plan_limbs) {
            return Err(Error::LimbsMismatch { what, limbs: limbs.l, n: limbs.n, plan_limbs, plan_n });
        }
        let expected = self.gpu.info().ordinal;
        if limbs.ordinal != expected {
            return Err(Error::WrongDevice { what, on: limbs.ordinal, expected });
        }
        Ok(())
    }

    /// Residues and limbs of the same batch, each of this plan's shape.
    fn check_pair(&self, limbs: &DeviceLimbs, residues: &DeviceView<W>) -> Result<()> {
        self.check_device_limbs("limbs", limbs)?;
        self.gpu.check_operand(self, "limbs", &limbs.data)?;
        self.gpu.check_operand(self, "residues", residues)?;
        let batch = self.engine.batch_of("residues", residues)?;
        if batch != limbs.batch {
            let expected = limbs.batch * self.basis.n() * self.basis.len();
            return Err(Error::LengthMismatch { what: "residues", got: residues.len(), expected });
        }
        Ok(())
    }

    /// Queues the RNS decomposition of device limbs into tower-major
    /// residues (`residues` from [`RnsPlan::zeros`] or
    /// [`RnsPlan::upload`] with the same batch): one launch, one thread per
    /// coefficient computing every tower's residue
    /// (`polymul_kernels::rns::decompose`). Bit for bit
    /// [`RnsBasis::decompose`]. Device limbs are not checked against `Q`
    /// (the kernel gives the residues of the integer the limbs spell);
    /// [`RnsPlan::upload_limbs`] checks host limbs.
    ///
    /// # Errors
    /// [`Error::LimbsMismatch`](crate::Error::LimbsMismatch),
    /// or
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) (another
    /// batch), [`Error::ConversionTooLarge`](crate::Error::ConversionTooLarge),
    /// a launch error.
    pub fn decompose(&self, limbs: &DeviceLimbs, residues: &mut DeviceView<W>) -> Result<()> {
        self.check_pair(limbs, residues)?;
        let count = limbs.batch * limbs.n;
        self.conv.decompose(&self.engine.queue(), &self.basis.conv, &limbs.data, count, residues)
    }

    /// Queues the CRT reconstruction of tower-major residues (each below
    /// its prime: a plan's buffers are) into limbs in `[0, Q)`: one
    /// launch, one thread per coefficient (`polymul_kernels::rns::crt`)
    /// below 32 limbs, each coefficient's limbs split over several threads
    /// (`polymul_kernels::rns::crt_cols`) from 32 ([`CrtChoice::Auto`]).
    /// Bit for bit [`RnsBasis::reconstruct`].
    ///
    /// # Errors
    /// As [`RnsPlan::decompose`].
    pub fn reconstruct(&self, residues: &DeviceView<W>, limbs: &mut DeviceLimbs) -> Result<()> {
        self.reconstruct_with(CrtChoice::Auto, residues, limbs)
    }

    /// [`RnsPlan::reconstruct`] with the CRT kernel `choice` forces (expert:
    /// for benchmarks and checks; every choice gives the same limbs).
    ///
    /// # Errors
    /// As [`RnsPlan::decompose`]; [`Error::ConversionTooLarge`] where the
    /// chosen kernel's blocks do not fit.
    pub fn reconstruct_with(
        &self,
        choice: CrtChoice,
        residues: &DeviceView<W>,
        limbs: &mut DeviceLimbs,
    ) -> Result<()> {
        self.check_pair(limbs, residues)?;
        let count = limbs.batch * limbs.n;
        self.conv.reconstruct(
            &self.engine.queue(),
            &self.basis.conv,
            residues,
            count,
            &mut limbs.data,
            choice,
        )
    }

    /// Queues `out ← a ⊗ b mod Q` on device limbs: both decomposed into
    /// the residue buffers `ra` and `rb` (scratch of the same batch, from
    /// [`RnsPlan::zeros`]; clobbered), multiplied tower by tower in one
    /// launch per step, reconstructed into `out`. Nothing leaves the
    /// device; `out` may not be `a` or `b` (the borrow checker says so).
    ///
    /// # Errors
    /// As [`RnsPlan::decompose`] for each operand, and
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch) for operands
    /// of different batches.
    pub fn polymul_limbs_into(
        &self,
        a: &DeviceLimbs,
        b: &DeviceLimbs,
        out: &mut DeviceLimbs,
        ra: &mut DeviceView<W>,
        rb: &mut DeviceView<W>,
    ) -> Result<()> {
        for (what, x) in [("b", b), ("out", &*out)] {
            self.check_device_limbs(what, x)?;
            if x.len() != a.len() {
                return Err(Error::LengthMismatch { what, got: x.len(), expected: a.len() });
            }
        }
        self.decompose(a, ra)?;
        self.decompose(b, rb)?;
        self.polymul_in_place(ra, rb)?;
        self.reconstruct(ra, out)
    }

    /// Negacyclic products modulo `Q` of limb-encoded polynomials (host
    /// limbs in, host limbs out; the layout of [`RnsBasis::limbs`]: `batch
    /// · N · L` words, coefficient-major, every coefficient below `Q`):
    /// upload, decomposition, the RNS product, CRT reconstruction and
    /// download, all conversions on the GPU.
    ///
    /// # Errors
    /// Those of [`RnsBasis::check_limbs`] for `a` and `b`
    /// ([`Error::LengthMismatch`](crate::Error::LengthMismatch) if their
    /// lengths differ), [`Error::ConversionTooLarge`](crate::Error::ConversionTooLarge),
    /// device errors.
    ///
    /// Any batch: one above the launch limit or the device's free memory
    /// runs in pieces of polynomials, one after the other (each piece's
    /// copies pipelined through pinned memory), with the words of the
    /// unsplit call; out of memory, the pieces shrink down to one
    /// polynomial (or 1 MiB of limbs and residues, where polynomials are
    /// smaller) before the error is returned.
    pub fn polymul_limbs(&self, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
        if a.len() != b.len() {
            self.basis.check_limbs_any("a", a)?;
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        let batch = self.basis.check_limbs_any("a", a)?;
        self.basis.check_limbs_any("b", b)?;
        let (n, l, w) = (self.basis.n(), self.basis.limbs(), std::mem::size_of::<W>());
        let q = self.engine.queue();
        let limits = split::Limits {
            max_batch: crate::params::max_batch(n),
            // Limbs of both operands and their residues.
            poly_bytes: n * l * 8 + self.basis.len() * n * w,
            whole_buffers: 2,
            piece_buffers: 2,
            budget: split::budget(&q)?,
            target: 0,
        };
        let floor = split::min_piece(limits.poly_bytes);
        let mut pieces = split::Pieces::plan(batch, &limits);
        if pieces.is_whole() {
            match self.limbs_piece(a, b, batch) {
                Err(e @ Error::OutOfDeviceMemory { .. }) => match pieces.shrunk(0, floor) {
                    Some(p) => pieces = p,
                    None => return Err(e),
                },
                r => return r,
            }
        }
        let per = n * l;
        let mut out = vec![0u64; a.len()];
        let mut start = 0;
        while start < batch {
            let r = start..(start + pieces.piece()).min(batch);
            let words = r.start * per..r.end * per;
            match self.limbs_piece(&a[words.clone()], &b[words.clone()], r.len()) {
                Ok(c) => {
                    out[words].copy_from_slice(&c);
                    start = r.end;
                }
                Err(e @ Error::OutOfDeviceMemory { .. }) => match pieces.shrunk(start, floor) {
                    Some(p) => pieces = p,
                    None => return Err(e),
                },
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// [`RnsPlan::polymul_limbs`] of validated limbs of `batch` polynomials
    /// (at most one launch's), whole.
    fn limbs_piece(&self, a: &[u64], b: &[u64], batch: usize) -> Result<Vec<u64>> {
        let l = self.basis.limbs();
        let da = self.stage_limbs(a, batch, l)?;
        let mut db = self.stage_limbs(b, batch, l)?;
        let (mut ra, mut rb) = (self.zeros(batch)?, self.zeros(batch)?);
        self.decompose(&da, &mut ra)?;
        self.decompose(&db, &mut rb)?;
        self.polymul_in_place(&mut ra, &mut rb)?;
        self.reconstruct(&ra, &mut db)?;
        self.download_limbs(&db)
    }

    /// Negacyclic products modulo `Q` of big-integer polynomials (any
    /// number of whole polynomials, every coefficient below `Q`): the
    /// limbs ([`RnsBasis::to_limbs`]) through [`RnsPlan::polymul_limbs`],
    /// and back ([`RnsBasis::from_limbs`]).
    ///
    /// # Errors
    /// [`Error::NotAMultipleOfN`](crate::Error::NotAMultipleOfN),
    /// [`Error::BigCoefficientOutOfRange`](crate::Error::BigCoefficientOutOfRange),
    /// [`Error::LengthMismatch`](crate::Error::LengthMismatch), and those
    /// of [`RnsPlan::polymul_limbs`].
    pub fn polymul_big(&self, a: &[BigUint], b: &[BigUint]) -> Result<Vec<BigUint>> {
        let la = self.basis.to_limbs(a)?;
        if b.len() != a.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        let lb = self.basis.to_limbs(b)?;
        self.basis.from_limbs(&self.polymul_limbs(&la, &lb)?)
    }
}

crate::plan::engine_plan!(RnsPlan, "residues");
