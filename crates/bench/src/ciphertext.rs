//! The `ciphertext` section (issue 54): the shape homomorphic encryption
//! runs. A ciphertext at N = 2^16 is two polynomials of L towers, each
//! tower with its own prime, so one call transforms L polynomials of L
//! distinct primes (not a batch of one prime). Every row is checked bit for
//! bit against the CPU backend (`CpuRnsPlan`) before it is timed, and
//! reports µs per call (CUDA events around one call, median) and per tower,
//! the bytes of one pass over its operands against the copy bandwidth,
//! the compute floor of its butterflies at the register-only lazy-butterfly
//! rate, the launch floor of its launches (a chain of empty kernels), and
//! the peers' figures that issue 54 quotes (not measured here).
//!
//! Rows: `u32` (30-bit primes) forward and inverse at L ∈ {8, 16, 32, 48,
//! 64}, `u64` (62-bit) at L ∈ {8, 20, 32}, `u32` N = 2^15 and 2^17 at L =
//! 32, the RNS product (one pair of polynomials), and the ciphertext tensor
//! product (`RnsPlan::tensor_in_place` and `Tensor::tensor_into`, which
//! copies its inputs first). Forward rows also time the one-pass cluster
//! kernels (`NttKernel::Cluster`, N = 2^16) and give the per-tower rate as
//! a share of the large-batch rate of one prime (512 polynomials). Every
//! row also times the same call with `PlanOptions::graph_cache` off (each
//! call launches its kernels; the default replays a graph captured from the
//! second call on the same buffers), and the launch floor is given both
//! ways: plain launches and one graph replay.

use crate::report::Table;
use polymul::cpu::CpuRnsPlan;
use polymul::expert::{GpuTiming, LaunchChain, LazyFused, NttKernel, PlanOptions, RowTwiddles, SplitMix64};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, DeviceVec, Gpu, NttParams, NttPlan};

/// What a row times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Forward,
    Inverse,
    /// One RNS product (a pair of polynomials, in place).
    Product,
    /// The tensor product of two ciphertexts, inputs transformed in place.
    TensorInPlace,
    /// The tensor product with the inputs intact (copies first).
    TensorInto,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Forward => "forward",
            Op::Inverse => "inverse",
            Op::Product => "RNS product",
            Op::TensorInPlace => "tensor product (in place)",
            Op::TensorInto => "tensor product (tensor_into)",
        }
    }

    /// NTTs of `N` points per tower: what the compute floor counts.
    fn transforms(self) -> f64 {
        match self {
            Op::Forward | Op::Inverse => 1.0,
            Op::Product => 3.0,
            Op::TensorInPlace | Op::TensorInto => 7.0,
        }
    }

    /// Polynomials per tower read once and written once: inputs plus
    /// outputs (the memory floor's bytes).
    fn one_pass_polys(self) -> f64 {
        match self {
            Op::Forward | Op::Inverse => 2.0,
            Op::Product => 3.0,
            Op::TensorInPlace | Op::TensorInto => 7.0,
        }
    }
}

/// One row: word, log N, towers, operation.
#[derive(Debug, Clone, Copy)]
struct Row {
    word: u32,
    log_n: u32,
    towers: usize,
    op: Op,
}

/// The peers' figures issue 54 quotes (µs per call, H100, 2026-12-07):
/// Cheddar's NTT kernels (`u32`, 30-bit) and Phantom's evaluator pattern
/// (`u64`, 60-bit, 32 limbs).
fn peer(r: &Row) -> Option<(&'static str, f64)> {
    match (r.word, r.log_n, r.towers, r.op) {
        (32, 16, 32, Op::Forward) => Some(("Cheddar", 21.15)),
        (32, 16, 32, Op::Inverse) => Some(("Cheddar", 19.92)),
        (32, 16, 48, Op::Forward) => Some(("Cheddar", 27.18)),
        (64, 16, 32, Op::Forward) => Some(("Phantom", 58.0)),
        (32, 16, 32, Op::TensorInPlace | Op::TensorInto) => Some(("Cheddar, 4 fwd + 3 inv", 144.0)),
        _ => None,
    }
}

