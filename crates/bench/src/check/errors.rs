//! The `errors` suite: bad input to the GPU-side public API gets a typed
//! error, and the context keeps working afterwards (out of device memory).

use super::{Tally, eq, s};
use polymul::random::SplitMix64;
use polymul::{Error, Gpu, NttParams, NttPlan, PlanOptions, Reduction, cpu};

/// Runs the error-path checks.
pub(crate) fn error_suite(gpu: &Gpu, t: &mut Tally) {
    let n = 1 << 12;
    let plan = match NttParams::<u64>::with_prime_bits(n, 62).and_then(|p| NttPlan::new(gpu, p)) {
        Ok(p) => p,
        Err(e) => return t.record("errors: plan", Err(s(e))),
    };
    let q = plan.params().q();
    let mut bad = vec![1u64; n];
    bad[5] = q;
    t.record(
        "errors: coefficient >= q is rejected before upload",
        match plan.polymul(&bad, &vec![1; n]) {
            Err(Error::CoefficientOutOfRange { index: 5, .. }) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    t.record(
        "errors: a modulus too wide for the reduction is refused",
        match NttPlan::with_options(
            gpu,
            plan.params().clone(),
            PlanOptions { reduction: Reduction::DhemQuisquater, ..PlanOptions::default() },
        ) {
            Err(Error::ModulusTooWide { max_bits: 60, .. }) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    t.record(
        "errors: a shared-memory tile larger than the device allows is refused",
        match NttPlan::with_options(
            gpu,
            plan.params().clone(),
            PlanOptions { tile_bytes: Some(1 << 30), ..PlanOptions::default() },
        ) {
            Err(Error::BadTile { .. }) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    t.record(
        "errors: length mismatch",
        match plan.polymul(&vec![1; n], &vec![1; 2 * n]) {
            Err(Error::LengthMismatch { .. }) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    t.record(
        "errors: not a multiple of N",
        match plan.forward_host(&vec![1; n + 1]) {
            Err(Error::NotAMultipleOfN { .. }) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    let huge = gpu.info().total_memory / 8 * 2;
    t.record(
        "errors: out of device memory is a typed error",
        match gpu.zeros::<u64>(huge) {
            Err(Error::OutOfDeviceMemory { .. }) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    t.record(
        "errors: the context still works after out-of-memory",
        (|| {
            let mut rng = SplitMix64::new(77);
            let (a, b) = (rng.coeffs(n, q), rng.coeffs(n, q));
            eq(
                "after OOM",
                &plan.polymul(&a, &b).map_err(s)?,
                &cpu::polymul(plan.params(), &a, &b).map_err(s)?,
            )
        })(),
    );
}
