//! RNS polymul modulo a large `Q` (HEAAN's size: N = 2^16, log2 Q ≈ 1240):
//! 62-bit towers on 64-bit words against 30- and 28-bit towers on 32-bit
//! words, all towers in one launch per step against a plan per tower, and
//! the host's conversion cost (residues in, CRT out) on its own.

use crate::plot::{self, Series};
use crate::report::Table;
use polymul::random::SplitMix64;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, Gpu, NttPlan, PlanOptions};
use std::time::Instant;

/// The ring of the measurement: N and the bits of Q.
pub const LOG_N: u32 = 16;
/// Bits of Q: HEAAN's default.
pub const LOG_Q: u64 = 1240;

/// Polynomial pairs per batched measurement.
pub const BATCH: usize = 8;

struct Row {
    cells: Vec<String>,
    label: String,
    per_tower_us: f64,
    one_launch_us: f64,
    fused_us: f64,
}

fn rows<W: Coeff>(gpu: &Gpu, bits: u32, copy_gbs: f64, quick: bool) -> Result<Vec<Row>, String> {
    rows_inner::<W>(gpu, bits, copy_gbs, quick).map_err(|e| e.to_string())?
}

fn rows_inner<W: Coeff>(
    gpu: &Gpu,
    bits: u32,
    copy_gbs: f64,
    quick: bool,
) -> polymul::Result<Result<Vec<Row>, String>> {
    let n = 1usize << LOG_N;
    let basis = RnsBasis::<W>::with_modulus_bits(n, bits, LOG_Q)?;
    let k = basis.len();
    let plan = RnsPlan::new(gpu, &basis)?;
    let fused =
        RnsPlan::with_options(gpu, &basis, PlanOptions { fused_polymul: true, ..PlanOptions::default() })?;
    let per_tower: Vec<NttPlan<W>> =
        basis.towers().iter().map(|p| NttPlan::new(gpu, p.clone())).collect::<polymul::Result<_>>()?;
    let mut out = Vec::new();
    for batch in [1usize, BATCH] {
        let (warm, reps) = crate::repetitions(batch, quick);
        let mut rng = SplitMix64::new(bits as u64 ^ batch as u64);
        let len = n * batch;
        let mut residues =
            || -> Vec<W> { basis.towers().iter().flat_map(|p| rng.coeffs(len, p.q())).collect() };
        let (ra, rb) = (residues(), residues());
        let (mut a, mut b) = (plan.upload(&ra)?, plan.upload(&rb)?);
        let one = gpu.time(warm, reps, || plan.polymul_in_place(&mut a, &mut b))?.median_us;
        let fu = gpu.time(warm, reps, || fused.polymul_in_place(&mut a, &mut b))?.median_us;
        // The same work as k separate plans: k launches per step.
        let mut ta = Vec::with_capacity(k);
        let mut tb = Vec::with_capacity(k);
        for (i, p) in per_tower.iter().enumerate() {
            ta.push(p.upload(&ra[i * len..(i + 1) * len])?);
            tb.push(p.upload(&rb[i * len..(i + 1) * len])?);
        }
        let sep = gpu
            .time(warm, reps, || {
                for (p, (x, y)) in per_tower.iter().zip(ta.iter_mut().zip(tb.iter_mut())) {
                    p.polymul_in_place(x, y)?;
                }
                Ok(())
            })?
            .median_us;
        // Global-memory bytes of one tower's polymul: 3 transforms of
        // `passes` read+write passes, plus the pointwise pass (2 reads, 1 write).
        let w = std::mem::size_of::<W>();
        let passes = plan.global_passes(batch);
        let bytes = (k * batch * (3 * passes as usize * 2 * n + 3 * n) * w) as f64;
        let gbs = bytes / (one * 1e3);
        // Host conversion, once per configuration (batch 1): residues of
        // random coefficients below Q in, CRT reconstruction out.
        let (to_ms, from_ms) = if batch == 1 {
            let t0 = Instant::now();
            let big = basis.from_residues(&ra)?;
            let from_ms = t0.elapsed().as_secs_f64() * 1e3;
            let t1 = Instant::now();
            let back = basis.to_residues(&big)?;
            let to_ms = t1.elapsed().as_secs_f64() * 1e3;
            if back != ra {
                return Ok(Err(format!("u{} {bits}-bit: CRT round trip changed the residues", W::BITS)));
            }
            (format!("{to_ms:.0}"), format!("{from_ms:.0}"))
        } else {
            ("".into(), "".into())
        };
        let per = |us: f64| us / batch as f64;
        eprintln!(
            "  rns u{} {k}x{bits}-bit batch {batch}: per-tower plans {:.1}, one launch {:.1}, fused {:.1} µs per polymul",
            W::BITS,
            per(sep),
            per(one),
            per(fu)
        );
        out.push(Row {
            cells: vec![
                format!("u{}", W::BITS),
                bits.to_string(),
                k.to_string(),
                basis.modulus().bits().to_string(),
                batch.to_string(),
                format!("{:.1}", per(sep)),
                format!("{:.1}", per(one)),
                format!("{:.1}", per(fu)),
                format!("{:.2}", sep / one),
                format!("{:.3}", per(one) / k as f64),
                format!("{gbs:.0}"),
                format!("{:.0}", 100.0 * gbs / copy_gbs),
                format!("{}", plan.kernel_for(batch).name()),
                to_ms,
                from_ms,
            ],
            label: format!("u{} {k}×{bits}b ×{batch}", W::BITS),
            per_tower_us: per(sep),
            one_launch_us: per(one),
            fused_us: per(fu),
        });
    }
    Ok(Ok(out))
}

