//! The benchmark runner. On a GPU: the measured device-to-device copy
//! bandwidth (the ceiling), then the radix-2 NTT, inverse NTT and polymul for
//! every N and word size, single (latency) and batched (throughput), each
//! with achieved GB/s and percent of the copy bandwidth. Without a GPU: the
//! CPU path, said so in one line.

use crate::plot::{self, Series};
use crate::reductions;
use crate::report::{self, Table};
use crate::{Options, WORD_CONFIGS, log_ns};
use polymul::expert::GpuTiming;
use polymul::expert::{NttKernel, PlanOptions, SplitMix64, emulation, median};
use polymul::prelude::*;
use polymul::{Coeff, Gpu, NttParams, NttPlan};

/// The kernel configurations of the NTT table: every kernel, the tiled
/// kernel at each largest radix (radix 2 and 4 also kept entirely in shared
/// memory), the 2D kernels and the automatic choice. `(name, options)`.
pub fn configs() -> Vec<(String, PlanOptions)> {
    let mut v = vec![(
        "radix-2 global".to_string(),
        PlanOptions { kernel: NttKernel::Radix2Global, ..crate::env_options::plan_options() },
    )];
    let tiled = |radix: usize, shared_only: bool| PlanOptions {
        kernel: NttKernel::Tiled,
        radix: Some(radix),
        shared_only,
        ..crate::env_options::plan_options()
    };
    v.push(("tiled r2 smem".into(), tiled(2, true)));
    v.push(("tiled r4 smem".into(), tiled(4, true)));
    for r in [4usize, 8, 16] {
        v.push((format!("tiled r{r}"), tiled(r, false)));
    }
    for r in [8usize, 16] {
        let o = PlanOptions { kernel: NttKernel::TwoD, radix: Some(r), ..crate::env_options::plan_options() };
        v.push((format!("2d r{r}"), o));
    }
    v.push((
        "2d pipelined".into(),
        PlanOptions { kernel: NttKernel::TwoDPipelined, ..crate::env_options::plan_options() },
    ));
    for r in [8usize, 16] {
        let o = PlanOptions { kernel: NttKernel::Lazy, radix: Some(r), ..crate::env_options::plan_options() };
        v.push((format!("lazy r{r}"), o));
    }
    v.push((
        "cluster".into(),
        PlanOptions { kernel: NttKernel::Cluster, ..crate::env_options::plan_options() },
    ));
    v.push(("auto".into(), crate::env_options::plan_options()));
    v
}

/// Most polynomials a pipelined (one launch pair per polynomial) batched row
/// uses.
const PIPELINED_MAX_BATCH: usize = 256;

use std::time::Instant;

/// Coefficients per batched run (2^25: 256 MiB of u64, 128 MiB of u32).
const BATCH_COEFFS: usize = 1 << 25;

/// Bytes one transform of a `batch` moves through global memory: every pass
/// reads and writes all N words of every polynomial.
pub fn ntt_bytes<W: Coeff>(plan: &NttPlan<W>, batch: usize) -> f64 {
    (plan.global_passes(batch) as usize * 2 * plan.params().n() * std::mem::size_of::<W>() * batch) as f64
}

struct Ctx<'a> {
    gpu: &'a Gpu,
    copy_gbs: f64,
    quick: bool,
}

/// Three significant digits (at least), without exponent.
fn fmt(x: f64) -> String {
    match x {
        x if x >= 100.0 => format!("{x:.0}"),
        x if x >= 10.0 => format!("{x:.1}"),
        x if x >= 1.0 => format!("{x:.2}"),
        x if x >= 0.1 => format!("{x:.3}"),
        x => format!("{x:.4}"),
    }
}

