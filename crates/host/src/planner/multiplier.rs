//! [`Multiplier`]: the plan the planner chose ([`super::decide`]), built
//! and held, on a GPU or on the CPU backend.

use super::{Choice, Decision, Modulus, Wisdom, decide, decide_without_wisdom, rule, wisdom_key};
use crate::cpu::CpuRnsPlan;
use crate::dgt::{DgtConfig, DgtParams, DgtPlan, dgt_primes};
use crate::gpu::{DeviceVec, DeviceView, Gpu, GpuStream};
use crate::params::ntt_primes;
use crate::plan::PlanOptions;
use crate::rns::{RnsBasis, RnsPlan};
use crate::{
    Backend, Coeff, DevicePlan, Error, NttParams, NttPlan, Plan, Product, Result, Tensor, Transform,
};

/// Negacyclic multiplication planned for a device: the transform chosen by
/// [`decide`], its plan built and kept behind [`DevicePlan`] (so a
/// `Multiplier` is used exactly as the plan it chose).
///
/// Wisdom is never read behind the caller's back: [`Multiplier::new`]
/// follows the [`rule`]; pass what `polymul tune` measured to
/// [`Multiplier::with_wisdom`] (e.g. [`Wisdom::load_default`]).
///
/// Without a GPU, [`Multiplier::cpu`] plans on the CPU backend
/// ([`CpuRnsPlan`]: the NTT, vectorised, over all cores) and
/// [`Multiplier::auto`] takes the GPU if there is one, else the CPU;
/// [`Plan::backend`] says which. The methods on host slices
/// ([`Plan::polymul`], and [`Product`] and [`Transform`] on `[W]`) work on
/// both and give the same words; those on device words (`upload`,
/// `forward` on a [`DeviceView`], …) return [`Error::NeedsGpu`] on the CPU
/// backend.
///
/// ```
/// use polymul::prelude::*;
/// use polymul::planner::{Modulus, Multiplier};
/// // The GPU if there is one, else the CPU backend.
/// let m = Multiplier::<u64>::auto(1 << 12, Modulus::Bits(62), 8, None)?;
/// eprintln!("polymul runs on {}", m.backend());
/// let a = vec![3u64; 8 << 12];
/// let c = m.polymul(&a, &a)?;
/// # Ok::<(), polymul::Error>(())
/// ```
pub struct Multiplier<W: Coeff> {
    plan: Chosen<W>,
    decision: Decision,
    primes: Vec<u64>,
    /// The basis of [`Multiplier::polymul_limbs`]'s CPU conversions, built
    /// on first use.
    limbs_basis: std::sync::OnceLock<RnsBasis<W>>,
}

/// What a [`Multiplier`] computes with: the plan it chose.
enum Chosen<W: Coeff> {
    /// The NTT on a GPU, one modulus.
    Ntt(NttPlan<W>),
    /// The NTT on a GPU, RNS towers.
    Rns(RnsPlan<W>),
    /// The DGT on a GPU.
    Dgt(DgtPlan<W>),
    /// The CPU backend (the NTT).
    Cpu(CpuRnsPlan<W>),
    /// The DGT's CPU code (a forced DGT decision on the CPU).
    CpuDgt(CpuDgt<W>),
}

/// Runs `$body` with `$p` bound to the chosen plan, whatever its kind.
macro_rules! any_plan {
    ($chosen:expr, $p:ident => $body:expr) => {
        match $chosen {
            Chosen::Ntt($p) => $body,
            Chosen::Rns($p) => $body,
            Chosen::Dgt($p) => $body,
            Chosen::Cpu($p) => $body,
            Chosen::CpuDgt($p) => $body,
        }
    };
}

/// Runs `$body` with `$p` bound to the chosen GPU plan, or returns
/// [`Error::NeedsGpu`] naming `$what` on the CPU backend.
macro_rules! gpu_plan {
    ($chosen:expr, $what:literal, $p:ident => $body:expr) => {
        match $chosen {
            Chosen::Ntt($p) => $body,
            Chosen::Rns($p) => $body,
            Chosen::Dgt($p) => $body,
            Chosen::Cpu(_) | Chosen::CpuDgt(_) => return Err(Error::NeedsGpu { what: $what }),
        }
    };
}

impl<W: Coeff> std::fmt::Debug for Multiplier<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Multiplier")
            .field("backend", &self.backend())
            .field("decision", &self.decision)
            .finish_non_exhaustive()
    }
}

impl<W: Coeff> Multiplier<W> {
    /// Plans by the [`rule`] (no wisdom).
    pub fn new(gpu: &Gpu, n: usize, modulus: Modulus, batch: usize) -> Result<Self> {
        Self::with_wisdom(gpu, n, modulus, batch, None)
    }

