//! Table III of the SEED 2022 paper on this GPU: the NTT's speed-up from each
//! optimisation step, measured as ratios in one run.

use crate::report::Table;
use polymul::expert::GpuTiming;
use polymul::expert::{NttKernel, PlanOptions, Reduction, SplitMix64};
use polymul::prelude::*;
use polymul::{Coeff, Gpu, NttParams, NttPlan};

/// One cumulative configuration of the ablation.
pub struct Step {
    /// Row label.
    pub label: &'static str,
    /// The options it runs with.
    pub opts: PlanOptions,
}

/// The cumulative configurations, in order.
pub fn steps() -> Vec<Step> {
    let base = crate::env_options::plan_options();
    let tiled = |radix: usize, shared_only: bool, reduction: Reduction| PlanOptions {
        kernel: NttKernel::Tiled,
        radix: Some(radix),
        shared_only,
        reduction,
        ..base
    };
    vec![
        Step {
            label: "global memory, radix-2, builtin %",
            opts: PlanOptions { kernel: NttKernel::Radix2Global, reduction: Reduction::Builtin, ..base },
        },
        Step {
            label: "+ Algorithm 4",
            opts: PlanOptions { kernel: NttKernel::Radix2Global, reduction: Reduction::Barrett4, ..base },
        },
        Step {
            label: "+ shared memory (tiled, one stage per round trip)",
            opts: tiled(2, true, Reduction::Barrett4),
        },
        Step { label: "+ radix 4 (two stages per round trip)", opts: tiled(4, true, Reduction::Barrett4) },
        Step {
            label: "+ radix 16, first/last step straight from/to global memory",
            opts: tiled(16, false, Reduction::Barrett4),
        },
        Step {
            label: "+ 2D split (balanced column/row passes), radix 16",
            opts: PlanOptions {
                kernel: NttKernel::TwoD,
                radix: Some(16),
                reduction: Reduction::Barrett4,
                ..base
            },
        },
        Step {
            label: "+ Shoup twiddles, best radix (the default plan)",
            opts: crate::env_options::plan_options(),
        },
    ]
}

fn rows<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, quick: bool, t: &mut Table) -> polymul::Result<()> {
    let n = 1usize << log_n;
    let batch = (1usize << 25) / n;
    let (mut first, mut prev) = ([f64::NAN; 3], f64::NAN);
    for step in steps() {
        let p = NttParams::<W>::with_prime_bits(n, bits)?;
        let plan = NttPlan::with_options(gpu, p, step.opts)?;
        let q = plan.params().q();
        let mut rng = SplitMix64::new(log_n as u64);
        let mut single = plan.upload(&rng.coeffs(n, q))?;
        let mut many = plan.upload(&rng.coeffs(n * batch, q))?;
        let mut other = plan.upload(&rng.coeffs(n * batch, q))?;
        let (r1, rb) = if quick { (50, 5) } else { (200, 20) };
        let lat = gpu.time(10, r1, || plan.forward(&mut single))?.median_us;
        let fwd = gpu.time(2, rb, || plan.forward(&mut many))?.median_us / batch as f64;
        let inv = gpu.time(2, rb, || plan.inverse(&mut many))?.median_us / batch as f64;
        let mul = gpu.time(2, rb, || plan.polymul_in_place(&mut many, &mut other))?.median_us / batch as f64;
        let per = [fwd, inv, mul];
        if first[0].is_nan() {
            first = per;
        }
        let step_up = if prev.is_nan() { 1.0 } else { prev / fwd };
        prev = fwd;
        t.rows.push(vec![
            format!("u{}", W::BITS),
            bits.to_string(),
            format!("2^{log_n}"),
            step.label.into(),
            format!("{lat:.1}"),
            format!("{fwd:.4}"),
            format!("{step_up:.2}"),
            format!("{:.2}", first[0] / fwd),
            format!("{inv:.4}"),
            format!("{:.2}", first[1] / inv),
            format!("{mul:.4}"),
            format!("{:.2}", first[2] / mul),
        ]);
        eprintln!(
            "  table III u{} N=2^{log_n} {}: fwd {fwd:.4} inv {inv:.4} mul {mul:.4} µs",
            W::BITS,
            step.label
        );
    }
    Ok(())
}

/// Runs every step for `u64`/62-bit and `u32`/30-bit at N = 2^12 and 2^16.
pub fn table(gpu: &Gpu, quick: bool) -> polymul::Result<Table> {
    let mut t = Table::new(
        "Table III on this GPU: forward, inverse and polymul, cumulative optimisations",
        &[
            "word",
            "q bits",
            "N",
            "configuration",
            "µs single polynomial",
            "µs per NTT (batched)",
            "forward: speed-up over the previous row",
            "forward: cumulative speed-up",
            "inverse µs per NTT (batched)",
            "inverse: cumulative",
            "polymul µs per product (batched)",
            "polymul: cumulative",
        ],
    );
    t.note =
        "Each row adds one step to the row above; batched rows use 2^25 coefficients in total; single = \
              one polynomial, so mostly launch latency. Ratios come from this run only. Context, the SEED \
              paper's Table III (V100, N = 2^16, 62-bit q, each step over the previous): shared memory 1.2×, \
              + Algorithm 4 1.72×, + 2D 2.91×, + fused Hadamard product 1.02×."
            .into();
    for log_n in [12u32, 16] {
        rows::<u64>(gpu, 62, log_n, quick, &mut t)?;
        rows::<u32>(gpu, 30, log_n, quick, &mut t)?;
    }
    Ok(t)
}