fn gpu_rows<W: Coeff>(
    c: &Ctx<'_>,
    (name, opts): &(String, PlanOptions),
    bits: u32,
    log_n: u32,
    t: &mut Table,
) -> polymul::Result<()> {
    let n = 1usize << log_n;
    let w = std::mem::size_of::<W>();
    let plan = NttPlan::with_options(c.gpu, NttParams::<W>::with_prime_bits(n, bits)?, *opts)?;
    let q = plan.params().q();
    let mut rng = SplitMix64::new(0xbe_u64 ^ n as u64);
    let pointwise = (3 * n * w) as f64;
    let mut big = (BATCH_COEFFS / n).max(1);
    if opts.kernel == NttKernel::TwoDPipelined {
        big = big.min(PIPELINED_MAX_BATCH);
    }
    for batch in [1usize, big] {
        let transform = ntt_bytes(&plan, batch) / batch as f64;
        let (warm, reps) = crate::repetitions(batch, c.quick);
        let mut a = plan.upload(&rng.coeffs(n * batch, q))?;
        let mut b = plan.upload(&rng.coeffs(n * batch, q))?;
        let ops: [(&str, f64); 3] =
            [("forward", transform), ("inverse", transform), ("polymul", 3.0 * transform + pointwise)];
        for (op, bytes) in ops {
            let timing = c.gpu.time(warm, reps, || match op {
                "forward" => plan.forward(&mut a),
                "inverse" => plan.inverse(&mut a),
                _ => plan.polymul_in_place(&mut a, &mut b),
            })?;
            let per = timing.median_us / batch as f64;
            let gbs = bytes * batch as f64 / (timing.median_us * 1e3);
            let one_pass = (2 * n * w * batch) as f64 / (timing.median_us * 1e3);
            t.rows.push(vec![
                format!("u{}", W::BITS),
                bits.to_string(),
                format!("2^{log_n}"),
                op.into(),
                batch.to_string(),
                fmt(timing.median_us),
                fmt(per),
                fmt(gbs),
                format!("{:.1}", 100.0 * gbs / c.copy_gbs),
                fmt(one_pass),
                timing.reps.to_string(),
                name.clone(),
                if op == "inverse" { plan.inverse_kernel_for(batch) } else { plan.kernel_for(batch) }
                    .name()
                    .into(),
            ]);
            eprintln!("  u{} N=2^{log_n} {name:14} {op:8} batch {batch:6}: {:>10.3} µs/NTT", W::BITS, per);
        }
    }
    Ok(())
}

fn cpu_rows<W: Coeff>(bits: u32, log_n: u32, quick: bool, t: &mut Table) -> polymul::Result<()> {
    let n = 1usize << log_n;
    let p = NttParams::<W>::with_prime_bits(n, bits)?;
    let mut rng = SplitMix64::new(n as u64);
    let a = rng.coeffs(n, p.q());
    let b = rng.coeffs(n, p.q());
    let reps = if quick { 3 } else { 11 };
    for op in ["forward", "inverse", "polymul"] {
        let mut samples = Vec::with_capacity(reps);
        for _ in 0..reps {
            let mut x = a.clone();
            let t0 = Instant::now();
            match op {
                "forward" => emulation::forward(&p, &mut x)?,
                "inverse" => emulation::inverse(&p, &mut x)?,
                _ => x = emulation::polymul(&p, &a, &b)?,
            }
            samples.push(t0.elapsed().as_secs_f64() * 1e6);
            std::hint::black_box(&x);
        }
        let us = median(&mut samples);
        t.rows.push(vec![
            format!("u{}", W::BITS),
            bits.to_string(),
            format!("2^{log_n}"),
            op.into(),
            fmt(us),
        ]);
        eprintln!("  cpu u{} N=2^{log_n} {op:8}: {us:>10.1} µs", W::BITS);
    }
    Ok(())
}

fn stamp(device: &str, opts: &Options) -> String {
    format!(
        "# polymul benchmark results\n\n- device: {device}\n- date: {}\n- command: `{}`\n- polymul {} (commit {})\n",
        report::today_utc(),
        opts.command_line,
        env!("CARGO_PKG_VERSION"),
        env!("POLYMUL_GIT_COMMIT")
    )
}

