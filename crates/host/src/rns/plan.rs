//! RNS polymul on a GPU: one NTT plan per tower.

use super::RnsBasis;
use crate::gpu::Gpu;
use crate::plan::{NttPlan, PlanOptions};
use crate::{Coeff, Result};

/// Negacyclic polymul modulo `Q` on a GPU: a plan (twiddles resident on the
/// device) per tower of an [`RnsBasis`]. Each tower runs as its own batch of
/// launches today; towers as a grid dimension of one launch is issue 5's
/// next step.
///
/// ```no_run
/// use polymul::{Gpu, rns::{RnsBasis, RnsPlan}};
/// let gpu = Gpu::new()?;
/// let basis = RnsBasis::<u64>::new(1 << 12, 62, 4)?;
/// let plan = RnsPlan::new(&gpu, &basis)?;
/// let a = vec![0u64; 4 << 12]; // residues, tower-major
/// let c = plan.polymul(&a, &a)?;
/// # Ok::<(), polymul::Error>(())
/// ```
pub struct RnsPlan<'g, W: Coeff> {
    plans: Vec<NttPlan<'g, W>>,
}

impl<W: Coeff> std::fmt::Debug for RnsPlan<'_, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RnsPlan").field("towers", &self.plans.len()).finish_non_exhaustive()
    }
}

impl<'g, W: Coeff> RnsPlan<'g, W> {
    /// A plan per tower with the default options.
    pub fn new(gpu: &'g Gpu, basis: &RnsBasis<W>) -> Result<Self> {
        Self::with_options(gpu, basis, PlanOptions::default())
    }

    /// A plan per tower with explicit options.
    pub fn with_options(gpu: &'g Gpu, basis: &RnsBasis<W>, options: PlanOptions) -> Result<Self> {
        let plans = basis
            .towers()
            .iter()
            .map(|t| NttPlan::with_options(gpu, t.clone(), options))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { plans })
    }

    /// The per-tower plans.
    pub fn plans(&self) -> &[NttPlan<'g, W>] {
        &self.plans
    }

    /// Negacyclic products of residue polynomials (tower-major, the same
    /// batch in every tower): tower `i` of the result is the product of
    /// tower `i` of `a` and `b` modulo `q_i`.
    pub fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let n = self.plans[0].params().n();
        super::per_tower(self.plans.len(), n, a, b, |i, a, b| self.plans[i].polymul(a, b))
    }
}