/// Issue 54's goals (µs per call).
fn goal(r: &Row) -> Option<f64> {
    match (r.word, r.log_n, r.towers, r.op) {
        (32, 16, 32, Op::Forward) => Some(14.0),
        (32, 16, 48, Op::Forward) => Some(18.0),
        (64, 16, 20, Op::Forward) => Some(24.0),
        (64, 16, 32, Op::Forward) => Some(36.0),
        (32, 16, 42, Op::Product) => Some(48.0),
        (64, 16, 20, Op::Product) => Some(62.0),
        (32, 16, 32, Op::TensorInPlace) => Some(85.0),
        _ => None,
    }
}

fn rows(quick: bool) -> Vec<Row> {
    let mut v = Vec::new();
    let u32_ls: &[usize] = if quick { &[8, 32, 48] } else { &[8, 16, 32, 48, 64] };
    let u64_ls: &[usize] = if quick { &[20, 32] } else { &[8, 20, 32] };
    for op in [Op::Forward, Op::Inverse] {
        v.extend(u32_ls.iter().map(|&towers| Row { word: 32, log_n: 16, towers, op }));
        v.extend(u64_ls.iter().map(|&towers| Row { word: 64, log_n: 16, towers, op }));
        for log_n in [15, 17] {
            v.push(Row { word: 32, log_n, towers: 32, op });
        }
    }
    v.push(Row { word: 32, log_n: 16, towers: 42, op: Op::Product });
    v.push(Row { word: 64, log_n: 16, towers: 20, op: Op::Product });
    for op in [Op::TensorInPlace, Op::TensorInto] {
        v.push(Row { word: 32, log_n: 16, towers: 32, op });
        v.push(Row { word: 64, log_n: 16, towers: 20, op });
    }
    v
}

/// What one row measured.
struct Measured {
    us: f64,
    kernel: String,
    launches: u32,
    /// The cluster kernels' µs (forward and inverse rows at N = 2^16).
    cluster_us: Option<f64>,
    /// The fused kernels' µs at every batch (`LazyFused::Always`; `u32`
    /// transforms, where they exist).
    fused_us: Option<f64>,
    /// The same call with the graph cache off: its kernels launched each
    /// call.
    launched_us: f64,
    /// The same call on the full tiles at radix 8 (`PlanOptions::radix`;
    /// transforms).
    radix8_us: Option<f64>,
    /// The same call with computed row twiddles (`RowTwiddles::Computed`:
    /// two small tables per tower instead of the row region; N = 2^16).
    computed_us: Option<f64>,
}

fn s<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Tower-major residues of `polys` polynomials per tower, random below each
/// tower's prime.
fn residues<W: Coeff>(basis: &RnsBasis<W>, polys: usize, seed: u64) -> Vec<W> {
    let mut rng = SplitMix64::new(seed);
    basis.towers().iter().flat_map(|p| rng.coeffs(polys * basis.n(), p.q())).collect()
}

fn check<W: Coeff>(what: &str, got: &[W], want: &[W]) -> Result<(), String> {
    match got.iter().zip(want).position(|(a, b)| a != b) {
        None if got.len() == want.len() => Ok(()),
        None => Err(format!("{what}: {} words, the CPU gives {}", got.len(), want.len())),
        Some(i) => Err(format!("{what}: word {i} is {}, the CPU gives {}", got[i], want[i])),
    }
}