fn run_cpu(opts: &Options) -> i32 {
    // `--only` picks CPU sections too: cpu-backend, cpu-scaling, cpu-reference, anchor.
    let want = |name: &str| opts.only.is_empty() || opts.only.iter().any(|o| o == name);
    let mut tables = vec![];
    for (name, section, table) in [
        ("CPU backend", "cpu-backend", crate::cpu_backend::table as fn(bool) -> Result<Table, String>),
        ("CPU backend scaling", "cpu-scaling", crate::cpu_backend::scaling_table),
    ] {
        if !want(section) {
            continue;
        }
        match table(opts.quick) {
            Ok(a) => tables.push(a),
            Err(e) => {
                eprintln!("polymul-bench: {name}: {e}");
                return 1;
            }
        }
    }
    if want("cpu-reference") {
        let mut t = Table::new(
            "CPU reference: the kernels' own code looped on the host (batch 1)",
            &["word", "q bits", "N", "op", "µs (median)"],
        );
        t.note = "A correctness reference, not an optimised CPU NTT: each butterfly is the GPU thread body \
                  called in a scalar loop. The CPU backend (the tables above) computes the same words."
            .into();
        for (word, bits) in WORD_CONFIGS {
            for log_n in log_ns(opts.quick) {
                let r = match word {
                    32 => cpu_rows::<u32>(bits, log_n, opts.quick, &mut t),
                    _ => cpu_rows::<u64>(bits, log_n, opts.quick, &mut t),
                };
                if let Err(e) = r {
                    eprintln!("polymul-bench: {e}");
                    return 1;
                }
            }
        }
        tables.push(t);
    }
    if want("anchor") {
        match crate::cpu_anchor::table(None, opts.quick) {
            Ok(a) => tables.push(a),
            Err(e) => {
                eprintln!("polymul-bench: CPU anchor: {e}");
                return 1;
            }
        }
    }
    finish(opts, "cpu", &stamp(&cpu_device(), opts), &tables, &[])
}

/// `CPU <model> (<k> logical CPUs; no GPU used)`, the model from
/// /proc/cpuinfo where there is one.
fn cpu_device() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "(model unknown)".into());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("CPU {model} ({cpus} logical CPUs; no GPU used)")
}

fn finish(opts: &Options, name: &str, preamble: &str, tables: &[Table], figures: &[(String, String)]) -> i32 {
    for t in tables {
        println!("\n{}", t.markdown());
    }
    if let Some(dir) = &opts.out {
        if let Err(e) = report::write(dir, name, preamble, tables, figures) {
            eprintln!("polymul-bench: writing results to {}: {e}", dir.display());
            return 1;
        }
        eprintln!("results written to {}", dir.join(format!("{name}.md")).display());
    }
    0
}

