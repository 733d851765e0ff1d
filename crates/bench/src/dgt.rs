//! Coala's DGT on the GPU: the configuration search (stage split × cluster
//! sizes, Coala's Fig. 5 and Table I), its Pareto front, the best
//! configurations (written as `dgt-wisdom.json` for the planner), and the
//! DGT against this project's 32-bit NTT at the same N and towers, timed in
//! one run.

use crate::plot::{self, Series};
use crate::report::Table;
use polymul::dgt::{DgtConfig, DgtParams, DgtPlan, dgt_primes};
use polymul::expert::GpuTiming;
use polymul::expert::SplitMix64;
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Gpu, Result};

/// Coefficients per batched timing.
const BATCH_COEFFS: usize = 1 << 24;

/// Coala's Table I, A100, forward µs for 1, 2, 4 towers (context only:
/// another GPU).
const COALA_A100: [(u32, [f64; 3]); 7] = [
    (10, [8.99, 8.89, 8.90]),
    (11, [9.15, 9.22, 9.09]),
    (12, [9.50, 9.35, 9.40]),
    (13, [9.69, 9.79, 10.11]),
    (14, [10.04, 10.34, 11.52]),
    (15, [10.78, 11.65, 14.11]),
    (16, [12.19, 14.37, 19.87]),
];

fn dgt_params(n: usize, towers: usize) -> Result<Vec<DgtParams<u32>>> {
    dgt_primes(30, n, towers)?.into_iter().map(|p| DgtParams::new(n, p)).collect()
}

/// Forward latency (one polynomial per tower) of a DGT plan, µs.
fn dgt_forward_us(
    gpu: &Gpu,
    params: &[DgtParams<u32>],
    cfg: DgtConfig,
    batch: usize,
    quick: bool,
) -> Result<f64> {
    let plan = crate::env_options::dgt_plan(DgtPlan::with_towers(gpu, params, cfg)?);
    let n = params[0].n();
    let mut rng = SplitMix64::new(n as u64 ^ batch as u64);
    let data: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(batch * n, p.p())).collect();
    let mut d = plan.upload(&data)?;
    let (warm, reps) = crate::repetitions(batch, quick);
    Ok(gpu.time(warm, reps, || plan.forward(&mut d).map(|_| ()))?.median_us)
}

/// The NTT's forward latency for the same towers (30-bit primes, default plan).
fn ntt_forward_us(gpu: &Gpu, n: usize, towers: usize, batch: usize, quick: bool) -> Result<f64> {
    let basis = RnsBasis::<u32>::new(n, 30, towers)?;
    let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options())?;
    let mut rng = SplitMix64::new(n as u64 ^ 77);
    let data: Vec<u32> = basis.towers().iter().flat_map(|p| rng.coeffs(batch * n, p.q())).collect();
    let mut d = plan.upload(&data)?;
    let (warm, reps) = crate::repetitions(batch, quick);
    Ok(gpu.time(warm, reps, || plan.forward(&mut d))?.median_us)
}

/// Indices of the Pareto-optimal points (no other point at most as large
/// in both coordinates and smaller in one), sorted by the first coordinate.
pub fn pareto(points: &[(f64, f64)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..points.len())
        .filter(|&i| {
            !points.iter().any(|q| {
                let p = points[i];
                q.0 <= p.0 && q.1 <= p.1 && (q.0 < p.0 || q.1 < p.1)
            })
        })
        .collect();
    idx.sort_by(|&a, &b| points[a].0.total_cmp(&points[b].0));
    idx
}

/// What the DGT section produces.
pub struct DgtReport {
    /// Tables: the search, the best configurations with the NTT beside them.
    pub tables: Vec<Table>,
    /// Figures `(file name, SVG)`.
    pub figures: Vec<(String, String)>,
    /// `dgt-wisdom.json`.
    pub wisdom: String,
}

