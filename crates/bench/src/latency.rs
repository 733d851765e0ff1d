//! The latency section (issue 15): what one call on one polynomial costs.
//!
//! Per operation, in one process on one device:
//! * **plain**: CUDA events around one call (median of many), and the host
//!   clock around the call and its wait;
//! * **CPU**: host time to queue one call on an idle GPU (median);
//! * **back to back**: the same 1000 calls, events around all of them, one
//!   wait, per call;
//! * **graph**: the call captured once as a CUDA graph ([`polymul::Graph`]),
//!   one replay timed with events (median), and 100 replays back to back.
//!
//! The goals and the best open figures quoted in the issue (#15; #34's
//! one-call goals after them, in the column its table names) stand beside
//! the rows they concern. The DGT rows run on both pipelines (fused, and
//! Coala's separate encoding, pointwise and decoding kernels), and the
//! last rows are the launch floor: chains of 1, 2 and 3 empty kernels
//! launched as the passes are, what an operation of that many launches
//! cannot beat.

use crate::report::Table;
use polymul::dgt::{DgtConfig, DgtParams, DgtPlan, dgt_primes};
use polymul::expert::GpuTiming;
use polymul::expert::{DgtPipeline, SplitMix64};
use polymul::prelude::*;
use polymul::{Coeff, Gpu, Graph, NttParams, NttPlan, Result};
use std::time::Instant;

/// Calls queued back to back for the CPU and back-to-back columns.
const BACK_TO_BACK: usize = 1000;
/// Graph replays queued back to back.
const REPLAYS: usize = 100;

/// One row's numbers, µs.
struct Latency {
    plain: f64,
    wall: f64,
    cpu: f64,
    back_to_back: f64,
    graph: f64,
    graph_b2b: f64,
}

/// Times `call` (one operation queued on the GPU's stream) and `graph`
/// (the same operation captured).
fn measure<S: polymul::GraphState>(
    gpu: &Gpu,
    quick: bool,
    mut call: impl FnMut() -> Result<()>,
    graph: &Graph<'_, S>,
) -> Result<Latency> {
    let (warm, reps) = if quick { (20, 100) } else { (50, 400) };
    let plain = gpu.time(warm, reps, &mut call)?.median_us;
    let mut walls = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        call()?;
        gpu.synchronize()?;
        walls.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let wall = polymul::expert::median(&mut walls);
    // The host time of one call on an idle GPU (the queue never fills).
    let mut cpus = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        call()?;
        cpus.push(t.elapsed().as_secs_f64() * 1e6);
        gpu.synchronize()?;
    }
    let cpu = polymul::expert::median(&mut cpus);
    // 1000 calls queued, one wait: events around all.
    let b2b = gpu.time(1, 3, || {
        for _ in 0..BACK_TO_BACK {
            call()?;
        }
        Ok(())
    })?;
    let g = gpu.time(warm, reps, || graph.launch())?.median_us;
    let gb = gpu.time(1, 5, || {
        for _ in 0..REPLAYS {
            graph.launch()?;
        }
        Ok(())
    })?;
    Ok(Latency {
        plain,
        wall,
        cpu,
        back_to_back: b2b.median_us / BACK_TO_BACK as f64,
        graph: g,
        graph_b2b: gb.median_us / REPLAYS as f64,
    })
}

