//! The one trait every GPU plan kind implements: [`crate::NttPlan`],
//! [`crate::rns::RnsPlan`], [`crate::dgt::DgtPlan`], so that code written
//! against a plan runs on any of them (and the planner can hold whichever it
//! chose). The planner's [`crate::planner::Multiplier`] offers the same
//! methods inherently, on a GPU or on the CPU backend.

use crate::gpu::{DeviceVec, Gpu, GpuStream};
use crate::layout::Layout;
use crate::{Coeff, Result};

/// A negacyclic transform and product resident on a GPU: created once,
/// executed many times (cuFFT's plan/exec split), on its stream.
///
/// Data is tower-major (one tower for a plain modulus; see [`Layout`]).
/// Every method validates before it touches the device and returns a typed
/// [`crate::Error`]; the device-side methods queue work and return without
/// waiting (errors inside a kernel surface at the next synchronisation).
///
/// ```no_run
/// use polymul::{DevicePlan, Gpu, NttParams, NttPlan};
///
/// /// Squares every polynomial of `x`, whichever plan kind `plan` is.
/// fn square<W: polymul::Coeff>(plan: &dyn DevicePlan<W>, x: &[W]) -> polymul::Result<Vec<W>> {
///     let a = plan.upload(x)?;
///     let mut out = plan.zeros(a.layout().map_or(1, |l| l.batch))?;
///     plan.polymul_into(&a, &a, &mut out)?; // a stays intact
///     plan.download(&out)
/// }
///
/// let gpu = Gpu::new()?;
/// let plan = NttPlan::new(&gpu, NttParams::<u64>::with_prime_bits(1 << 12, 62)?)?;
/// let y = square(&plan, &vec![3u64; 1 << 12])?;
/// # Ok::<(), polymul::Error>(())
/// ```
pub trait DevicePlan<W: Coeff>: Send + Sync + std::fmt::Debug {
    /// The GPU the plan runs on.
    fn gpu(&self) -> &Gpu;

    /// Words per polynomial (N).
    fn n(&self) -> usize;

    /// The moduli, one per tower.
    fn moduli(&self) -> Vec<u64>;

    /// The layout of `batch` polynomials per tower of this plan.
    fn layout(&self, batch: usize) -> Layout {
        Layout { n: self.n(), towers: self.moduli().len(), batch }
    }

    /// Validates host words (tower-major, a positive multiple of
    /// `towers · N`, each below its tower's modulus) and uploads them; the
    /// buffer knows its [`Layout`].
    fn upload(&self, words: &[W]) -> Result<DeviceVec<W>>;

    /// `batch` zero polynomials per tower on the device.
    fn zeros(&self, batch: usize) -> Result<DeviceVec<W>>;

    /// Copies a buffer back after the work queued on the plan's stream.
    fn download(&self, v: &DeviceVec<W>) -> Result<Vec<W>>;

    /// Queues the forward transform of every polynomial (and tower).
    ///
    /// # Errors
    /// [`crate::Error::FusedPlanTransform`] on a plan that only multiplies.
    fn forward(&self, data: &mut DeviceVec<W>) -> Result<()>;

    /// Queues the inverse transform (scaled: `inverse(forward(x)) = x`).
    fn inverse(&self, data: &mut DeviceVec<W>) -> Result<()>;

    /// Queues `acc ← acc ⊙ other`, the product in the transform domain.
    fn pointwise_mul(&self, acc: &mut DeviceVec<W>, other: &DeviceVec<W>) -> Result<()>;

    /// Queues `a ← a ⊗ b` (negacyclic, every pair and tower); `b`'s words
    /// are scratch afterwards. The fastest product: no copies.
    fn polymul_in_place(&self, a: &mut DeviceVec<W>, b: &mut DeviceVec<W>) -> Result<()>;

    /// Queues `out ← a ⊗ b`, leaving `a` and `b` intact (`out` is
    /// overwritten; all three of one length and layout). Costs two
    /// device-to-device copies more than [`DevicePlan::polymul_in_place`]:
    /// `a` into `out`, `b` into a scratch buffer the plan keeps.
    fn polymul_into(&self, a: &DeviceVec<W>, b: &DeviceVec<W>, out: &mut DeviceVec<W>) -> Result<()>;

    /// Negacyclic products of host polynomials: validated, uploaded,
    /// multiplied, downloaded.
    fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>>;

    /// Queues the plan's later work on `stream` (`None`: the GPU's own).
    fn set_stream(&mut self, stream: Option<&GpuStream>);

    /// Waits for the work the plan queued.
    fn synchronize(&self) -> Result<()>;
}

/// [`DevicePlan`] for a plan type through its inherent methods of the same
/// names (every plan kind has them all, so a user needs no trait import).
/// A missing inherent method would make the impl call itself: rustc's
/// `unconditional_recursion` lint, an error under `-D warnings`, catches it.
macro_rules! device_plan_by_inherent {
    ($plan:ident) => {
        impl<W: $crate::Coeff> $crate::DevicePlan<W> for $plan<W> {
            fn gpu(&self) -> &$crate::Gpu {
                $plan::gpu(self)
            }
            fn n(&self) -> usize {
                $plan::n(self)
            }
            fn moduli(&self) -> Vec<u64> {
                $plan::moduli(self)
            }
            fn upload(&self, words: &[W]) -> $crate::Result<$crate::DeviceVec<W>> {
                $plan::upload(self, words)
            }
            fn zeros(&self, batch: usize) -> $crate::Result<$crate::DeviceVec<W>> {
                $plan::zeros(self, batch)
            }
            fn download(&self, v: &$crate::DeviceVec<W>) -> $crate::Result<Vec<W>> {
                $plan::download(self, v)
            }
            fn forward(&self, data: &mut $crate::DeviceVec<W>) -> $crate::Result<()> {
                $plan::forward(self, data)
            }
            fn inverse(&self, data: &mut $crate::DeviceVec<W>) -> $crate::Result<()> {
                $plan::inverse(self, data)
            }
            fn pointwise_mul(
                &self,
                acc: &mut $crate::DeviceVec<W>,
                other: &$crate::DeviceVec<W>,
            ) -> $crate::Result<()> {
                $plan::pointwise_mul(self, acc, other)
            }
            fn polymul_in_place(
                &self,
                a: &mut $crate::DeviceVec<W>,
                b: &mut $crate::DeviceVec<W>,
            ) -> $crate::Result<()> {
                $plan::polymul_in_place(self, a, b)
            }
            fn polymul_into(
                &self,
                a: &$crate::DeviceVec<W>,
                b: &$crate::DeviceVec<W>,
                out: &mut $crate::DeviceVec<W>,
            ) -> $crate::Result<()> {
                $plan::polymul_into(self, a, b, out)
            }
            fn polymul(&self, a: &[W], b: &[W]) -> $crate::Result<Vec<W>> {
                $plan::polymul(self, a, b)
            }
            fn set_stream(&mut self, stream: Option<&$crate::GpuStream>) {
                $plan::set_stream(self, stream)
            }
            fn synchronize(&self) -> $crate::Result<()> {
                $plan::synchronize(self)
            }
        }
    };
}
pub(crate) use device_plan_by_inherent;
