//! Fused against unfused polymul (Algorithm 8 of the SEED paper): the same
//! default plan with and without `fused_polymul`, timed in one run.

use crate::report::Table;
use polymul::random::SplitMix64;
use polymul::{Coeff, Gpu, NttParams, NttPlan, PlanOptions};

fn rows<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, quick: bool, t: &mut Table) -> polymul::Result<()> {
    let n = 1usize << log_n;
    let p = NttParams::<W>::with_prime_bits(n, bits)?;
    let unfused = NttPlan::new(gpu, p.clone())?;
    let fused =
        NttPlan::with_options(gpu, p.clone(), PlanOptions { fused_polymul: true, ..PlanOptions::default() })?;
    let mut rng = SplitMix64::new(log_n as u64);
    for batch in [1usize, (1usize << 25) / n] {
        let (warm, reps) = crate::repetitions(batch, quick);
        let mut a = unfused.upload(&rng.coeffs(n * batch, p.q()))?;
        let mut b = unfused.upload(&rng.coeffs(n * batch, p.q()))?;
        let tu = gpu.time(warm, reps, || unfused.polymul_in_place(&mut a, &mut b))?.median_us / batch as f64;
        let tf = gpu.time(warm, reps, || fused.polymul_in_place(&mut a, &mut b))?.median_us / batch as f64;
        t.rows.push(vec![
            format!("u{}", W::BITS),
            format!("2^{log_n}"),
            batch.to_string(),
            format!("{tu:.4}"),
            format!("{tf:.4}"),
            format!("{:.1}", 100.0 * (tu - tf) / tu),
            unfused.twiddle_bytes().to_string(),
            fused.twiddle_bytes().to_string(),
        ]);
        eprintln!("  fused u{} N=2^{log_n} batch {batch}: {tu:.4} -> {tf:.4} µs", W::BITS);
    }
    Ok(())
}

/// Fused vs unfused polymul at N = 2^11 and 2^16 (the paper's sizes).
pub fn table(gpu: &Gpu, quick: bool) -> polymul::Result<Table> {
    let mut t = Table::new(
        "Fused polymul (Algorithm 8) against unfused, default plan",
        &[
            "word",
            "N",
            "batch",
            "µs per product, unfused",
            "µs per product, fused",
            "% faster",
            "twiddle bytes, unfused",
            "twiddle bytes, fused",
        ],
    );
    t.note =
        "Both plans use the automatic kernel choice and Shoup twiddles; the fused plan stores and reads \
              only the first half of each table. Batched rows use 2^25 coefficients per operand."
            .into();
    for log_n in [11u32, 16] {
        rows::<u64>(gpu, 62, log_n, quick, &mut t)?;
        rows::<u32>(gpu, 30, log_n, quick, &mut t)?;
    }
    Ok(t)
}