/// The goal and the best open figure the issues quote for a row, if any
/// (issue 15's, then issue 34's with the column it times).
fn goal(word: u32, log_n: u32, op: &str) -> (&'static str, &'static str) {
    match (word, log_n, op) {
        (64, 16, "forward") => (
            "≤ 8 / ≤ 4.5 / ≤ 4; issue 34: graph ×100 ≤ 5.0",
            "troy-nova 13.62 plain; GPU-NTT 9.22 graph, 7.68 graph ×100; troy-nova 10.04 ×100",
        ),
        (32, 16, "forward") => ("≤ 6 / ≤ 4 / ≤ 3; issue 34: graph ×100 ≤ 4.6", "Cheddar 12.61 / 8.06 / 6.13"),
        (64, 12, "forward") => ("≤ 6 plain", "troy-nova 11.52, Phantom 14.50, GPU-NTT 16.26"),
        (32, 10, "forward") => ("≤ 4 plain", "—"),
        (64, 16, "polymul") => {
            ("≤ 12 plain; ≤ 8 graph; issue 34: graph ×100 ≤ 9.0", "≈ 45 (3 Phantom calls)")
        }
        (32, 16, "polymul") => ("≤ 10 plain", "≈ 38 (3 Cheddar calls)"),
        (32, 10, "DGT forward") => {
            ("≤ 3 plain; issue 34: back to back ≤ 3.5", "Coala 3.55 (RTX 2080), 8.99 (A100)")
        }
        (32, 16, "DGT forward") => {
            ("≤ 6 plain; issue 34: back to back ≤ 8", "Coala 11.81 (RTX 2080), 12.19 (A100)")
        }
        (32, 16, "DGT polymul") => ("issue 34: back to back ≤ 16", "—"),
        _ => ("", ""),
    }
}

fn push(t: &mut Table, word: u32, log_n: u32, op: &str, towers: usize, l: &Latency, kernel: &str) {
    let (g, best) = goal(word, log_n, if towers == 1 { op } else { "" });
    let (g, best) = match (word, log_n, op, towers) {
        (32, 16, "DGT forward", 4) => ("≤ 10 plain; issue 34: back to back ≤ 12", "Coala 19.87 (A100)"),
        _ => (g, best),
    };
    push_row(
        t,
        [format!("u{word}"), format!("2^{log_n}"), op.to_string(), towers.to_string()],
        l,
        g,
        best,
        kernel,
    );
}

fn push_row(t: &mut Table, what: [String; 4], l: &Latency, goal: &str, best: &str, kernel: &str) {
    let [word, n, op, towers] = what;
    eprintln!(
        "  latency {word} {n} {op} ×{towers}: plain {:.2} (wall {:.2}, CPU {:.2}), back to back {:.2}, graph \
         {:.2}, graph ×{REPLAYS} {:.2} µs",
        l.plain, l.wall, l.cpu, l.back_to_back, l.graph, l.graph_b2b
    );
    t.rows.push(vec![
        word,
        n,
        op,
        towers,
        format!("{:.2}", l.plain),
        format!("{:.2}", l.wall),
        format!("{:.2}", l.cpu),
        format!("{:.2}", l.back_to_back),
        format!("{:.2}", l.graph),
        format!("{:.2}", l.graph_b2b),
        goal.to_string(),
        best.to_string(),
        kernel.to_string(),
    ]);
}

/// The floor of a `k`-launch operation: `k` empty kernels launched as the
/// passes are ([`polymul::expert::LaunchChain`]), for k = 1, 2, 3.
fn floor_rows(gpu: &Gpu, quick: bool, t: &mut Table) -> Result<()> {
    for k in 1..=3 {
        let chain = polymul::expert::LaunchChain::new(gpu, k)?;
        let g = chain.capture()?;
        let l = measure(gpu, quick, || chain.queue(), &g)?;
        let what = ["—".into(), "—".into(), format!("{k} empty launch(es)"), "—".into()];
        push_row(t, what, &l, "", "", "launch_floor (floor of a k-launch call)");
    }
    Ok(())
}