    /// Plans with the given wisdom (`None`: the rule).
    pub fn with_wisdom(
        gpu: &Gpu,
        n: usize,
        modulus: Modulus,
        batch: usize,
        wisdom: Option<&Wisdom>,
    ) -> Result<Self> {
        crate::params::check_n(n)?;
        let decision = decide(&wisdom_key::<W>(gpu, n, &modulus, batch), &modulus, n, wisdom);
        Self::with_decision(gpu, n, modulus, decision)
    }

    /// Plans a given decision (what `polymul tune` times, and what a caller
    /// that wants one transform forces), with the default [`PlanOptions`]:
    /// [`Multiplier::with_decision_and_options`].
    pub fn with_decision(gpu: &Gpu, n: usize, modulus: Modulus, decision: Decision) -> Result<Self> {
        Self::with_decision_and_options(gpu, n, modulus, decision, PlanOptions::default())
    }

    /// Plans a given decision with `options` (the kernel switches of
    /// [`crate::expert::PlanOptions`], e.g. a front end's developer
    /// switches). The decision's kernel and radix replace the options'
    /// `kernel` and `radix`; every other field applies to the NTT plans as
    /// given. For the DGT only `graph_cache` applies
    /// ([`DgtPlan::set_graph_cache`]).
    ///
    /// # Errors
    /// Those of the plan it builds ([`NttPlan::with_options`],
    /// [`RnsPlan::with_options`], [`DgtPlan::with_towers`]) and of its
    /// parameters: N, a prime the decision's transform does not accept, too
    /// wide for `W`, no prime, one twice, too many.
    pub fn with_decision_and_options(
        gpu: &Gpu,
        n: usize,
        modulus: Modulus,
        decision: Decision,
        options: PlanOptions,
    ) -> Result<Self> {
        let (plan, primes): (Chosen<W>, Vec<u64>) = match decision.choice {
            Choice::Ntt { kernel, radix } => {
                let options = PlanOptions { kernel, radix, ..options };
                let one = |q: u64| -> Result<(Chosen<W>, Vec<u64>)> {
                    Ok((Chosen::Ntt(NttPlan::with_options(gpu, NttParams::new(n, q)?, options)?), vec![q]))
                };
                let rns = |basis: RnsBasis<W>| -> Result<(Chosen<W>, Vec<u64>)> {
                    Ok((Chosen::Rns(RnsPlan::with_options(gpu, &basis, options)?), basis.primes()))
                };
                match modulus {
                    Modulus::Rns { bits, towers } => rns(RnsBasis::new(n, bits, towers)?)?,
                    Modulus::Primes(primes) if primes.len() != 1 => rns(RnsBasis::from_primes(n, &primes)?)?,
                    Modulus::Primes(primes) => one(primes[0])?,
                    Modulus::Prime(q) => one(q)?,
                    Modulus::Bits(b) => one(ntt_primes(b, n, 1)?[0])?,
                }
            }
            Choice::Dgt { config } => {
                let (params, primes) = dgt_towers(n, modulus)?;
                let mut plan = DgtPlan::with_towers(gpu, &params, config)?;
                // The default configuration is measured for one polynomial;
                // batches take the batched one (same stage split).
                let log_m = params[0].log_m();
                if config == DgtConfig::default_for(log_m) {
                    plan = plan.with_batched(DgtConfig::batched_for(log_m))?;
                }
                plan.set_graph_cache(options.graph_cache);
                (Chosen::Dgt(plan), primes)
            }
        };
        Ok(Self { plan, decision, primes, limbs_basis: Default::default() })
    }

    /// Plans on the CPU backend (no GPU needed): the NTT ([`rule`]'s
    /// transform) as [`CpuRnsPlan`], one tower per prime of `modulus`
    /// ([`Modulus::Bits`]: the largest NTT-friendly prime of that width).
    ///
    /// # Errors
    /// Those of [`RnsBasis::from_primes`] / [`RnsBasis::new`]: N, a prime
    /// that is not NTT-friendly (the CPU backend has no DGT), too wide for
    /// `W`, no prime, one twice, too many.
    pub fn cpu(n: usize, modulus: Modulus) -> Result<Self> {
        crate::params::check_n(n)?;
        let basis = match modulus {
            Modulus::Bits(b) => RnsBasis::from_primes(n, &ntt_primes(b, n, 1)?)?,
            Modulus::Prime(q) => RnsBasis::from_primes(n, &[q])?,
            Modulus::Rns { bits, towers } => RnsBasis::new(n, bits, towers)?,
            Modulus::Primes(primes) => RnsBasis::from_primes(n, &primes)?,
        };
        let decision = Decision { choice: rule(), from_wisdom: false, measured_us: None };
        let plan = Chosen::Cpu(CpuRnsPlan::new(&basis)?);
        Ok(Self { plan, decision, primes: basis.primes(), limbs_basis: basis.into() })
    }

