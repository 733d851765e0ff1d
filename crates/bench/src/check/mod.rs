//! The GPU check suite: every GPU result is compared bit for bit with the CPU
//! (the kernels' code run on the host, and for small N the naive schoolbook
//! product) on fresh random inputs, plus edge operands and error paths.
//!
//! Prints one line per check and ends with `N passed, N failed`.

mod api;
mod concurrency;
mod convert;
mod dgt;
mod errors;
mod fused;
mod graphs;
mod multi;
mod options;
mod planner;
mod plans;
mod props;
mod reduced;
mod reductions;
mod rns;
mod soundness;
mod split;
mod tensor;

pub use soundness::outlive_gpu_main;
mod tiles;
mod words;

use crate::{Options, WORD_CONFIGS, log_ns};
use polymul::Coeff;
use polymul::expert::{NttKernel, PlanOptions, RowTwiddles};
pub(crate) use split::par_coeffs as split_coeffs;
// The soak (`polymul-bench soak`) draws and checks with the suites' helpers.
pub(crate) use convert::limbs_below_q;
pub(crate) use props::inputs as props_inputs;
pub(crate) use split::{evaluation_check, sample as split_sample};

/// Every kernel configuration the suite checks everywhere: each kernel, each
/// largest radix of the tiled kernel (with and without direct global I/O),
/// the 2D kernels, and the automatic choice.
pub fn variants() -> Vec<(String, PlanOptions)> {
    let mut v = vec![(
        "radix2".to_string(),
        PlanOptions { kernel: NttKernel::Radix2Global, ..crate::env_options::plan_options() },
    )];
    for radix in [2usize, 4, 8, 16] {
        for shared_only in [true, false] {
            if shared_only && radix > 4 {
                continue;
            }
            let tag = format!("tiled-r{radix}{}", if shared_only { "-smem" } else { "" });
            let o = PlanOptions {
                kernel: NttKernel::Tiled,
                radix: Some(radix),
                shared_only,
                ..crate::env_options::plan_options()
            };
            v.push((tag, o));
        }
    }
    for kernel in [NttKernel::TwoD, NttKernel::TwoDPipelined, NttKernel::Auto] {
        v.push((kernel.name().to_string(), PlanOptions { kernel, ..crate::env_options::plan_options() }));
    }
    for radix in [8usize, 16] {
        let o =
            PlanOptions { kernel: NttKernel::Lazy, radix: Some(radix), ..crate::env_options::plan_options() };
        v.push((format!("lazy-r{radix}"), o));
    }
    v.push((
        "cluster".into(),
        PlanOptions { kernel: NttKernel::Cluster, ..crate::env_options::plan_options() },
    ));
    // Both sources of the lazy row passes' twiddles, whatever the plan
    // would choose (`RowTwiddles::Auto`: tables), so every suite runs both
    // on the GPU. Last, so
    // the soak's variant indices stay.
    for (tag, row_twiddles) in
        [("lazy-computed", RowTwiddles::Computed), ("lazy-tables", RowTwiddles::Tables)]
    {
        let o = PlanOptions { kernel: NttKernel::Lazy, row_twiddles, ..crate::env_options::plan_options() };
        v.push((tag.into(), o));
    }
    v
}

/// The lazy kernels (two-pass or cluster): whole transforms only, N ≥ 8.
pub(crate) fn lazy_kernel(k: NttKernel) -> bool {
    matches!(k, NttKernel::Lazy | NttKernel::Cluster)
}

/// Counts and prints results.
#[derive(Debug, Default)]
pub struct Tally {
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
}

impl Tally {
    /// Records one check.
    pub fn record(&mut self, name: &str, r: Result<(), String>) {
        match r {
            Ok(()) => {
                self.passed += 1;
                println!("PASS {name}");
            }
            Err(e) => {
                self.failed += 1;
                println!("FAIL {name}: {e}");
            }
        }
    }
}