/// Forward, inverse and polymul of one polynomial on the default NTT plan.
fn ntt_rows<W: Coeff>(
    gpu: &Gpu,
    bits: u32,
    log_n: u32,
    quick: bool,
    t: &mut Table,
    failures: &mut Vec<String>,
) -> Result<()> {
    let n = 1usize << log_n;
    let plan = NttPlan::with_options(
        gpu,
        NttParams::<W>::with_prime_bits(n, bits)?,
        crate::env_options::plan_options(),
    )?;
    let q = plan.params().q();
    let mut rng = SplitMix64::new(u64::from(log_n) << 8 | u64::from(W::BITS));
    let x = rng.coeffs(n, q);
    let y = rng.coeffs(n, q);
    let kernel = format!(
        "{} r{}, forward in {} launch(es)",
        plan.kernel_for(1).name(),
        plan.radix_for(1),
        plan.global_passes(1)
    );
    // Check the graphs' products against the CPU once: a latency figure of
    // a wrong result means nothing.
    let mut pg = plan.capture((plan.upload(&x)?, plan.upload(&y)?), |p, (a, b)| p.polymul_in_place(a, b))?;
    pg.launch()?;
    pg.synchronize()?;
    if gpu.download(&pg.state().0)? != polymul::expert::emulation::polymul(plan.params(), &x, &y)? {
        failures.push(format!(
            "latency: the captured u{} polymul at N = 2^{log_n} differs from the CPU",
            W::BITS
        ));
    }
    let mut a = plan.upload(&x)?;
    let fg = plan.capture(plan.upload(&x)?, |p, a| p.forward(a))?;
    let l = measure(gpu, quick, || plan.forward(&mut a), &fg)?;
    push(t, W::BITS, log_n, "forward", 1, &l, &kernel);
    let ig = plan.capture(plan.upload(&x)?, |p, a| p.inverse(a))?;
    let l = measure(gpu, quick, || plan.inverse(&mut a), &ig)?;
    push(t, W::BITS, log_n, "inverse", 1, &l, &kernel);
    let mut b = plan.upload(&y)?;
    // `b` is scratch after each product (its words stay reduced).
    gpu.copy_into(pg.state_mut().1, &y)?;
    let l = measure(gpu, quick, || plan.polymul_in_place(&mut a, &mut b), &pg)?;
    push(t, W::BITS, log_n, "polymul", 1, &l, &kernel);
    Ok(())
}

/// The RNS polymul over 4 towers of 62-bit primes (one launch per pass
/// covers every tower).
fn rns_rows(gpu: &Gpu, log_n: u32, quick: bool, t: &mut Table, failures: &mut Vec<String>) -> Result<()> {
    let n = 1usize << log_n;
    let basis = polymul::rns::RnsBasis::<u64>::new(n, 62, 4)?;
    let plan = polymul::rns::RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options())?;
    let mut rng = SplitMix64::new(u64::from(log_n) * 131);
    let x: Vec<u64> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
    let y: Vec<u64> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
    let pg = plan.capture((plan.upload(&x)?, plan.upload(&y)?), |p, (a, b)| p.polymul_in_place(a, b))?;
    pg.launch()?;
    pg.synchronize()?;
    if gpu.download(&pg.state().0)? != polymul::expert::emulation::rns_polymul(&basis, &x, &y)? {
        failures.push(format!("latency: the captured RNS polymul at N = 2^{log_n} differs from the CPU"));
    }
    let (mut a, mut b) = (plan.upload(&x)?, plan.upload(&y)?);
    let l = measure(gpu, quick, || plan.polymul_in_place(&mut a, &mut b), &pg)?;
    push(t, 64, log_n, "RNS polymul", 4, &l, plan.kernel_for(1).name());
    Ok(())
}