    /// Plans a given decision on the CPU backend (no GPU needed): an NTT
    /// decision as [`Multiplier::cpu`] does (the kernel and radix are the
    /// GPU's and mean nothing here), a DGT decision on the DGT's CPU code
    /// ([`crate::expert::emulation::dgt::polymul`] with the decision's
    /// configuration, tower by tower). A multiplier on the CPU DGT
    /// multiplies only: its [`Transform`] methods return
    /// [`Error::NotNttDomain`], as on a GPU.
    ///
    /// # Errors
    /// Those of [`Multiplier::cpu`] for the NTT; for the DGT those of
    /// [`DgtParams::new`] (N, a prime `p ≢ −1 mod N`, too wide for `W`) and
    /// of the list of primes (none, one twice, too many).
    pub fn cpu_with_decision(n: usize, modulus: Modulus, decision: Decision) -> Result<Self> {
        match decision.choice {
            Choice::Ntt { .. } => Ok(Self { decision, ..Self::cpu(n, modulus)? }),
            Choice::Dgt { config } => {
                let (towers, primes) = dgt_towers(n, modulus)?;
                Ok(Self {
                    plan: Chosen::CpuDgt(CpuDgt { towers, config }),
                    decision,
                    primes,
                    limbs_basis: Default::default(),
                })
            }
        }
    }

    /// The GPU if there is one ([`Gpu::new`], then
    /// [`Multiplier::with_wisdom`]), else ([`Error::NoGpu`]) the CPU backend
    /// ([`Multiplier::cpu_with_decision`] with [`decide_without_wisdom`]: the
    /// NTT as [`Multiplier::cpu`], or the DGT's CPU code for primes only the
    /// DGT takes). Print [`Multiplier::backend`] to tell the user which.
    ///
    /// # Errors
    /// Those of the constructor it calls; GPU errors other than
    /// [`Error::NoGpu`] (a device that fails to start) are returned, not
    /// hidden behind the CPU.
    pub fn auto(n: usize, modulus: Modulus, batch: usize, wisdom: Option<&Wisdom>) -> Result<Self> {
        match Gpu::new() {
            Ok(gpu) => Self::with_wisdom(&gpu, n, modulus, batch, wisdom),
            Err(Error::NoGpu { .. }) => {
                let decision = decide_without_wisdom(&modulus, n);
                Self::cpu_with_decision(n, modulus, decision)
            }
            Err(e) => Err(e),
        }
    }

    /// What was chosen.
    pub fn decision(&self) -> &Decision {
        &self.decision
    }

    /// The prime(s) the data must be reduced by (one per tower).
    pub fn primes(&self) -> &[u64] {
        &self.primes
    }

    /// The GPU plan it chose; `None` on the CPU backend.
    pub fn plan(&self) -> Option<&dyn DevicePlan<W>> {
        match &self.plan {
            Chosen::Ntt(p) => Some(p),
            Chosen::Rns(p) => Some(p),
            Chosen::Dgt(p) => Some(p),
            Chosen::Cpu(_) | Chosen::CpuDgt(_) => None,
        }
    }

    /// A product of host words validated already, through the chosen GPU
    /// plan's copy pipeline (`gpu/split.rs`) without its checks
    /// (`multi/prechecked.rs`); `None` on the CPU backend.
    pub(crate) fn prechecked_product(
        &self,
        io: crate::gpu::split::HostIo<'_, W>,
        layout: crate::Layout,
    ) -> Option<Result<()>> {
        use crate::gpu::split::{Op, host_call};
        match &self.plan {
            Chosen::Ntt(p) => Some(host_call(p, Op::Product, io, layout)),
            Chosen::Rns(p) => Some(host_call(p, Op::Product, io, layout)),
            Chosen::Dgt(p) => Some(host_call(p, Op::Product, io, layout)),
            Chosen::Cpu(_) | Chosen::CpuDgt(_) => None,
        }
    }

    /// The GPU plan it chose, owned; `None` on the CPU backend.
    pub fn into_plan(self) -> Option<Box<dyn DevicePlan<W>>> {
        match self.plan {
            Chosen::Ntt(p) => Some(Box::new(p)),
            Chosen::Rns(p) => Some(Box::new(p)),
            Chosen::Dgt(p) => Some(Box::new(p)),
            Chosen::Cpu(_) | Chosen::CpuDgt(_) => None,
        }
    }

    /// The RNS plan it chose (the NTT on a GPU, several towers); `None`
    /// otherwise. For the device-side limb conversions
    /// ([`RnsPlan::polymul_limbs`], [`RnsPlan::decompose`], …); see also
    /// [`Multiplier::polymul_limbs`], which works on every backend.
    pub fn rns_plan(&self) -> Option<&RnsPlan<W>> {
        match &self.plan {
            Chosen::Rns(p) => Some(p),
            _ => None,
        }
    }