/// Runs the search and the comparison (at the sizes `only`, if given).
pub fn run(gpu: &Gpu, device: &str, quick: bool, only: Option<&[u32]>) -> Result<DgtReport> {
    let short = device.split(" (").next().unwrap_or(device).to_string();
    let mut log_ns: Vec<u32> = if quick { vec![10, 12, 14, 16] } else { (10..=17).collect() };
    if let Some(only) = only {
        log_ns.retain(|l| only.contains(l));
    }
    let mut search = Table::new(
        "DGT configuration search (one 30-bit tower, u32): every stage split and cluster size",
        &["N", "configuration", "forward µs, one polynomial", "forward µs per polynomial, batched", "Pareto"],
    );
    search.note = format!(
        "Forward DGT (encoding with weights and packing, then the passes) timed with CUDA events, median; \
         batched = 2^24 coefficients. `k1` stages in the first kernel (the rest in the second), λ1, λ2 \
         dependency sets per block, `r` Gaussians per thread in registers (none: Coala's fixed access). Pareto: not beaten in both columns by another configuration of the same N. \
         Device: {short}."
    );
    let mut best = Table::new(
        "DGT against the NTT, forward transform (30-bit towers, u32)",
        &[
            "N",
            "towers",
            "DGT best configuration",
            "DGT µs",
            "NTT µs (default plan)",
            "DGT / NTT",
            "DGT µs per polynomial, batched",
            "NTT µs per polynomial, batched",
            "Coala Table I, A100 µs (context)",
        ],
    );
    best.note =
        "One polynomial per tower (latency) unless marked batched; the NTT is this project's RnsPlan with \
                 the same number of 30-bit towers, timed in the same run. Coala's published A100 times are \
                 context only (another GPU)."
            .into();
    let mut wisdom_entries = Vec::new();
    let mut front_fig = None;
    let mut lat: Vec<[f64; 6]> = Vec::new();
    for &log_n in &log_ns {
        let n = 1usize << log_n;
        let log_m = log_n - 1;
        let one = dgt_params(n, 1)?;
        let batch = (BATCH_COEFFS / n).max(1);
        let cfgs = DgtConfig::all(log_m, 5);
        let mut pts = Vec::with_capacity(cfgs.len());
        for cfg in &cfgs {
            let s = dgt_forward_us(gpu, &one, *cfg, 1, quick)?;
            let b = dgt_forward_us(gpu, &one, *cfg, batch, quick)? / batch as f64;
            pts.push((s, b));
        }
        let front = pareto(&pts);
        for (i, (cfg, (s, b))) in cfgs.iter().zip(&pts).enumerate() {
            let on = if front.contains(&i) { "yes" } else { "" };
            search.rows.push(vec![
                format!("2^{log_n}"),
                cfg.to_string(),
                format!("{s:.2}"),
                format!("{b:.4}"),
                on.into(),
            ]);
        }
        let best_single = (0..pts.len()).min_by(|&a, &b| pts[a].0.total_cmp(&pts[b].0)).unwrap_or(0);
        let best_batched = (0..pts.len()).min_by(|&a, &b| pts[a].1.total_cmp(&pts[b].1)).unwrap_or(0);
        eprintln!(
            "  dgt N=2^{log_n}: {} configurations; best single {} {:.2} µs, best batched {} {:.4} µs",
            cfgs.len(),
            cfgs[best_single],
            pts[best_single].0,
            cfgs[best_batched],
            pts[best_batched].1
        );
        if log_n == 16 || (quick && log_n == *log_ns.last().unwrap_or(&16)) {
            let f: Vec<(f64, f64, String)> =
                front.iter().map(|&i| (pts[i].0, pts[i].1, cfgs[i].to_string())).collect();
            front_fig = Some(plot::scatter_front(
                &format!("DGT configurations, N = 2^{log_n}, one tower ({short})"),
                "forward µs, one polynomial",
                "forward µs per polynomial, batched",
                &pts,
                &f,
            ));
        }
        // The best single-polynomial configurations, re-timed with 2 and 4 towers.
        let mut order: Vec<usize> = (0..pts.len()).collect();
        order.sort_by(|&a, &b| pts[a].0.total_cmp(&pts[b].0));
        let mut row_lat = [f64::NAN; 6];
        for (ti, towers) in [1usize, 2, 4].into_iter().enumerate() {
            let params = dgt_params(n, towers)?;
            let mut cand = Vec::new();
            for &i in order.iter().take(5) {
                cand.push((dgt_forward_us(gpu, &params, cfgs[i], 1, quick)?, cfgs[i]));
            }
            let Some(&(t_dgt, cfg)) = cand.iter().min_by(|a, b| a.0.total_cmp(&b.0)) else { continue };
            let t_ntt = ntt_forward_us(gpu, n, towers, 1, quick)?;
            let tb_batch = (BATCH_COEFFS / (n * towers)).max(1);
            let b_dgt = dgt_forward_us(gpu, &params, cfgs[best_batched], tb_batch, quick)?
                / (tb_batch * towers) as f64;
            let b_ntt = ntt_forward_us(gpu, n, towers, tb_batch, quick)? / (tb_batch * towers) as f64;
            let coala =
                COALA_A100.iter().find(|c| c.0 == log_n).map_or(String::new(), |c| format!("{:.2}", c.1[ti]));
            best.rows.push(vec![
                format!("2^{log_n}"),
                towers.to_string(),
                cfg.to_string(),
                format!("{t_dgt:.2}"),
                format!("{t_ntt:.2}"),
                format!("{:.2}", t_dgt / t_ntt),
                format!("{b_dgt:.4}"),
                format!("{b_ntt:.4}"),
                coala,
            ]);
            row_lat[ti] = t_dgt;
            row_lat[3 + ti] = t_ntt;
            wisdom_entries.push(format!(
                "    {{\"log_n\": {log_n}, \"towers\": {towers}, \"word_bits\": 32, \"stages1\": {}, \
                 \"log_cluster1\": {}, \"log_cluster2\": {}, \"log_unit\": {}, \"forward_us\": {t_dgt:.3}}}",
                cfg.stages1, cfg.log_cluster1, cfg.log_cluster2, cfg.log_unit
            ));
            eprintln!("  dgt vs ntt N=2^{log_n} towers {towers}: {t_dgt:.2} vs {t_ntt:.2} µs ({cfg})");
        }
        lat.push(row_lat);
    }
    let names =
        ["DGT 1 tower", "DGT 2 towers", "DGT 4 towers", "NTT 1 tower", "NTT 2 towers", "NTT 4 towers"];
    let series: Vec<Series> = (0..6)
        .map(|k| Series { name: names[k].into(), values: lat.iter().map(|r| r[k]).collect() })
        .collect();
    let mut figures = vec![(
        "dgt-vs-ntt.svg".to_string(),
        plot::log_line_chart(
            &format!("Forward transform latency, 30-bit towers ({short})"),
            "N",
            "µs (one polynomial per tower)",
            &log_ns,
            &series,
        ),
    )];
    if let Some(f) = front_fig {
        figures.push(("dgt-pareto.svg".to_string(), f));
    }
    let wisdom = format!(
        "{{\n  \"device\": \"{}\",\n  \"transform\": \"dgt\",\n  \"entries\": [\n{}\n  ]\n}}\n",
        short.replace('"', "'"),
        wisdom_entries.join(",\n")
    );
    Ok(DgtReport { tables: vec![best, search], figures, wisdom })
}

