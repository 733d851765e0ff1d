//! Table III of the SEED 2022 paper on this GPU: the NTT's speed-up from each
//! optimisation step, measured as ratios in one run.

use crate::report::Table;
use polymul::random::SplitMix64;
use polymul::{Coeff, Gpu, NttKernel, NttParams, NttPlan, PlanOptions, Reduction};

/// The cumulative configurations, in order.
pub const STEPS: [(&str, NttKernel, Reduction); 5] = [
    ("global memory, radix-2, builtin %", NttKernel::Radix2Global, Reduction::Builtin),
    ("+ Algorithm 4", NttKernel::Radix2Global, Reduction::Barrett4),
    ("+ shared memory (tiled, one stage per round trip)", NttKernel::TiledRadix2, Reduction::Barrett4),
    ("+ radix 4 (two stages per round trip)", NttKernel::Tiled, Reduction::Barrett4),
    ("+ Shoup twiddles (the default)", NttKernel::Tiled, Reduction::Shoup),
];

fn rows<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, quick: bool, t: &mut Table) -> polymul::Result<()> {
    let n = 1usize << log_n;
    let batch = (1usize << 25) / n;
    let (mut first, mut prev) = (f64::NAN, f64::NAN);
    for (label, kernel, reduction) in STEPS {
        let p = NttParams::<W>::with_prime_bits(n, bits)?;
        let plan = NttPlan::with_options(gpu, p, PlanOptions { kernel, reduction, tile_bytes: None })?;
        let q = plan.params().q();
        let mut rng = SplitMix64::new(log_n as u64);
        let mut single = plan.upload(&rng.coeffs(n, q))?;
        let mut many = plan.upload(&rng.coeffs(n * batch, q))?;
        let (r1, rb) = if quick { (50, 5) } else { (200, 20) };
        let lat = gpu.time(10, r1, || plan.forward(&mut single))?.median_us;
        let per = gpu.time(2, rb, || plan.forward(&mut many))?.median_us / batch as f64;
        if first.is_nan() {
            first = per;
        }
        let step = if prev.is_nan() { 1.0 } else { prev / per };
        prev = per;
        t.rows.push(vec![
            format!("u{}", W::BITS),
            bits.to_string(),
            format!("2^{log_n}"),
            label.into(),
            format!("{lat:.1}"),
            format!("{per:.4}"),
            format!("{step:.2}"),
            format!("{:.2}", first / per),
        ]);
        eprintln!("  table III u{} N=2^{log_n} {label}: {per:.4} µs per NTT", W::BITS);
    }
    Ok(())
}

/// Runs every step for `u64`/62-bit and `u32`/30-bit at N = 2^12 and 2^16.
pub fn table(gpu: &Gpu, quick: bool) -> polymul::Result<Table> {
    let mut t = Table::new(
        "Table III on this GPU: forward NTT, cumulative optimisations",
        &[
            "word",
            "q bits",
            "N",
            "configuration",
            "µs single polynomial",
            "µs per NTT (batched)",
            "speed-up over the previous row",
            "cumulative speed-up",
        ],
    );
    t.note =
        "Each row adds one step to the row above; batched rows use 2^25 coefficients in total; single = \
              one polynomial, so mostly launch latency. Ratios come from this run only."
            .into();
    for log_n in [12u32, 16] {
        rows::<u64>(gpu, 62, log_n, quick, &mut t)?;
        rows::<u32>(gpu, 30, log_n, quick, &mut t)?;
    }
    Ok(t)
}