    /// Negacyclic products modulo `Q`, the product of [`Multiplier::primes`],
    /// of limb-encoded polynomials (the layout of [`RnsBasis::limbs`]:
    /// `batch · N · L` little-endian `u64` words, coefficient-major, every
    /// coefficient below `Q`). An RNS plan converts on the GPU
    /// ([`RnsPlan::polymul_limbs`]); one NTT prime on a GPU, and the CPU
    /// backend, convert on the CPU ([`RnsBasis::decompose`],
    /// [`RnsBasis::reconstruct`]; the basis is built on first use) around
    /// [`Plan::polymul`]. The same words either way.
    ///
    /// # Errors
    /// Those of [`RnsBasis::check_limbs`] for `a` and `b`,
    /// [`Error::LengthMismatch`] if their lengths differ; the DGT's primes
    /// make no [`RnsBasis`] ([`Error::NotNttFriendly`] from
    /// [`RnsBasis::from_primes`]).
    pub fn polymul_limbs(&self, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
        if let Chosen::Rns(p) = &self.plan {
            return p.polymul_limbs(a, b);
        }
        let basis = match self.limbs_basis.get() {
            Some(b) => b,
            None => {
                let b = RnsBasis::<W>::from_primes(self.n(), &self.primes)?;
                self.limbs_basis.get_or_init(|| b)
            }
        };
        // The CPU conversions take one launch's worth of polynomials at a
        // time: a larger batch converts and multiplies in such pieces.
        let per = self.n() * basis.limbs();
        let piece = crate::params::max_batch(self.n()) * per;
        if a.len() > piece && b.len() == a.len() {
            basis.check_limbs_any("a", a)?;
            basis.check_limbs_any("b", b)?;
            let mut out = Vec::with_capacity(a.len());
            for (x, y) in a.chunks(piece).zip(b.chunks(piece)) {
                out.extend(self.limbs_whole(basis, x, y)?);
            }
            return Ok(out);
        }
        self.limbs_whole(basis, a, b)
    }

    /// [`Multiplier::polymul_limbs`] on the CPU conversions, one piece.
    fn limbs_whole(&self, basis: &RnsBasis<W>, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
        let ra = basis.decompose(a)?;
        if b.len() != a.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        let rb = basis.decompose(b)?;
        basis.reconstruct(&self.polymul(&ra, &rb)?)
    }

    /// The CPU plan; `None` on a GPU.
    pub fn cpu_plan(&self) -> Option<&CpuRnsPlan<W>> {
        match &self.plan {
            Chosen::Cpu(p) => Some(p),
            _ => None,
        }
    }

    /// The GPU it runs on; `None` on the CPU backend.
    pub fn gpu(&self) -> Option<&Gpu> {
        self.plan().map(|p| p.gpu())
    }

    /// [`DevicePlan::upload`]; GPU only ([`Error::NeedsGpu`] on the CPU backend).
    pub fn upload(&self, words: &[W]) -> Result<DeviceVec<W>> {
        gpu_plan!(&self.plan, "upload", p => p.upload(words))
    }

    /// [`DevicePlan::zeros`]; GPU only.
    pub fn zeros(&self, batch: usize) -> Result<DeviceVec<W>> {
        gpu_plan!(&self.plan, "zeros", p => p.zeros(batch))
    }

    /// [`DevicePlan::download`]; GPU only.
    pub fn download(&self, v: &DeviceView<W>) -> Result<Vec<W>> {
        gpu_plan!(&self.plan, "download", p => p.download(v))
    }

    /// [`DevicePlan::set_stream`]; nothing on the CPU backend.
    pub fn set_stream(&mut self, stream: Option<&GpuStream>) {
        match &mut self.plan {
            Chosen::Ntt(p) => p.set_stream(stream),
            Chosen::Rns(p) => p.set_stream(stream),
            Chosen::Dgt(p) => p.set_stream(stream),
            Chosen::Cpu(_) | Chosen::CpuDgt(_) => {}
        }
    }

    /// [`DevicePlan::synchronize`]; `Ok` at once on the CPU backend (its
    /// methods return when done).
    pub fn synchronize(&self) -> Result<()> {
        match &self.plan {
            Chosen::Cpu(_) | Chosen::CpuDgt(_) => Ok(()),
            _ => gpu_plan!(&self.plan, "synchronize", p => p.synchronize()),
        }
    }

    /// Queues the reduction check of device words on the chosen NTT plan
    /// ([`crate::NttPlan::check_reduced_async`]).
    ///
    /// # Errors
    /// As there; [`Error::NeedsGpu`] on the CPU backend,
    /// [`Error::NotNttDomain`] where the planner chose the DGT (whose plans
    /// have no such check: check on the host instead).
    pub fn check_reduced_async(&self, data: &DeviceView<W>) -> Result<()> {
        match &self.plan {
            Chosen::Ntt(p) => p.check_reduced_async(data),
            Chosen::Rns(p) => p.check_reduced_async(data),
            Chosen::Dgt(_) => Err(Error::NotNttDomain),
            Chosen::Cpu(_) | Chosen::CpuDgt(_) => Err(Error::NeedsGpu { what: "check_reduced_async" }),
        }
    }