/// The DGT's forward transform and polymul (1 and 4 towers of 30-bit
/// primes) on `pipeline`'s kernels; the captured polymul is checked against
/// the CPU emulation first.
#[allow(clippy::too_many_arguments)]
fn dgt_rows(
    gpu: &Gpu,
    log_n: u32,
    towers: usize,
    pipeline: DgtPipeline,
    quick: bool,
    t: &mut Table,
    failures: &mut Vec<String>,
) -> Result<()> {
    let n = 1usize << log_n;
    let params = dgt_primes(30, n, towers)?
        .into_iter()
        .map(|p| DgtParams::<u32>::new(n, p))
        .collect::<Result<Vec<_>>>()?;
    let log_m = params[0].log_m();
    let config = DgtConfig::default_for(log_m);
    let mut plan = DgtPlan::with_pipeline(gpu, &params, config, pipeline)?;
    // As `Multiplier` plans the default: the batched configuration from
    // `BATCHED_FROM_COEFFS` coefficients (polymul; towers count) or
    // `BATCHED_TRANSFORMS_FROM_COEFFS` (forward, inverse).
    if pipeline == DgtPipeline::Fused {
        plan = plan.with_batched(DgtConfig::batched_for(log_m))?;
    }
    let plan = crate::env_options::dgt_plan(plan);
    let mut rng = SplitMix64::new(u64::from(log_n) * 31 + towers as u64);
    let x: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
    let y: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
    let pg = plan.capture((plan.upload(&x)?, plan.upload(&y)?), |p, (a, b)| p.polymul_in_place(a, b))?;
    pg.launch()?;
    pg.synchronize()?;
    let want = crate::dgt::cpu_towers(&params, &config, &x, Some(&y))?;
    if gpu.download(&pg.state().0)? != want {
        failures.push(format!(
            "latency: the captured DGT polymul ({pipeline:?}, N = 2^{log_n}, {towers} towers) differs"
        ));
    }
    let (f, _, m) = plan.launches();
    let kernel = format!("DGT {pipeline:?}: forward {f}, polymul {m} launch(es)");
    let op = |o: &str| {
        if pipeline == DgtPipeline::Fused {
            format!("DGT {o}")
        } else {
            format!("DGT {o} (Coala's pipeline)")
        }
    };
    let mut a = plan.upload(&x)?;
    let mut b = plan.upload(&y)?;
    let fg = plan.capture(plan.upload(&x)?, |p, a| p.forward(a).map(|_| ()))?;
    let l = measure(gpu, quick, || plan.forward(&mut a).map(|_| ()), &fg)?;
    push(t, 32, log_n, &op("forward"), towers, &l, &kernel);
    let l = measure(gpu, quick, || plan.polymul_in_place(&mut a, &mut b), &pg)?;
    push(t, 32, log_n, &op("polymul"), towers, &l, &kernel);
    Ok(())
}

/// The latency table: NTT forward, inverse and polymul at N = 2^10 … 2^16
/// (both words), RNS polymul (4 towers), DGT forward and polymul (1 and 4
/// towers).
/// Returns the table and the failed checks.
pub fn table(gpu: &Gpu, quick: bool) -> Result<(Table, Vec<String>)> {
    let mut t = Table::new(
        "Latency: one polynomial per call",
        &[
            "word",
            "N",
            "op",
            "towers",
            "plain µs (events)",
            "plain µs (host clock, call + wait)",
            "CPU µs to queue one call",
            "back to back µs/call (1000 queued, one wait)",
            "graph replay µs (events)",
            "graph ×100 µs/replay",
            "goal µs (plain / graph / back to back)",
            "best open code, µs (H100, issue 15)",
            "kernel",
        ],
    );
    t.note = format!(
        "One polynomial (per tower) per call on device buffers, the plan's default kernels. Plain: CUDA events \
         around one call after warm-up, median; host clock: the call and a stream synchronize. CPU: the host \
         time to queue one call (the call alone, the GPU idle before it; median). Back to back: events around \
         {BACK_TO_BACK} calls queued without a wait, per call. Graph: the call captured once (`plan.capture`), one replay \
         between events (median), and {REPLAYS} replays back to back, per replay. Random inputs; the captured \
         polymul is checked against the CPU before timing."
    );
    let mut failures = Vec::new();
    let sizes: &[u32] = if quick { &[10, 12, 16] } else { &[10, 12, 14, 16] };
    for &log_n in sizes {
        ntt_rows::<u32>(gpu, 30, log_n, quick, &mut t, &mut failures)?;
        ntt_rows::<u64>(gpu, 62, log_n, quick, &mut t, &mut failures)?;
    }
    rns_rows(gpu, 16, quick, &mut t, &mut failures)?;
    for pipeline in [DgtPipeline::Fused, DgtPipeline::Coala] {
        for &log_n in sizes {
            dgt_rows(gpu, log_n, 1, pipeline, quick, &mut t, &mut failures)?;
        }
        dgt_rows(gpu, 16, 4, pipeline, quick, &mut t, &mut failures)?;
    }
    floor_rows(gpu, quick, &mut t)?;
    Ok((t, failures))
}
