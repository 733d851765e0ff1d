//! The `fused` suite: fused polymul with each kernel, and the fused step
//! alone against the unfused one.

use super::{Tally, eq, lazy_kernel, s, variants};
use crate::host_ext::forward_host;
use polymul::expert::{NttKernel, PlanOptions, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, Error, Gpu, NttParams, NttPlan};

/// Fused polymul (Algorithm 8) on the GPU with each kernel, against the
/// CPU's unfused product; half the twiddle bytes of the unfused plan; whole
/// transforms refused with a typed error.
pub(super) fn fused_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for log_n in [2u32, 10, 11, 13, 16, 17] {
        let n = 1usize << log_n;
        for (tag, o) in variants() {
            let name = format!("fused polymul {tag} u{} N=2^{log_n} batch 2 == CPU, half twiddles", W::BITS);
            let res = (|| {
                let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
                let plan =
                    match NttPlan::with_options(gpu, p.clone(), PlanOptions { fused_polymul: true, ..o }) {
                        Ok(plan) => plan,
                        Err(Error::InvalidN { .. }) => return Ok(()),
                        // The lazy kernels run whole transforms only.
                        Err(Error::NoTransformFor { .. }) if lazy_kernel(o.kernel) => return Ok(()),
                        Err(e) => return Err(s(e)),
                    };
                // Half the twiddles of the same shared-memory kernels unfused
                // (an unfused automatic plan also holds the lazy kernels' tables).
                let shared = if o.kernel == NttKernel::Auto { NttKernel::Tiled } else { o.kernel };
                let unfused =
                    NttPlan::with_options(gpu, p.clone(), PlanOptions { kernel: shared, ..o }).map_err(s)?;
                if 2 * plan.twiddle_bytes() != unfused.twiddle_bytes() {
                    return Err(format!(
                        "twiddles: {} bytes fused, {} unfused",
                        plan.twiddle_bytes(),
                        unfused.twiddle_bytes()
                    ));
                }
                let mut rng = SplitMix64::new(seed ^ n as u64);
                let (a, b) = (rng.coeffs(2 * n, p.q()), rng.coeffs(2 * n, p.q()));
                eq("fused", &plan.polymul(&a, &b).map_err(s)?, &emulation::polymul(&p, &a, &b).map_err(s)?)?;
                match forward_host(&plan, &a) {
                    Err(Error::FusedPlanTransform) => Ok(()),
                    other => Err(format!("forward on a fused plan: {other:?}")),
                }
            })();
            t.record(&name, res);
        }
    }
}

/// The fused step alone ([`NttPlan::hadamard_step`] of a fused plan) gives
/// the same words as its unfused counterpart (last forward stage of both
/// operands, pointwise product, first inverse stage).
pub(super) fn hadamard_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for log_n in [2u32, 11, 16] {
        for batch in [1usize, 3] {
            let n = 1usize << log_n;
            let name = format!("fused step == unfused step u{} N=2^{log_n} batch {batch}", W::BITS);
            let res = (|| {
                let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
                let fused_opts = PlanOptions { fused_polymul: true, ..crate::env_options::plan_options() };
                let fused = NttPlan::with_options(gpu, p.clone(), fused_opts).map_err(s)?;
                let unfused =
                    NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
                let mut rng = SplitMix64::new(seed ^ n as u64 ^ batch as u64);
                let (a, b) = (rng.coeffs(batch * n, p.q()), rng.coeffs(batch * n, p.q()));
                let run = |plan: &NttPlan<W>| -> Result<Vec<W>, String> {
                    let (mut da, mut db) = (plan.upload(&a).map_err(s)?, plan.upload(&b).map_err(s)?);
                    plan.hadamard_step(&mut da, &mut db).map_err(s)?;
                    gpu.download(&da).map_err(s)
                };
                eq("fused vs unfused step", &run(&fused)?, &run(&unfused)?)
            })();
            t.record(&name, res);
        }
    }
}