    /// [`Error::UnreducedDeviceInput`] if a check queued by
    /// [`Multiplier::check_reduced_async`] found an unreduced word since
    /// the last call ([`crate::NttPlan::take_reduced_error`]); `Ok` on
    /// plans without the check.
    ///
    /// # Errors
    /// [`Error::UnreducedDeviceInput`].
    pub fn take_reduced_error(&self) -> Result<()> {
        match &self.plan {
            Chosen::Ntt(p) => p.take_reduced_error(),
            Chosen::Rns(p) => p.take_reduced_error(),
            _ => Ok(()),
        }
    }

    /// The chosen plan as an NTT-domain one, or [`Error::NotNttDomain`]
    /// for the DGT.
    fn ntt(&self) -> Result<NttRef<'_, W>> {
        match &self.plan {
            Chosen::Ntt(p) => Ok(NttRef::Gpu(p)),
            Chosen::Rns(p) => Ok(NttRef::Gpu(p)),
            Chosen::Dgt(_) | Chosen::CpuDgt(_) => Err(Error::NotNttDomain),
            Chosen::Cpu(p) => Ok(NttRef::Cpu(p)),
        }
    }
}

/// A [`Multiplier`]'s plan whose transform is the NTT.
enum NttRef<'a, W: Coeff> {
    Gpu(&'a dyn NttDevice<W>),
    Cpu(&'a CpuRnsPlan<W>),
}

/// The GPU plans whose transform is the NTT (for [`Multiplier`]'s dispatch).
trait NttDevice<W: Coeff>: DevicePlan<W> + Transform<W, DeviceView<W>> + Transform<W, [W]> {}
impl<W: Coeff, P: DevicePlan<W> + Transform<W, DeviceView<W>> + Transform<W, [W]>> NttDevice<W> for P {}

impl<W: Coeff> Plan<W> for Multiplier<W> {
    fn n(&self) -> usize {
        any_plan!(&self.plan, p => p.n())
    }

    fn moduli(&self) -> Vec<u64> {
        self.primes.clone()
    }

    fn backend(&self) -> Backend {
        any_plan!(&self.plan, p => p.backend())
    }

    fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        any_plan!(&self.plan, p => p.polymul(a, b))
    }

    fn tensor(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        any_plan!(&self.plan, p => p.tensor(a, b))
    }
}

/// Host slices on either backend; the DGT through its products
/// ([`crate::tensor_by_products`]).
impl<W: Coeff> Tensor<W, [W]> for Multiplier<W> {
    fn tensor_into(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        match &self.plan {
            Chosen::Ntt(p) => Tensor::<W, [W]>::tensor_into(p, a, b, out),
            Chosen::Rns(p) => Tensor::<W, [W]>::tensor_into(p, a, b, out),
            Chosen::Cpu(p) => p.tensor_into(a, b, out),
            Chosen::Dgt(_) | Chosen::CpuDgt(_) => {
                let m = self.primes.len();
                crate::ciphertext::TensorShape::check(self.n(), m, a.len(), b.len(), out.len())?;
                out.copy_from_slice(&self.tensor(a, b)?);
                Ok(())
            }
        }
    }
}

/// Device words: the NTT plans only ([`Error::NeedsGpu`] on the CPU
/// backend, [`Error::NotNttDomain`] where the planner chose the DGT).
impl<W: Coeff> Tensor<W, DeviceView<W>> for Multiplier<W> {
    fn tensor_into(&self, a: &DeviceView<W>, b: &DeviceView<W>, out: &mut DeviceView<W>) -> Result<()> {
        match &self.plan {
            Chosen::Ntt(p) => p.tensor_into(a, b, out),
            Chosen::Rns(p) => p.tensor_into(a, b, out),
            Chosen::Dgt(_) => Err(Error::NotNttDomain),
            Chosen::Cpu(_) | Chosen::CpuDgt(_) => Err(Error::NeedsGpu { what: "tensor_into" }),
        }
    }
}

/// Host slices on either backend (the same words).
impl<W: Coeff> Product<W, [W]> for Multiplier<W> {
    fn polymul_into(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        any_plan!(&self.plan, p => Product::<W, [W]>::polymul_into(p, a, b, out))
    }

    fn polymul_in_place(&self, a: &mut [W], b: &mut [W]) -> Result<()> {
        any_plan!(&self.plan, p => Product::<W, [W]>::polymul_in_place(p, a, b))
    }
}

/// Device words: GPU only ([`Error::NeedsGpu`] on the CPU backend).
impl<W: Coeff> Product<W, DeviceView<W>> for Multiplier<W> {
    fn polymul_into(&self, a: &DeviceView<W>, b: &DeviceView<W>, out: &mut DeviceView<W>) -> Result<()> {
        gpu_plan!(&self.plan, "polymul_into", p => Product::<W, DeviceView<W>>::polymul_into(p, a, b, out))
    }