fn measure<W: Coeff>(gpu: &Gpu, r: &Row, quick: bool) -> Result<Measured, String> {
    let n = 1usize << r.log_n;
    let bits = if W::BITS == 32 { 30 } else { 62 };
    let basis = RnsBasis::<W>::new(n, bits, r.towers).map_err(s)?;
    let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options()).map_err(s)?;
    let launched = PlanOptions { graph_cache: false, ..crate::env_options::plan_options() };
    let lp = RnsPlan::with_options(gpu, &basis, launched).map_err(s)?;
    // Computed row twiddles: kernels for N = 2^16 only.
    let cp = (r.log_n == 16)
        .then(|| {
            let o = PlanOptions { row_twiddles: RowTwiddles::Computed, ..crate::env_options::plan_options() };
            RnsPlan::with_options(gpu, &basis, o)
        })
        .transpose()
        .map_err(s)?;
    let cpu = CpuRnsPlan::new(&basis).map_err(s)?;
    let reps = if quick { (5, 30) } else { (10, 100) };
    let what = format!("u{} N=2^{} L={} {}", r.word, r.log_n, r.towers, r.op.name());
    let seed = (r.word as u64) << 32 ^ (r.log_n as u64) << 16 ^ r.towers as u64;
    match r.op {
        Op::Forward | Op::Inverse => {
            let inverse = r.op == Op::Inverse;
            let x = residues(&basis, 1, seed);
            let mut want = x.clone();
            if inverse { cpu.inverse(&mut want[..]) } else { cpu.forward(&mut want[..]) }.map_err(s)?;
            let run =
                |p: &RnsPlan<W>, d: &mut DeviceVec<W>| if inverse { p.inverse(d) } else { p.forward(d) };
            let mut d = plan.upload(&x).map_err(s)?;
            run(&plan, &mut d).map_err(s)?;
            check(&what, &plan.download(&d).map_err(s)?, &want)?;
            let us = gpu.time(reps.0, reps.1, || run(&plan, &mut d)).map_err(s)?.median_us;
            let mut e = lp.upload(&x).map_err(s)?;
            run(&lp, &mut e).map_err(s)?;
            check(&format!("{what} (launched)"), &lp.download(&e).map_err(s)?, &want)?;
            let launched_us = gpu.time(reps.0, reps.1, || run(&lp, &mut e)).map_err(s)?.median_us;
            let cluster_us = if r.log_n == 16 {
                let o = PlanOptions { kernel: NttKernel::Cluster, ..crate::env_options::plan_options() };
                let cp = RnsPlan::with_options(gpu, &basis, o).map_err(s)?;
                if cp.kernel_for(1) == NttKernel::Cluster {
                    let mut d = cp.upload(&x).map_err(s)?;
                    run(&cp, &mut d).map_err(s)?;
                    check(&format!("{what} (cluster)"), &cp.download(&d).map_err(s)?, &want)?;
                    Some(gpu.time(reps.0, reps.1, || run(&cp, &mut d)).map_err(s)?.median_us)
                } else {
                    None
                }
            } else {
                None
            };
            let fused_us = if W::BITS == 32 {
                let o = PlanOptions { lazy_fused: LazyFused::Always, ..crate::env_options::plan_options() };
                let fp = RnsPlan::with_options(gpu, &basis, o).map_err(s)?;
                let mut d = fp.upload(&x).map_err(s)?;
                run(&fp, &mut d).map_err(s)?;
                check(&format!("{what} (fused)"), &fp.download(&d).map_err(s)?, &want)?;
                Some(gpu.time(reps.0, reps.1, || run(&fp, &mut d)).map_err(s)?.median_us)
            } else {
                None
            };
            let o = PlanOptions { radix: Some(8), ..crate::env_options::plan_options() };
            let rp = RnsPlan::with_options(gpu, &basis, o).map_err(s)?;
            let mut d = rp.upload(&x).map_err(s)?;
            run(&rp, &mut d).map_err(s)?;
            check(&format!("{what} (radix 8)"), &rp.download(&d).map_err(s)?, &want)?;
            let radix8_us = Some(gpu.time(reps.0, reps.1, || run(&rp, &mut d)).map_err(s)?.median_us);
            let computed_us = match &cp {
                Some(cp) => {
                    let mut d = cp.upload(&x).map_err(s)?;
                    run(cp, &mut d).map_err(s)?;
                    check(&format!("{what} (computed rows)"), &cp.download(&d).map_err(s)?, &want)?;
                    Some(gpu.time(reps.0, reps.1, || run(cp, &mut d)).map_err(s)?.median_us)
                }
                None => None,
            };
            let kernel = if inverse { plan.inverse_kernel_for(1) } else { plan.kernel_for(1) };
            Ok(Measured {
                us,
                kernel: kernel.name().into(),
                launches: plan.global_passes(1),
                cluster_us,
                fused_us,
                launched_us,
                radix8_us,
                computed_us,
            })
        }
        Op::Product => {
            let (x, y) = (residues(&basis, 1, seed), residues(&basis, 1, seed ^ 1));
            let want = cpu.polymul(&x, &y).map_err(s)?;
            let time = |p: &RnsPlan<W>, tag: &str| -> Result<f64, String> {
                let (mut a, mut b) = (p.upload(&x).map_err(s)?, p.upload(&y).map_err(s)?);
                p.polymul_in_place(&mut a, &mut b).map_err(s)?;
                check(&format!("{what}{tag}"), &p.download(&a).map_err(s)?, &want)?;
                Ok(gpu.time(reps.0, reps.1, || p.polymul_in_place(&mut a, &mut b)).map_err(s)?.median_us)
            };
            Ok(Measured {
                us: time(&plan, "")?,
                kernel: plan.kernel_for(1).name().into(),
                launches: 3,
                cluster_us: None,
                fused_us: None,
                launched_us: time(&lp, " (launched)")?,
                radix8_us: None,
                computed_us: cp.as_ref().map(|p| time(p, " (computed rows)")).transpose()?,
            })
        }
        Op::TensorInPlace | Op::TensorInto => {
            let (x, y) = (residues(&basis, 2, seed), residues(&basis, 2, seed ^ 1));
            let want = cpu.tensor(&x, &y).map_err(s)?;
            let time = |p: &RnsPlan<W>, tag: &str| -> Result<f64, String> {
                let (a, b) = (p.upload(&x).map_err(s)?, p.upload(&y).map_err(s)?);
                let mut out = p.zeros(3).map_err(s)?;
                let what = format!("{what}{tag}");
                Ok(if r.op == Op::TensorInto {
                    p.tensor_into(&*a, &*b, &mut *out).map_err(s)?;
                    check(&what, &p.download(&out).map_err(s)?, &want)?;
                    gpu.time(reps.0, reps.1, || p.tensor_into(&*a, &*b, &mut *out)).map_err(s)?.median_us
                } else {
                    let (mut a, mut b) = (a, b);
                    p.tensor_in_place(&mut a, &mut b, &mut out).map_err(s)?;
                    check(&what, &p.download(&out).map_err(s)?, &want)?;
                    // The inputs are in the NTT domain now: the words differ
                    // from call to call, the work does not.
                    gpu.time(reps.0, reps.1, || p.tensor_in_place(&mut a, &mut b, &mut out))
                        .map_err(s)?
                        .median_us
                })
            };
            let launches = plan.tensor_launches(1);
            let kernel = format!("{} + tensor", plan.kernel_for(2).name());
            Ok(Measured {
                us: time(&plan, "")?,
                kernel,
                launches,
                cluster_us: None,
                fused_us: None,
                launched_us: time(&lp, " (launched)")?,
                radix8_us: None,
                computed_us: cp.as_ref().map(|p| time(p, " (computed rows)")).transpose()?,
            })
        }
    }
}