/// Runs the benchmarks; returns the process exit code.
pub fn run(opts: &Options) -> i32 {
    if opts.force_cpu {
        return run_cpu(opts);
    }
    let gpu = match crate::env_options::gpu() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("polymul-bench: {e}\npolymul-bench: no GPU, so benchmarking the CPU path instead.");
            return run_cpu(opts);
        }
    };
    let i = gpu.info().clone();
    let device = format!(
        "{} (compute capability {}.{}, {} SMs, {:.0} GiB, driver {}.{}, kernels: {})",
        i.name,
        i.compute_capability.0,
        i.compute_capability.1,
        i.multiprocessors,
        i.total_memory as f64 / (1u64 << 30) as f64,
        i.driver_version / 1000,
        (i.driver_version % 1000) / 10,
        i.kernel_image
    );
    eprintln!("device: {device}");
    let copy_gbs = match gpu.copy_bandwidth_gbs(1 << 30, if opts.quick { 10 } else { 30 }) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("polymul-bench: measuring copy bandwidth: {e}");
            return 1;
        }
    };
    eprintln!("device-to-device copy: {copy_gbs:.0} GB/s (read + write)");
    let mut copy = Table::new("Ceiling: device-to-device copy", &["bytes copied", "GB/s (read + write)"]);
    copy.rows.push(vec![(1u64 << 30).to_string(), format!("{copy_gbs:.0}")]);
    let mut t = Table::new(
        "NTT kernels by configuration: radix-2 global memory (one launch per stage, the baseline), tiled \
         shared memory by largest radix, 2D, and the automatic choice",
        &[
            "word",
            "q bits",
            "N",
            "op",
            "batch",
            "µs per call (median)",
            "µs per polynomial",
            "GB/s",
            "% of copy",
            "one-pass GB/s",
            "reps",
            "configuration",
            "kernel run",
        ],
    );
    t.note = format!(
        "CUDA-event timing after warm-up, median of `reps`, random inputs. GB/s counts the bytes the kernel \
         moves through global memory (radix-2: every stage reads and writes all N words; tiled: each of its \
         one or two passes does; polymul = 3 transforms + the pointwise pass); % of copy compares with the \
         {copy_gbs:.0} GB/s measured above in the same run. One-pass GB/s counts only 2·N words per \
         transform (read once, write once): the figure a fully fused kernel is aiming at. Batched rows use \
         2^25 coefficients in total."
    );
    let c = Ctx { gpu: &gpu, copy_gbs, quick: opts.quick };
    let configs = configs();
    for (word, bits) in WORD_CONFIGS.into_iter().filter(|_| opts.runs("ntt")) {
        for cfg in &configs {
            for log_n in log_ns(opts.quick) {
                let r = match word {
                    32 => gpu_rows::<u32>(&c, cfg, bits, log_n, &mut t),
                    _ => gpu_rows::<u64>(&c, cfg, bits, log_n, &mut t),
                };
                if let Err(e) = r {
                    eprintln!("polymul-bench: u{word} N=2^{log_n}: {e}");
                    return 1;
                }
            }
        }
    }
    let mut tables = vec![copy];
    let mut figures = Vec::new();
    let mut failures = Vec::new();
    if opts.runs("ntt") {
        tables.push(best_table(&t));
        figures.push(("ntt.svg".to_string(), ntt_figure(&t, &device)));
        tables.insert(1, t);
    }
    if opts.runs("goals") {
        match crate::goals::table(&gpu, copy_gbs, opts.quick) {
            Ok(g) => tables.insert(1, g),
            Err(e) => {
                eprintln!("polymul-bench: goals: {e}");
                return 1;
            }
        }
    }
    if opts.runs("latency") {
        match crate::latency::table(&gpu, opts.quick) {
            Ok((x, fails)) => {
                tables.push(x);
                failures.extend(fails);
            }
            Err(e) => {
                eprintln!("polymul-bench: latency: {e}");
                return 1;
            }
        }
    }
    if opts.runs("reductions") {
        let (mm, mm_rows, fails) = match reductions::modmul_table(&gpu, opts.quick) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("polymul-bench: reduction microbenchmark: {e}");
                return 1;
            }
        };
        failures.extend(fails);
        let by_red = match reductions::ntt_table(&gpu, copy_gbs, opts.quick) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("polymul-bench: NTT by reduction: {e}");
                return 1;
            }
        };
        figures.push(("reductions.svg".to_string(), reductions_figure(&mm_rows, &device)));
        tables.push(mm);
        tables.push(by_red);
    }
    if opts.runs("table3") {
        match crate::ablation::table(&gpu, opts.quick) {
            Ok(x) => tables.push(x),
            Err(e) => {
                eprintln!("polymul-bench: Table III: {e}");
                return 1;
            }
        }
    }
    if opts.runs("tiles") {
        match crate::tiles::table(&gpu, opts.quick) {
            Ok(x) => tables.push(x),
            Err(e) => {
                eprintln!("polymul-bench: tile sweep: {e}");
                return 1;
            }
        }
    }
    if opts.runs("fused") {
        match crate::fused::table(&gpu, &device, opts.quick) {
            Ok((x, svg)) => {
                tables.push(x);
                figures.push(("fused.svg".to_string(), svg));
            }
            Err(e) => {
                eprintln!("polymul-bench: fused polymul: {e}");
                return 1;
            }
        }
    }
    if opts.runs("ciphertext") {
        match crate::ciphertext::table(&gpu, copy_gbs, opts.quick) {
            Ok(x) => tables.push(x),
            Err(e) => {
                eprintln!("polymul-bench: ciphertext: {e}");
                return 1;
            }
        }
    }
    if opts.runs("rns") {
        match crate::rns::table(&gpu, copy_gbs, &device, opts.quick) {
            Ok((x, svg)) => {
                tables.push(x);
                figures.push(("rns.svg".to_string(), svg));
            }
            Err(e) => {
                eprintln!("polymul-bench: RNS polymul: {e}");
                return 1;
            }
        }
        match crate::rns::convert_table(&gpu, copy_gbs, opts.quick) {
            Ok(x) => tables.push(x),
            Err(e) => {
                eprintln!("polymul-bench: RNS conversions: {e}");
                return 1;
            }
        }
    }
    // The CRT kernels alone: part of `rns`, or by themselves (`--only crt`,
    // for comparing CRT kernels in a few seconds).
    if opts.runs("rns") || opts.only.iter().any(|o| o == "crt") {
        match crate::rns::crt_variants_table(&gpu, opts.quick) {
            Ok(x) => tables.push(x),
            Err(e) => {
                eprintln!("polymul-bench: CRT kernels: {e}");
                return 1;
            }
        }
    }
    if opts.runs("anchor") {
        match crate::cpu_anchor::table(Some(&gpu), opts.quick) {
            Ok(x) => tables.push(x),
            Err(e) => {
                eprintln!("polymul-bench: CPU anchor: {e}");
                return 1;
            }
        }
    }
    let mut wisdom = None;
    if opts.runs("dgt") {
        match crate::dgt::run(&gpu, &device, opts.quick, opts.log_n.as_deref()) {
            Ok(r) => {
                tables.extend(r.tables);
                figures.extend(r.figures);
                wisdom = Some(r.wisdom);
            }
            Err(e) => {
                eprintln!("polymul-bench: DGT: {e}");
                return 1;
            }
        }
    }
    // Most of the device's memory and tens of GiB of host memory: only
    // when named (`--only split`).
    if opts.only.iter().any(|o| o == "split") && opts.runs("split") {
        match crate::split::tables(&gpu, opts.quick) {
            Ok(x) => tables.extend(x),
            Err(e) => {
                eprintln!("polymul-bench: split: {e}");
                return 1;
            }
        }
    }
    // Two threads sharing one GPU's staging memory, a GiB of host memory a
    // thread: only when named (`--only staging`).
    if opts.only.iter().any(|o| o == "staging") {
        match crate::staging::tables(opts.quick) {
            Ok(x) => tables.extend(x),
            Err(e) => {
                eprintln!("polymul-bench: staging: {e}");
                return 1;
            }
        }
    }
    // Every GPU of the host, and most of their memory: only when named
    // (`--only scaling`).
    if opts.only.iter().any(|o| o == "scaling") {
        match crate::scaling::tables(opts.quick) {
            Ok(x) => tables.extend(x),
            Err(e) => {
                eprintln!("polymul-bench: scaling: {e}");
                return 1;
            }
        }
    }
    let code = finish(opts, "gpu", &stamp(&device, opts), &tables, &figures);
    if let (Some(w), Some(dir)) = (wisdom, opts.out.as_ref())
        && let Err(e) = std::fs::write(dir.join("dgt-wisdom.json"), w)
    {
        eprintln!("polymul-bench: writing dgt-wisdom.json: {e}");
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    if failures.is_empty() { code } else { 1 }
}
/// Rewrites the figures of a results folder from its CSV files (after a
/// change to the plotting code; no GPU needed). Returns the exit code.
pub fn replot(dir: &std::path::Path) -> i32 {
    let read = |name: &str| -> Result<Vec<Vec<String>>, String> {
        let text = std::fs::read_to_string(dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
        Ok(text.lines().skip(1).map(|l| l.split(',').map(str::to_string).collect()).collect())
    };
    let md = std::fs::read_to_string(dir.join("gpu.md")).unwrap_or_default();
    let device = md.lines().find_map(|l| l.strip_prefix("- device: ")).unwrap_or("GPU").to_string();
    let run = || -> Result<(), String> {
        let ntt = Table { rows: read("gpu-1.csv")?, ..Table::default() };
        let rows: Vec<reductions::ModMulRow> = read("gpu-3.csv")?
            .into_iter()
            .filter_map(|r| {
                Some(reductions::ModMulRow {
                    word: r.first()?.trim_start_matches('u').parse().ok()?,
                    bits: r.get(1)?.parse().ok()?,
                    reduction: polymul::expert::Reduction::ALL.into_iter().find(|x| x.label() == r[2])?,
                    select: r.get(3)? == "select",
                    ns: r.get(4)?.parse().ok()?,
                })
            })
            .collect();
        let w = |name: &str, svg: String| std::fs::write(dir.join(name), svg).map_err(|e| e.to_string());
        w("reductions.svg", reductions_figure(&rows, &device))?;
        w("ntt.svg", ntt_figure(&ntt, &device))
    };
    match run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("polymul-bench replot: {e}");
            1
        }
    }
}