/// The RNS table and its figure (`rns.svg`).
pub fn table(gpu: &Gpu, copy_gbs: f64, device: &str, quick: bool) -> Result<(Table, String), String> {
    let mut t = Table::new(
        &format!("RNS polymul modulo Q, N = 2^{LOG_N}, log2 Q ≥ {LOG_Q}"),
        &[
            "word",
            "tower bits",
            "towers",
            "Q bits",
            "pairs",
            "µs per RNS polymul, a plan per tower",
            "µs per RNS polymul, one launch per step",
            "µs per RNS polymul, one launch per step, fused",
            "speed-up of one launch",
            "µs per tower (one launch)",
            "GB/s (one launch)",
            "% of copy",
            "kernel (auto)",
            "host: residues in, ms",
            "host: CRT out, ms",
        ],
    );
    t.note = format!(
        "Device-resident residues, tower-major; the products are timed on the GPU only (CUDA events, median). \
         'A plan per tower' runs the same default plan tower by tower (one launch per step per tower); 'one \
         launch per step' covers every tower in each launch (towers on the grid's y axis). GB/s counts each \
         tower's 3 transforms (every pass reads and writes N words) and the pointwise pass; % of copy is \
         against the {copy_gbs:.0} GB/s measured in the same run. Host conversion: one polynomial of N \
         coefficients below Q, one run, on this machine's CPU (single thread, num-bigint)."
    );
    let mut all = Vec::new();
    all.extend(rows::<u64>(gpu, 62, copy_gbs, quick)?);
    all.extend(rows::<u32>(gpu, 30, copy_gbs, quick)?);
    all.extend(rows::<u32>(gpu, 28, copy_gbs, quick)?);
    let cats: Vec<String> = all.iter().map(|r| r.label.clone()).collect();
    let series = vec![
        Series { name: "a plan per tower".into(), values: all.iter().map(|r| r.per_tower_us).collect() },
        Series { name: "one launch per step".into(), values: all.iter().map(|r| r.one_launch_us).collect() },
        Series { name: "one launch, fused".into(), values: all.iter().map(|r| r.fused_us).collect() },
    ];
    let short = device.split(" (").next().unwrap_or(device);
    let svg = plot::grouped_bar_chart(
        &format!("RNS polymul, N = 2^{LOG_N}, log2 Q ≈ {LOG_Q}: µs per product ({short})"),
        "µs per RNS polymul",
        &cats,
        &series,
    );
    t.rows = all.into_iter().map(|r| r.cells).collect();
    Ok((t, svg))
}