    fn polymul_in_place(&self, a: &mut DeviceView<W>, b: &mut DeviceView<W>) -> Result<()> {
        gpu_plan!(&self.plan, "polymul_in_place", p => Product::<W, DeviceView<W>>::polymul_in_place(p, a, b))
    }
}

/// The NTT on host slices, on either backend; [`Error::NotNttDomain`] where
/// the planner chose the DGT.
impl<W: Coeff> Transform<W, [W]> for Multiplier<W> {
    fn forward(&self, data: &mut [W]) -> Result<()> {
        match self.ntt()? {
            NttRef::Gpu(p) => Transform::<W, [W]>::forward(p, data),
            NttRef::Cpu(p) => p.forward(data),
        }
    }

    fn inverse(&self, data: &mut [W]) -> Result<()> {
        match self.ntt()? {
            NttRef::Gpu(p) => Transform::<W, [W]>::inverse(p, data),
            NttRef::Cpu(p) => p.inverse(data),
        }
    }

    fn pointwise_mul(&self, acc: &mut [W], other: &[W]) -> Result<()> {
        match self.ntt()? {
            NttRef::Gpu(p) => Transform::<W, [W]>::pointwise_mul(p, acc, other),
            NttRef::Cpu(p) => p.pointwise_mul(acc, other),
        }
    }
}

/// The NTT on device words: GPU only ([`Error::NeedsGpu`] on the CPU
/// backend); [`Error::NotNttDomain`] where the planner chose the DGT.
impl<W: Coeff> Transform<W, DeviceView<W>> for Multiplier<W> {
    fn forward(&self, data: &mut DeviceView<W>) -> Result<()> {
        match self.ntt()? {
            NttRef::Gpu(p) => p.forward(data),
            NttRef::Cpu(_) => Err(Error::NeedsGpu { what: "forward" }),
        }
    }

    fn inverse(&self, data: &mut DeviceView<W>) -> Result<()> {
        match self.ntt()? {
            NttRef::Gpu(p) => p.inverse(data),
            NttRef::Cpu(_) => Err(Error::NeedsGpu { what: "inverse" }),
        }
    }

    fn pointwise_mul(&self, acc: &mut DeviceView<W>, other: &DeviceView<W>) -> Result<()> {
        match self.ntt()? {
            NttRef::Gpu(p) => p.pointwise_mul(acc, other),
            NttRef::Cpu(_) => Err(Error::NeedsGpu { what: "pointwise_mul" }),
        }
    }
}

/// The DGT's towers for `modulus` (one [`DgtParams`] per prime) and their
/// primes: [`Modulus::Bits`] and [`Modulus::Rns`] take the largest DGT
/// primes ([`dgt_primes`]); given primes are checked as a list
/// ([`check_given_primes`]) and each by [`DgtParams::new`].
fn dgt_towers<W: Coeff>(n: usize, modulus: Modulus) -> Result<(Vec<DgtParams<W>>, Vec<u64>)> {
    let primes = match modulus {
        Modulus::Prime(p) => vec![p],
        Modulus::Primes(primes) => {
            check_given_primes(&primes)?;
            primes
        }
        Modulus::Bits(b) => dgt_primes(b, n, 1)?,
        Modulus::Rns { bits, towers } => dgt_primes(bits, n, towers)?,
    };
    let params = primes.iter().map(|&p| DgtParams::new(n, p)).collect::<Result<Vec<_>>>()?;
    Ok((params, primes))
}

/// The DGT on the CPU: its kernels' code ([`crate::dgt::cpu::polymul`]),
/// tower by tower, for [`Multiplier::cpu_with_decision`].
#[derive(Debug)]
struct CpuDgt<W: Coeff> {
    towers: Vec<DgtParams<W>>,
    config: DgtConfig,
}

impl<W: Coeff> CpuDgt<W> {
    /// Validates tower-major `data` (a positive multiple of `towers · N`
    /// words, every word below its tower's prime, indexed into the whole
    /// buffer) and returns the words per tower.
    fn tower_len(&self, what: &'static str, data: &[W]) -> Result<usize> {
        let whole = self.towers.len() * self.n();
        if data.is_empty() || whole == 0 || !data.len().is_multiple_of(whole) {
            return Err(Error::NotAMultipleOfN { what, got: data.len(), n: whole });
        }
        let len = data.len() / self.towers.len();
        for (t, p) in self.towers.iter().enumerate() {
            let part = &data[t * len..(t + 1) * len];
            if let Some(i) = part.iter().position(|v| *v >= p.p()) {
                let (index, value, q) = (t * len + i, part[i].as_u64(), p.p().as_u64());
                return Err(Error::CoefficientOutOfRange { what, index, value, q });
            }
        }
        Ok(len)
    }
}