/// Fig. 4 on this GPU: modular multiplications per second by width and variant.
fn reductions_figure(rows: &[reductions::ModMulRow], device: &str) -> String {
    let widths = reductions::WIDTHS;
    let cats: Vec<String> = widths.iter().map(|(w, b)| format!("u{w}, {b}-bit q")).collect();
    let series: Vec<Series> = polymul::expert::Reduction::ALL
        .iter()
        .map(|&r| Series {
            name: r.label().to_string(),
            values: widths
                .iter()
                .map(|&(w, b)| {
                    rows.iter()
                        .find(|x| x.word == w && x.bits == b && x.reduction == r && !x.select)
                        .map_or(f64::NAN, |x| 1.0 / x.ns)
                })
                .collect(),
        })
        .collect();
    let short = device.split(" (").next().unwrap_or(device);
    plot::grouped_bar_chart(
        &format!("Modular multiplications per second by variant ({short}), higher is faster"),
        "Gmodmul/s (whole GPU)",
        &cats,
        &series,
    )
}

/// The fastest configuration per word, N, op and single/batched, from the
/// NTT table (the evidence behind `NttKernel::Auto`'s rule).
pub fn best_table(t: &Table) -> Table {
    let mut b = Table::new(
        "Fastest configuration per word, N and batch (from the table above)",
        &["word", "N", "op", "batch", "fastest", "µs per polynomial", "auto", "auto vs fastest"],
    );
    b.note = "\"auto\" is what `NttKernel::Auto` ran; its ratio to the fastest measured configuration \
              (1.00 = it picked the best or tied)."
        .into();
    let mut keys: Vec<(String, String, String, bool)> = Vec::new();
    for r in &t.rows {
        let k = (r[0].clone(), r[2].clone(), r[3].clone(), r[4] != "1");
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    for (word, n, op, batched) in keys {
        let rows: Vec<&Vec<String>> = t
            .rows
            .iter()
            .filter(|r| r[0] == word && r[2] == n && r[3] == op && (r[4] != "1") == batched)
            .filter(|r| r[11] != "auto" && r[11] != "2d pipelined")
            .collect();
        let per = |r: &Vec<String>| r[6].parse::<f64>().unwrap_or(f64::INFINITY);
        let Some(best) = rows.iter().min_by(|a, c| per(a).total_cmp(&per(c))) else { continue };
        let auto = t
            .rows
            .iter()
            .find(|r| r[0] == word && r[2] == n && r[3] == op && (r[4] != "1") == batched && r[11] == "auto");
        b.rows.push(vec![
            word,
            n,
            op,
            if batched { "batched".into() } else { "1".into() },
            best[11].clone(),
            best[6].clone(),
            auto.map_or("-".into(), |a| a[12].clone()),
            auto.map_or("-".into(), |a| format!("{:.2}", per(a) / per(best))),
        ]);
    }
    b
}

/// µs per polynomial against N, single and batched, for the main kernels.
fn ntt_figure(t: &Table, device: &str) -> String {
    let exps: Vec<u32> = (10..=17).collect();
    let mut series = Vec::new();
    for kernel in ["radix-2 global", "tiled r4 smem", "tiled r8", "tiled r16", "2d r16", "auto"] {
        for word in ["u32", "u64"] {
            for batched in [false, true] {
                let values: Vec<f64> = exps
                    .iter()
                    .map(|e| {
                        t.rows
                            .iter()
                            .find(|r| {
                                r[0] == word
                                    && r[2] == format!("2^{e}")
                                    && r[3] == "forward"
                                    && (r[4] != "1") == batched
                                    && r.get(11).map_or("radix-2 global", String::as_str) == kernel
                            })
                            .and_then(|r| r[6].parse::<f64>().ok())
                            .unwrap_or(f64::NAN)
                    })
                    .collect();
                if values.iter().all(|v| v.is_nan()) {
                    continue;
                }
                let how = if batched { "batched" } else { "single" };
                series.push(Series { name: format!("{kernel} {word} {how}"), values });
            }
        }
    }
    let short = device.split(" (").next().unwrap_or(device);
    plot::log_line_chart(
        &format!("Forward NTT, µs per polynomial ({short})"),
        "N",
        "µs per polynomial",
        &exps,
        &series,
    )
}

/// `polymul-bench profile`: a few forward transforms of one configuration,
/// for `ncu` or `compute-sanitizer` to look at. Returns the exit code.
pub fn profile(
    word: u32,
    log_n: u32,
    batch: usize,
    opts: PlanOptions,
    reduction: polymul::expert::Reduction,
    reps: usize,
) -> i32 {
    fn go<W: Coeff>(
        log_n: u32,
        batch: usize,
        opts: PlanOptions,
        reduction: polymul::expert::Reduction,
        reps: usize,
    ) -> polymul::Result<usize> {
        let gpu = crate::env_options::gpu()?;
        let bits = (if W::BITS == 32 { 30 } else { 62 }).min(reduction.max_bits(W::BITS));
        let p = NttParams::<W>::with_prime_bits(1 << log_n, bits)?;
        let plan = NttPlan::with_options(&gpu, p.clone(), PlanOptions { reduction, ..opts })?;
        let q = plan.params().q();
        let input = polymul::expert::SplitMix64::new(1).coeffs(batch << log_n, q);
        let mut want = input.clone();
        emulation::forward_with(&p, reduction, &mut want)?;
        // Checked on device buffers, as timed: the first launches a
        // profiler sees are the timed calls' kernels (a host slice would
        // run the staged host path's chunks first).
        let mut a = plan.upload(&input)?;
        plan.forward(&mut a)?;
        plan.synchronize()?;
        let got = gpu.download(&a)?;
        let bad = got.iter().zip(&want).filter(|(g, w)| g != w).count();
        let t = gpu.time(1, reps, || plan.forward(&mut a))?;
        let ti = gpu.time(1, reps, || plan.inverse(&mut a))?;
        // Products too, so that a profiler or sanitizer sees their kernels
        // (their operands are scratch: `b` is clobbered by each product).
        let mut b = plan.upload(&input)?;
        let tp = gpu.time(1, reps, || plan.polymul_in_place(&mut a, &mut b))?;
        plan.synchronize()?;
        println!(
            "u{} N=2^{log_n} batch {batch} {:?} {reduction}: forward {:.2} µs, inverse {:.2} µs, \
             polymul {:.2} µs per call; {bad} of {} words differ from the CPU",
            W::BITS,
            opts,
            t.median_us,
            ti.median_us,
            tp.median_us,
            got.len()
        );
        Ok(bad)
    }
    let r = if word == 32 {
        go::<u32>(log_n, batch, opts, reduction, reps)
    } else {
        go::<u64>(log_n, batch, opts, reduction, reps)
    };
    match r {
        Ok(0) => 0,
        Ok(_) => 1,
        Err(e) => {
            eprintln!("polymul-bench profile: {e}");
            1
        }
    }
}