/// Runs one suite and prints what it added to the tally and how long it
/// took (so that a GPU session can split the suites between calls).
fn timed(name: &str, t: &mut Tally, f: impl FnOnce(&mut Tally)) {
    let (t0, passed, failed) = (std::time::Instant::now(), t.passed, t.failed);
    f(t);
    println!(
        "suite {name}: {} passed, {} failed, {:.1} s",
        t.passed - passed,
        t.failed - failed,
        t0.elapsed().as_secs_f64()
    );
}

pub(crate) fn eq<W: Coeff>(what: &str, got: &[W], want: &[W]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: length {} != {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => {
            let bad = got.iter().zip(want).filter(|(g, w)| g != w).count();
            Err(format!(
                "{what}: {bad} of {} words differ, first at {i}: {} != {}",
                got.len(),
                got[i],
                want[i]
            ))
        }
    }
}

pub(crate) fn s<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Runs the suite; returns the process exit code.
pub fn run(opts: &Options) -> i32 {
    let t0 = std::time::Instant::now();
    let gpu = match crate::env_options::gpu() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("polymul-bench check: {e}");
            println!("0 passed, 1 failed");
            return 1;
        }
    };
    let i = gpu.info();
    println!(
        "device: {} (sm_{}{}, {} SMs, driver {}), kernels: {}, context + module load {:.2} s",
        i.name,
        i.compute_capability.0,
        i.compute_capability.1,
        i.multiprocessors,
        i.driver_version,
        i.kernel_image,
        t0.elapsed().as_secs_f64()
    );
    let seed = opts.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    println!("seed: {seed}");
    let mut t = Tally::default();
    let variants = variants();
    // `--only` picks suites (e.g. for a slow sanitizer): words, reductions,
    // tiles, fused, rns, convert, dgt, planner, concurrency, multi, api, graphs, soundness, tensor, reduced, options, props, errors; lazy-fused
    // and products (part of words); split (only when named).
    let runs = |name: &str| opts.runs(name);
    if runs("words") {
        timed("words", &mut t, |t| {
            for (word, bits) in WORD_CONFIGS {
                let mut sizes = log_ns(opts.quick);
                if !opts.quick {
                    sizes.insert(0, 1);
                }
                if let Some(only) = &opts.log_n {
                    sizes = only.clone();
                }
                for log_n in sizes {
                    let sd = seed ^ ((word as u64) << 40) ^ ((log_n as u64) << 8);
                    for k in &variants {
                        match word {
                            32 => words::word_suite::<u32>(&gpu, k, bits, log_n, sd, t),
                            _ => words::word_suite::<u64>(&gpu, k, bits, log_n, sd, t),
                        }
                    }
                }
            }
            // Narrower primes on each word too (N = 2^13: part of a `--log-n`
            // run only when it names 13).
            for k in variants.iter().filter(|_| opts.log_n.as_ref().is_none_or(|l| l.contains(&13))) {
                words::word_suite::<u32>(&gpu, k, 28, 13, seed ^ 1, t);
                words::word_suite::<u64>(&gpu, k, 40, 13, seed ^ 2, t);
            }
        });
    }
    if runs("words") || runs("lazy-fused") {
        timed("lazy-fused", &mut t, |t| {
            words::fused_lazy_suite(&gpu, seed ^ 20, opts, t);
        });
    }
    if runs("words") || runs("products") {
        timed("products", &mut t, |t| {
            words::moderate_products(&gpu, seed ^ 25, t);
        });
    }
    if runs("reductions") {
        timed("reductions", &mut t, |t| {
            reductions::reduction_suite::<u32>(&gpu, 30, seed ^ 3, t);
            reductions::reduction_suite::<u64>(&gpu, 62, seed ^ 4, t);
        });
    }
    if runs("tiles") {
        timed("tiles", &mut t, |t| {
            tiles::tile_suite::<u32>(&gpu, 30, seed ^ 5, t);
            tiles::tile_suite::<u64>(&gpu, 62, seed ^ 6, t);
        });
    }
    if runs("fused") {
        timed("fused", &mut t, |t| {
            fused::fused_suite::<u64>(&gpu, 62, seed ^ 9, t);
            fused::fused_suite::<u32>(&gpu, 30, seed ^ 10, t);
            fused::hadamard_suite::<u64>(&gpu, 62, seed ^ 11, t);
            fused::hadamard_suite::<u32>(&gpu, 30, seed ^ 12, t);
        });
    }
    if runs("rns") {
        timed("rns", &mut t, |t| {
            rns::rns_suite::<u64>(&gpu, 62, seed ^ 7, t);
            rns::rns_suite::<u32>(&gpu, 30, seed ^ 8, t);
            rns::rns_suite::<u32>(&gpu, 28, seed ^ 13, t);
        });
    }
    if runs("convert") {
        timed("convert", &mut t, |t| {
            convert::convert_suite(&gpu, seed ^ 23, t);
        });
    }
    if runs("dgt") {
        timed("dgt", &mut t, |t| {
            dgt::dgt_suite::<u32>(&gpu, 30, seed ^ 14, opts, t);
            dgt::dgt_suite::<u64>(&gpu, 62, seed ^ 15, &Options { quick: true, ..opts.clone() }, t);
        });
    }
    if runs("planner") {
        timed("planner", &mut t, |t| {
            planner::planner_suite::<u32>(&gpu, 30, seed ^ 16, t);
            planner::planner_suite::<u64>(&gpu, 62, seed ^ 17, t);
        });
    }
    if runs("concurrency") {
        timed("concurrency", &mut t, |t| {
            concurrency::concurrency_suite(&gpu, seed ^ 18, t);
        });
    }
    if runs("multi") {
        timed("multi", &mut t, |t| multi::multi_suite(seed ^ 27, t));
    }
    // The graph and api suites on a GPU handle of their own: a GPU that
    // several host threads used (the concurrency suite) no longer captures
    // graphs on its own (`Gpu::exclusive_capture`), and these suites check
    // the graph cache, and that it stands aside when threads arrive.
    let fresh = || crate::env_options::gpu().map_err(s);
    if runs("api") {
        timed("api", &mut t, |t| match fresh() {
            Ok(g) => {
                api::api_suite::<u32>(&g, 30, seed ^ 21, t);
                api::api_suite::<u64>(&g, 62, seed ^ 22, t);
            }
            Err(e) => t.record("api: a GPU handle of its own", Err(e)),
        });
    }
    if runs("graphs") {
        timed("graphs", &mut t, |t| match fresh() {
            Ok(g) => graphs::graph_suite(&g, seed ^ 20, t),
            Err(e) => t.record("graphs: a GPU handle of its own", Err(e)),
        });
    }
    if runs("soundness") {
        timed("soundness", &mut t, |t| match fresh() {
            Ok(g) => soundness::soundness_suite(&g, seed ^ 28, t),
            Err(e) => t.record("soundness: a GPU handle of its own", Err(e)),
        });
    }
    if runs("reduced") {
        timed("reduced", &mut t, |t| reduced::reduced_suite(&gpu, t));
    }
    if runs("tensor") {
        timed("tensor", &mut t, |t| tensor::tensor_suite(&gpu, seed ^ 54, t));
    }
    if runs("options") {
        timed("options", &mut t, |t| match fresh() {
            Ok(g) => options::options_suite(&g, seed ^ 24, t),
            Err(e) => t.record("options: a GPU handle of its own", Err(e)),
        });
    }
    if runs("plans") {
        timed("plans", &mut t, |t| {
            plans::plans_suite(&gpu, seed ^ 25, t);
        });
    }
    if runs("props") {
        timed("props", &mut t, |t| {
            props::props_suite(&gpu, seed ^ 19, opts.cases.unwrap_or(if opts.quick { 60 } else { 200 }), t);
        });
    }
    if runs("errors") {
        timed("errors", &mut t, |t| {
            errors::error_suite(&gpu, t);
        });
    }
    // Batches above the launch limit and the free memory: 48 GiB of host
    // memory and most of the device, minutes; only when named
    // (`--only split`).
    if opts.only.iter().any(|o| o == "split") {
        timed("split", &mut t, |t| {
            split::split_suite(&gpu, seed ^ 26, t);
        });
    }
    println!("{} passed, {} failed", t.passed, t.failed);
    if t.failed == 0 { 0 } else { 1 }
}