impl<W: Coeff> Plan<W> for CpuDgt<W> {
    fn n(&self) -> usize {
        self.towers.first().map_or(0, |p| p.n())
    }

    fn moduli(&self) -> Vec<u64> {
        self.towers.iter().map(|p| p.p().as_u64()).collect()
    }

    fn backend(&self) -> Backend {
        Backend::Cpu { threads: rayon::current_num_threads() }
    }

    fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let len = self.tower_len("a", a)?;
        self.tower_len("b", b)?;
        if a.len() != b.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        let mut out = Vec::with_capacity(a.len());
        for (t, p) in self.towers.iter().enumerate() {
            let part = t * len..(t + 1) * len;
            let c = crate::dgt::cpu::polymul(p, &self.config, &a[part.clone()], &b[part])
                .map_err(|e| crate::rns::in_whole(e, t * len))?;
            out.extend(c);
        }
        Ok(out)
    }
}

impl<W: Coeff> Product<W, [W]> for CpuDgt<W> {
    fn polymul_into(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        if out.len() != a.len() {
            return Err(Error::LengthMismatch { what: "out", got: out.len(), expected: a.len() });
        }
        out.copy_from_slice(&self.polymul(a, b)?);
        Ok(())
    }

    fn polymul_in_place(&self, a: &mut [W], b: &mut [W]) -> Result<()> {
        let c = self.polymul(a, b)?;
        a.copy_from_slice(&c);
        Ok(())
    }
}

