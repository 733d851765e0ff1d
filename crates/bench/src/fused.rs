//! Fused against unfused polymul (Algorithm 8 of the SEED paper): the same
//! default plan with and without `fused_polymul`, timed in one run.

use crate::report::Table;
use polymul::expert::GpuTiming;
use polymul::expert::{PlanOptions, SplitMix64};
use polymul::prelude::*;
use polymul::{Coeff, Gpu, NttParams, NttPlan};

/// `(label, % faster whole polymul, % faster step alone)` per row, for the figure.
type Gain = (String, f64, f64);

fn rows<W: Coeff>(
    gpu: &Gpu,
    bits: u32,
    log_n: u32,
    quick: bool,
    t: &mut Table,
    gains: &mut Vec<Gain>,
) -> polymul::Result<()> {
    let n = 1usize << log_n;
    let p = NttParams::<W>::with_prime_bits(n, bits)?;
    let unfused = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options())?;
    let fused = NttPlan::with_options(
        gpu,
        p.clone(),
        PlanOptions { fused_polymul: true, ..crate::env_options::plan_options() },
    )?;
    let mut rng = SplitMix64::new(log_n as u64);
    for batch in [1usize, (1usize << 25) / n] {
        let (warm, reps) = crate::repetitions(batch, quick);
        let mut a = unfused.upload(&rng.coeffs(n * batch, p.q()))?;
        let mut b = unfused.upload(&rng.coeffs(n * batch, p.q()))?;
        let tu = gpu.time(warm, reps, || unfused.polymul_in_place(&mut a, &mut b))?.median_us / batch as f64;
        let tf = gpu.time(warm, reps, || fused.polymul_in_place(&mut a, &mut b))?.median_us / batch as f64;
        // The middle step alone: last forward stage of both operands,
        // pointwise product, first inverse stage, against the fused step.
        let su = gpu.time(warm, reps, || unfused.hadamard_step(&mut a, &mut b))?.median_us / batch as f64;
        let sf = gpu.time(warm, reps, || fused.hadamard_step(&mut a, &mut b))?.median_us / batch as f64;
        let gain = |u: f64, f: f64| 100.0 * (u - f) / u;
        t.rows.push(vec![
            format!("u{}", W::BITS),
            format!("2^{log_n}"),
            batch.to_string(),
            format!("{tu:.4}"),
            format!("{tf:.4}"),
            format!("{:.1}", gain(tu, tf)),
            format!("{su:.4}"),
            format!("{sf:.4}"),
            format!("{:.2}", su / sf),
            match log_n {
                11 => "6.1% (single block); step 1.31×".to_string(),
                16 => "2.4% (multi-block); step 1.31×".to_string(),
                _ => String::new(),
            },
            unfused.twiddle_bytes().to_string(),
            fused.twiddle_bytes().to_string(),
        ]);
        let how = if batch == 1 { "single".to_string() } else { format!("×{batch}") };
        gains.push((format!("u{} 2^{log_n} {how}", W::BITS), gain(tu, tf), gain(su, sf)));
        eprintln!(
            "  fused u{} N=2^{log_n} batch {batch}: polymul {tu:.4} -> {tf:.4} µs, step {su:.4} -> {sf:.4} µs",
            W::BITS
        );
    }
    Ok(())
}

/// Fused vs unfused polymul and the fused step alone at N = 2^11 and 2^16
/// (the paper's sizes), with a figure of the gains (`fused.svg`).
pub fn table(gpu: &Gpu, device: &str, quick: bool) -> polymul::Result<(Table, String)> {
    let mut t = Table::new(
        "Fused polymul (Algorithm 8) against unfused, default plan",
        &[
            "word",
            "N",
            "batch",
            "µs per product, unfused",
            "µs per product, fused",
            "% faster",
            "µs per step, unfused (stage + product + stage)",
            "µs per step, fused",
            "step speed-up",
            "SEED paper (V100, context): polymul gain; step speed-up",
            "twiddle bytes, unfused",
            "twiddle bytes, fused",
        ],
    );
    t.note =
        "Both plans use the automatic kernel choice and Shoup twiddles; the fused plan stores and reads \
              only the first half of each table. The step columns time the middle of a polymul alone \
              (`NttPlan::hadamard_step`): unfused = the last forward radix-2 stage of both operands, the \
              pointwise product and the first inverse stage (5 products per pair, 4 launches); fused = \
              Algorithm 8's Karatsuba step (4 products, 1 launch); both give the same words (checked in the \
              GPU suite). Batched rows use 2^25 coefficients per operand."
            .into();
    let mut gains = Vec::new();
    for log_n in [11u32, 16] {
        rows::<u64>(gpu, 62, log_n, quick, &mut t, &mut gains)?;
        rows::<u32>(gpu, 30, log_n, quick, &mut t, &mut gains)?;
    }
    let short = device.split(" (").next().unwrap_or(device);
    let svg = crate::plot::grouped_bar_chart(
        &format!("Fused polymul (Algorithm 8): % faster than unfused ({short})"),
        "% faster than unfused",
        &gains.iter().map(|g| g.0.clone()).collect::<Vec<_>>(),
        &[
            crate::plot::Series { name: "whole polymul".into(), values: gains.iter().map(|g| g.1).collect() },
            crate::plot::Series {
                name: "middle step alone".into(),
                values: gains.iter().map(|g| g.2).collect(),
            },
        ],
    );
    Ok((t, svg))
}