/// The CPU emulation's words of a DGT plan's call on `params`' towers, the
/// reference its GPU words are checked against: `a` (and `b`) hold the
/// towers one after another, the same number of words each (`batch · n`);
/// tower by tower, [`forward`](polymul::expert::emulation::dgt::forward)
/// of `a`'s slice (`b` = `None`) or
/// [`polymul`](polymul::expert::emulation::dgt::polymul) of `a`'s and `b`'s
/// slices, in tower order. The first error of the emulation is returned.
pub(crate) fn cpu_towers(
    params: &[DgtParams<u32>],
    cfg: &DgtConfig,
    a: &[u32],
    b: Option<&[u32]>,
) -> Result<Vec<u32>> {
    let words = a.len() / params.len();
    let mut want = Vec::with_capacity(a.len());
    for (i, p) in params.iter().enumerate() {
        let r = i * words..(i + 1) * words;
        match b {
            None => {
                let mut w = a[r].to_vec();
                polymul::expert::emulation::dgt::forward(p, cfg, &mut w)?;
                want.extend(w);
            }
            Some(b) => want.extend(polymul::expert::emulation::dgt::polymul(p, cfg, &a[r.clone()], &b[r])?),
        }
    }
    Ok(want)
}

/// `polymul-bench profile-dgt LOG_N TOWERS [BATCH] [CONFIG]`: the DGT
/// configuration `cfg` (else the default with the batched configuration
/// from `BATCHED_FROM_COEFFS` / `BATCHED_TRANSFORMS_FROM_COEFFS` coefficients, as `Multiplier` plans it)'s forward transform of `batch` polynomials per tower
/// (30-bit towers, `u32`) and its polymul, `reps` timed calls of each after
/// the CPU check of one, for Nsight Compute and the sanitizers. Prints the
/// median µs per call;
/// returns the exit status (1 if the GPU's words differ from the CPU's).
pub fn profile(log_n: u32, towers: usize, batch: usize, cfg: Option<DgtConfig>, reps: usize) -> i32 {
    let go = || -> Result<bool> {
        let gpu = crate::env_options::gpu()?;
        let n = 1usize << log_n;
        let params = dgt_params(n, towers)?;
        // The library's default (as `Multiplier` plans it): the default
        // configuration with the batched one from `BATCHED_FROM_COEFFS` coefficients.
        let log_m = params[0].log_m();
        let plan = match cfg {
            Some(cfg) => DgtPlan::with_towers(&gpu, &params, cfg)?,
            None => DgtPlan::with_towers(&gpu, &params, DgtConfig::default_for(log_m))?
                .with_batched(DgtConfig::batched_for(log_m))?,
        };
        let cfg = cfg.unwrap_or_else(|| DgtConfig::default_for(log_m));
        let plan = crate::env_options::dgt_plan(plan);
        let mut rng = SplitMix64::new(u64::from(log_n) ^ towers as u64);
        let data: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(batch * n, p.p())).collect();
        let want = cpu_towers(&params, &cfg, &data, None)?;
        let mut d = plan.upload(&data)?;
        plan.forward(&mut d)?;
        plan.synchronize()?;
        let mut ok = gpu.download(&d)? == want;
        let t = gpu.time(1, reps, || plan.forward(&mut d).map(|_| ()))?;
        // The polymul too (its pass kernels), checked against the CPU once.
        let other: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(batch * n, p.p())).collect();
        let want = cpu_towers(&params, &cfg, &data, Some(&other))?;
        let (mut a, mut b) = (plan.upload(&data)?, plan.upload(&other)?);
        plan.polymul_in_place(&mut a, &mut b)?;
        plan.synchronize()?;
        ok &= gpu.download(&a)? == want;
        let tp = gpu.time(1, reps, || plan.polymul_in_place(&mut a, &mut b))?;
        println!(
            "DGT N=2^{log_n} towers {towers} batch {batch} {cfg:?}: forward {:.2} µs, polymul {:.2} µs per call; \
             GPU == CPU: {ok}",
            t.median_us, tp.median_us
        );
        Ok(ok)
    };
    match go() {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            eprintln!("polymul-bench profile-dgt: {e}");
            1
        }
    }
}