/// The large-batch rate of one prime: µs per polynomial of a forward
/// transform of 512 polynomials at N = 2^16.
fn large_batch_us<W: Coeff>(gpu: &Gpu, quick: bool) -> Result<f64, String> {
    let n = 1usize << 16;
    let p = NttParams::<W>::with_prime_bits(n, if W::BITS == 32 { 30 } else { 62 }).map_err(s)?;
    let plan = NttPlan::with_options(gpu, p, crate::env_options::plan_options()).map_err(s)?;
    let mut d = plan.zeros(512).map_err(s)?;
    let reps = if quick { (2, 7) } else { (3, 21) };
    Ok(gpu.time(reps.0, reps.1, || plan.forward(&mut d)).map_err(s)?.median_us / 512.0)
}

fn fmt(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.1}")
    } else if x >= 10.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// The section's table.
pub fn table(gpu: &Gpu, copy_gbs: f64, quick: bool) -> Result<Table, String> {
    let rate32 = gpu.lazy_butterfly_rate::<u32>((1 << 30) - 35, 20_000, 5).map_err(s)?;
    let rate64 = gpu.lazy_butterfly_rate::<u64>((1 << 62) - 57, 20_000, 5).map_err(s)?;
    let (large32, large64) = (large_batch_us::<u32>(gpu, quick)?, large_batch_us::<u64>(gpu, quick)?);
    let mut launch_us = std::collections::BTreeMap::new();
    let mut launch_floor = |k: u32| -> Result<(f64, f64), String> {
        if let Some(&v) = launch_us.get(&k) {
            return Ok(v);
        }
        let chain = LaunchChain::new(gpu, k.max(1)).map_err(s)?;
        let plain = gpu.time(5, 30, || chain.queue()).map_err(s)?.median_us;
        let g = chain.capture().map_err(s)?;
        let replayed = gpu.time(5, 30, || g.launch()).map_err(s)?.median_us;
        launch_us.insert(k, (plain, replayed));
        Ok((plain, replayed))
    };
    let mut t = Table::new(
        "Ciphertexts: one call on L towers of distinct primes (issue 54)",
        &[
            "row",
            "kernel",
            "µs per call",
            "µs per tower",
            "goal",
            "peer (issue 54)",
            "compute floor µs",
            "% of compute floor",
            "GB/s",
            "% of copy",
            "launch floor µs, plain / replayed (launches)",
            "% of large-batch rate",
            "launched, no graph µs",
            "radix 8 µs",
            "computed row twiddles µs",
            "cluster kernels µs",
            "fused kernels µs",
        ],
    );
    t.note = format!(
        "One call per row (batch 1: one polynomial of L towers; the tensor product: two ciphertexts of L \
         towers, three outputs), checked bit-exact against the CPU backend before timing; CUDA events \
         around one call, median. Compute floor: the row's butterflies (log N · N/2 per transform and tower) \
         at the register-only lazy-butterfly rate of this run ({:.0} G/s u32, {:.0} G/s u64). GB/s: the \
         operands read once and the results written once (inputs + outputs, the memory floor's bytes) over \
         the time, against the {copy_gbs:.0} GB/s copy bandwidth of this run. Launch floor: a chain of as \
         many empty kernels as the call launches, launched plainly and replayed as one captured graph. µs per call \
         is the default plan's: a repeated call on the same buffers replays a graph captured on its second \
         call; launched, no graph: the same call with `PlanOptions::graph_cache` off; radix 8: the same call on \
         the full tiles at radix 8 (`PlanOptions::radix`); computed row twiddles: the same call with \
         `RowTwiddles::Computed` (two small tables per tower instead of the row region, N = 2^16). % of large-batch rate: the forward transform's µs per \
         polynomial at 512 polynomials of one prime ({} u32, {} u64 at N = 2^16) over this row's µs per \
         tower. Cluster kernels: the same call with `NttKernel::Cluster` (one pass through distributed \
         shared memory, N = 2^16). Fused kernels: the same call with `LazyFused::Always` (both passes in one \
         launch, every tower's tickets its own; `u32`). Peers: issue 54's figures on an H100, not measured here.",
        rate32 / 1e9,
        rate64 / 1e9,
        fmt(large32),
        fmt(large64)
    );
    for r in rows(quick) {
        let m = match r.word {
            32 => measure::<u32>(gpu, &r, quick)?,
            _ => measure::<u64>(gpu, &r, quick)?,
        };
        let n = (1u64 << r.log_n) as f64;
        let w = f64::from(r.word / 8);
        let l = r.towers as f64;
        let butterflies = r.op.transforms() * f64::from(r.log_n) * n / 2.0 * l;
        let rate = if r.word == 32 { rate32 } else { rate64 };
        let compute = butterflies / rate * 1e6;
        let bytes = r.op.one_pass_polys() * n * w * l;
        let gbs = bytes / (m.us * 1e3);
        let large = if r.word == 32 { large32 } else { large64 };
        let share = match (r.op, r.log_n) {
            (Op::Forward, 16) => format!("{:.0}%", 100.0 * large / (m.us / l)),
            _ => "—".into(),
        };
        let (label, lf) = (
            format!("u{} N=2^{} L={} {}", r.word, r.log_n, r.towers, r.op.name()),
            launch_floor(m.launches)?,
        );
        t.rows.push(vec![
            label,
            m.kernel,
            fmt(m.us),
            fmt(m.us / l),
            goal(&r).map_or("—".into(), |g| format!("≤ {}", fmt(g))),
            peer(&r).map_or("—".into(), |(who, us)| format!("{} ({who})", fmt(us))),
            fmt(compute),
            format!("{:.0}%", 100.0 * compute / m.us),
            format!("{gbs:.0}"),
            format!("{:.0}%", 100.0 * gbs / copy_gbs),
            format!("{} / {} ({})", fmt(lf.0), fmt(lf.1), m.launches),
            share,
            fmt(m.launched_us),
            m.radix8_us.map_or("—".into(), fmt),
            m.computed_us.map_or("—".into(), fmt),
            m.cluster_us.map_or("—".into(), fmt),
            m.fused_us.map_or("—".into(), fmt),
        ]);
        eprintln!("  ciphertext: {}", t.rows.last().map(|r| r.join(" | ")).unwrap_or_default());
    }
    Ok(t)
}