/// The checks [`RnsBasis::from_primes`] makes of a list of primes, for the
/// DGT's towers: at least one, at most [`crate::params::MAX_PRIME_COUNT`],
/// none twice.
fn check_given_primes(primes: &[u64]) -> Result<()> {
    if primes.is_empty() {
        return Err(crate::Error::EmptyBasis);
    }
    crate::params::check_count(primes.len())?;
    let mut seen = std::collections::HashSet::with_capacity(primes.len());
    match primes.iter().find(|&&q| !seen.insert(q)) {
        Some(&q) => Err(crate::Error::DuplicatePrime { q }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::WisdomKey;

    fn key(bucket: u32) -> WisdomKey {
        WisdomKey { device: "GPU".into(), log_n: 12, word_bits: 32, towers: 1, batch_bucket: bucket }
    }

    /// Tower-major data below each prime: `towers × batch` polynomials.
    fn data(primes: &[u64], n: usize, batch: usize, seed: u64) -> Vec<u64> {
        let mut x = seed;
        let mut next = move || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 11
        };
        primes.iter().flat_map(|&q| (0..batch * n).map(|_| next() % q).collect::<Vec<_>>()).collect()
    }

    /// The schoolbook product, tower by tower, polynomial by polynomial.
    fn naive(primes: &[u64], n: usize, a: &[u64], b: &[u64]) -> Vec<u64> {
        let len = a.len() / primes.len();
        let mut out = Vec::with_capacity(a.len());
        for (t, &q) in primes.iter().enumerate() {
            for k in (t * len..(t + 1) * len).step_by(n) {
                out.extend(crate::cpu::negacyclic_naive(&a[k..k + n], &b[k..k + n], q).unwrap());
            }
        }
        out
    }

    #[test]
    fn a_forced_dgt_decision_runs_on_the_cpu() {
        let n = 1 << 6;
        let primes = dgt_primes(30, n, 2).unwrap();
        let decision = Decision {
            choice: Choice::Dgt { config: DgtConfig::default_for(5) },
            from_wisdom: false,
            measured_us: None,
        };
        let m = Multiplier::<u64>::cpu_with_decision(n, Modulus::Primes(primes.clone()), decision.clone())
            .unwrap();
        assert_eq!((m.primes(), m.n(), m.moduli()), (&primes[..], n, primes.clone()));
        assert!(matches!(m.backend(), Backend::Cpu { .. }) && m.plan().is_none() && m.rns_plan().is_none());
        assert_eq!(m.decision(), &decision);
        let (a, b) = (data(&primes, n, 3, 1), data(&primes, n, 3, 2));
        let want = naive(&primes, n, &a, &b);
        assert_eq!(m.polymul(&a, &b).unwrap(), want);
        let mut out = vec![0; a.len()];
        m.polymul_into(&a[..], &b[..], &mut out[..]).unwrap();
        assert_eq!(out, want);
        let (mut x, mut y) = (a.clone(), b.clone());
        m.polymul_in_place(&mut x[..], &mut y[..]).unwrap();
        assert_eq!(x, want);
        // Not the NTT domain; no device.
        assert!(matches!(Transform::<u64, [u64]>::forward(&m, &mut x[..]), Err(Error::NotNttDomain)));
        assert!(matches!(m.upload(&a), Err(Error::NeedsGpu { .. })));
        assert!(m.synchronize().is_ok());
        // Checked before anything runs: the index is into the whole buffer.
        let mut bad = a.clone();
        bad[n * 3 + 5] = primes[1];
        let e = m.polymul(&a, &bad).unwrap_err();
        assert!(
            matches!(e, Error::CoefficientOutOfRange { what: "b", index, .. } if index == n * 3 + 5),
            "{e:?}"
        );
        assert!(matches!(m.polymul(&a[..n], &a[..n]), Err(Error::NotAMultipleOfN { .. })));
        assert!(matches!(m.polymul(&a, &b[..2 * n]), Err(Error::LengthMismatch { .. })));
        // An NTT prime is no DGT prime; the modulus by width takes DGT primes.
        let q = ntt_primes(30, n, 1).unwrap()[0];
        assert!(Multiplier::<u64>::cpu_with_decision(n, Modulus::Prime(q), decision.clone()).is_err());
        let m =
            Multiplier::<u32>::cpu_with_decision(n, Modulus::Rns { bits: 30, towers: 2 }, decision).unwrap();
        assert_eq!(m.primes(), &primes[..]);
    }

    #[test]
    fn an_ntt_decision_on_the_cpu_is_the_cpu_backend_and_multiplies_limbs() {
        let n = 1 << 6;
        let decision = Decision {
            choice: Choice::Ntt { kernel: crate::plan::NttKernel::TwoD, radix: Some(8) },
            from_wisdom: true,
            measured_us: Some(1.0),
        };
        let primes = ntt_primes(62, n, 2).unwrap();
        let m = Multiplier::<u64>::cpu_with_decision(n, Modulus::Primes(primes.clone()), decision.clone())
            .unwrap();
        assert!(m.cpu_plan().is_some() && m.rns_plan().is_none());
        assert_eq!((m.decision(), m.primes()), (&decision, &primes[..]));
        let (a, b) = (data(&primes, n, 2, 3), data(&primes, n, 2, 4));
        assert_eq!(m.polymul(&a, &b).unwrap(), naive(&primes, n, &a, &b));
        // Limbs: as the emulation computes them, on any NTT backend.
        let basis = RnsBasis::<u64>::from_primes(n, &primes).unwrap();
        let la = basis.reconstruct(&a).unwrap();
        let lb = basis.reconstruct(&b).unwrap();
        let want = crate::cpu::emulation::rns_polymul_limbs(&basis, &la, &lb).unwrap();
        assert_eq!(m.polymul_limbs(&la, &lb).unwrap(), want);
        assert!(matches!(
            m.polymul_limbs(&la, &lb[..n]),
            Err(Error::LengthMismatch { .. } | Error::NotAMultipleOfN { .. })
        ));
        // One prime too (L = 1).
        let one = Multiplier::<u64>::cpu_with_decision(n, Modulus::Prime(primes[0]), decision).unwrap();
        let basis1 = RnsBasis::<u64>::from_primes(n, &primes[..1]).unwrap();
        let l1 = basis1.reconstruct(&a[..2 * n]).unwrap();
        let want1 = crate::cpu::emulation::rns_polymul_limbs(&basis1, &l1, &l1).unwrap();
        assert_eq!(one.polymul_limbs(&l1, &l1).unwrap(), want1);
    }

    #[test]
    fn without_wisdom_primes_only_the_dgt_takes_choose_the_dgt_on_any_backend() {
        let n = 1 << 6;
        let dgt = dgt_primes(30, n, 2).unwrap();
        let ntt = ntt_primes(30, n, 2).unwrap();
        assert_eq!(decide_without_wisdom(&Modulus::Bits(30), n).choice, rule());
        assert_eq!(decide_without_wisdom(&Modulus::Primes(ntt), n).choice, rule());
        let d = decide_without_wisdom(&Modulus::Primes(dgt.clone()), n);
        assert_eq!(d, decide(&key(0), &Modulus::Primes(dgt.clone()), n, None));
        assert_eq!(d.choice, Choice::Dgt { config: DgtConfig::default_for(5) });
        // `auto`: the GPU's DGT plan if there is a GPU, else the DGT's CPU code.
        let m = match Multiplier::<u64>::auto(n, Modulus::Primes(dgt.clone()), 2, None) {
            // A GPU that fails to start is not this test's business.
            Err(e) if e.kind() == crate::ErrorKind::Device => return,
            m => m.unwrap(),
        };
        assert!(matches!(m.decision().choice, Choice::Dgt { .. }));
        let a = data(&dgt, n, 2, 5);
        assert_eq!(m.polymul(&a, &a).unwrap(), naive(&dgt, n, &a, &a));
    }

    #[test]
    fn given_primes_for_the_dgt_are_checked_like_a_basis() {
        assert!(matches!(check_given_primes(&[]), Err(crate::Error::EmptyBasis)));
        assert!(matches!(check_given_primes(&[5, 7, 5]), Err(crate::Error::DuplicatePrime { q: 5 })));
        assert!(check_given_primes(&[5, 7]).is_ok());
    }
}