/// `polymul-bench profile-ciphertext WORD LOG_N TOWERS OP [REPS]`: runs one
/// row's call `REPS` times (default 20) after one checked run, for Nsight
/// Compute (`OP`: forward, inverse, product, tensor, tensor-into).
pub fn profile(args: &[String]) -> i32 {
    let num = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let op = match args.get(3).map_or("forward", String::as_str) {
        "forward" => Op::Forward,
        "inverse" => Op::Inverse,
        "product" => Op::Product,
        "tensor" => Op::TensorInPlace,
        "tensor-into" => Op::TensorInto,
        o => {
            eprintln!("unknown operation {o}: forward, inverse, product, tensor, tensor-into");
            return 2;
        }
    };
    let r = Row { word: num(0, 32) as u32, log_n: num(1, 16) as u32, towers: num(2, 32), op };
    let reps = num(4, 20);
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("polymul-bench profile-ciphertext: {e}");
            return 1;
        }
    };
    let go = || -> Result<Measured, String> {
        match r.word {
            32 => measure::<u32>(&gpu, &r, true),
            _ => measure::<u64>(&gpu, &r, true),
        }
    };
    // `measure` checks against the CPU, then times (warm-up + repetitions).
    for _ in 0..reps.div_ceil(35).max(1) {
        match go() {
            Ok(m) => println!("{}: {} µs ({})", r.op.name(), fmt(m.us), m.kernel),
            Err(e) => {
                eprintln!("polymul-bench profile-ciphertext: {e}");
                return 1;
            }
        }
    }
    0
}
