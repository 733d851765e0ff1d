//! "Against the goals": the rows of the throughput issues (#14, and #34's
//! stricter goals where it sets one), each timed
//! with the default plan (`NttKernel::Auto`) and with the configuration
//! the default ran before the lazy kernels (the rule of commit 8350f48,
//! kept here for this before/after column), beside the goal, the open
//! libraries' figures quoted in the issue (measured on an H100 on
//! 2026-11-23, not in this run), and the floors measured in this run: the
//! lazy-butterfly compute floor (our register-only kernel,
//! `Gpu::lazy_butterfly_rate`) and one pass over memory at the copy
//! bandwidth.

use crate::report::Table;
use polymul::expert::GpuTiming;
use polymul::expert::{NttKernel, PlanOptions, SplitMix64};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, DeviceVec, Gpu, NttParams, NttPlan};

/// Coefficients per batched transform row (the batch · N).
const BATCH_COEFFS: usize = 1 << 26;

/// What a row times.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Forward,
    Inverse,
    /// One negacyclic product per pair (2 forward, pointwise, inverse).
    Polymul,
    /// One RNS product at N = 2^16 with this many towers (batch 1).
    Rns(usize),
    /// Forward transforms of a batch of 32: per-polynomial time over the
    /// large-batch time (goal: at least 85% of the large-batch rate).
    Moderate,
}

/// One row of the table.
struct Goal {
    word: u32,
    log_n: u32,
    op: Op,
    /// Goal on an H100, µs per polynomial (per product for polymul, per
    /// call for RNS; for `Moderate`, the minimal ratio in percent).
    goal: f64,
    /// Issue 34's second goal for some rows: at least this percentage of
    /// the larger floor (compute or memory) measured in the same run.
    floor_pct: Option<f64>,
    /// `(GPU-NTT, Phantom, Cheddar)` as quoted in the issue, µs per polynomial.
    peers: [Option<f64>; 3],
}

impl Goal {
    /// Whether `now` (the row's measure: µs, or % for `Moderate`) meets
    /// the goal, `pct_floor` being the larger floor over `now` in percent:
    /// a time at most the goal and, where the row has one, at least
    /// `floor_pct` of the floor; a moderate-batch ratio at least the goal.
    fn met(&self, now: f64, pct_floor: f64) -> bool {
        if self.op == Op::Moderate {
            now >= self.goal
        } else {
            now <= self.goal && self.floor_pct.is_none_or(|p| pct_floor >= p)
        }
    }
}

const PEERS: [&str; 3] = ["GPU-NTT", "Phantom", "Cheddar"];

fn goals() -> Vec<Goal> {
    use Op::*;
    let g = |word, log_n, op, goal, peers| Goal { word, log_n, op, goal, floor_pct: None, peers };
    let f =
        |word, log_n, goal, pct, peers| Goal { word, log_n, op: Forward, goal, floor_pct: Some(pct), peers };
    // Issue 34's goals where it sets one, issue 14's elsewhere.
    vec![
        g(64, 12, Forward, 0.040, [Some(0.0971), Some(0.0946), None]),
        g(64, 14, Forward, 0.185, [Some(0.437), Some(0.391), None]),
        g(64, 16, Forward, 0.85, [Some(1.979), Some(1.536), None]),
        g(64, 16, Inverse, 0.85, [Some(2.084), Some(1.624), None]),
        g(64, 17, Forward, 2.1, [Some(4.329), Some(3.436), None]),
        g(32, 11, Forward, 0.0095, [Some(0.0265), None, None]),
        f(32, 12, 0.022, 75.0, [Some(0.0553), None, Some(0.323)]),
        f(32, 14, 0.09, 75.0, [Some(0.241), None, Some(0.565)]),
        g(32, 16, Forward, 0.33, [Some(1.095), None, Some(0.438)]),
        g(32, 16, Inverse, 0.31, [Some(1.124), None, Some(0.416)]),
        f(32, 17, 0.9, 75.0, [Some(2.471), None, None]),
        g(64, 16, Polymul, 3.0, [None, Some(4.9), None]),
        g(32, 16, Polymul, 1.1, [None, None, Some(1.5)]),
        g(64, 16, Rns(20), 70.0, [None, None, None]),
        g(32, 16, Rns(42), 55.0, [None, None, None]),
        g(64, 16, Moderate, 85.0, [None, None, None]),
        g(32, 16, Moderate, 85.0, [None, None, None]),
    ]
}

/// The default configuration before the lazy kernels (commit 8350f48's
/// `auto_kernel` and `auto_radix`) for a transform, batched or not.
pub fn previous_default(word: u32, log_n: u32, batched: bool, inverse: bool) -> PlanOptions {
    let kernel = match (word, batched, inverse) {
        (_, true, true) => NttKernel::Tiled,
        (64, true, false) if log_n >= 14 => NttKernel::TwoD,
        (64, _, _) => NttKernel::Tiled,
        (_, true, false) if log_n >= 15 => NttKernel::TwoD,
        (_, true, false) => NttKernel::Tiled,
        (_, false, _) if log_n >= 11 => NttKernel::TwoD,
        (_, false, _) => NttKernel::Tiled,
    };
    let two_d = kernel == NttKernel::TwoD;
    let log_r = match (word, batched, two_d, inverse) {
        (64, true, _, true) if log_n <= 11 => 3,
        (64, true, _, true) => 2,
        (_, true, _, true) => 3,
        (64, true, true, false) => 4,
        (64, true, false, false) if log_n <= 12 => 4,
        (64, true, false, false) => 2,
        (64, false, true, _) => 3,
        (64, false, false, _) => 2,
        (_, true, true, false) => 3,
        (_, true, false, false) if log_n <= 12 => 4,
        (_, true, false, false) => 3,
        (_, false, _, _) if log_n <= 10 => 2,
        (_, false, _, _) => 3,
    };
    PlanOptions { kernel, radix: Some(1 << log_r), ..crate::env_options::plan_options() }
}

/// Floors of one row, µs: compute (lazy butterflies at the measured rate)
/// and memory (one pass at copy bandwidth).
struct Floors {
    compute: f64,
    memory: f64,
}

impl Floors {
    fn max(&self) -> f64 {
        self.compute.max(self.memory)
    }
}

/// Measured values of one row: µs per polynomial (or per call) now and
/// before, and what the default ran.
struct Measured {
    now: f64,
    before: f64,
    now_kernel: String,
    before_kernel: String,
    /// Global-memory bytes the default plan's kernels move, per polynomial.
    bytes: f64,
}

fn fmt(x: f64) -> String {
    match x {
        x if x >= 100.0 => format!("{x:.0}"),
        x if x >= 10.0 => format!("{x:.1}"),
        x if x >= 1.0 => format!("{x:.2}"),
        x if x >= 0.1 => format!("{x:.3}"),
        x => format!("{x:.4}"),
    }
}

fn bits_of(word: u32) -> u32 {
    if word == 32 { 30 } else { 62 }
}

/// Times one transform direction of `batch` polynomials with `opts`.
fn time_transform<W: Coeff>(
    gpu: &Gpu,
    p: &NttParams<W>,
    opts: PlanOptions,
    batch: usize,
    inverse: bool,
    reps: (usize, usize),
) -> polymul::Result<(f64, String, f64)> {
    let plan = NttPlan::with_options(gpu, p.clone(), opts)?;
    let mut rng = SplitMix64::new(0x60a1 ^ p.n() as u64);
    let mut a = plan.upload(&rng.coeffs(p.n() * batch, p.q()))?;
    let t = gpu.time(reps.0, reps.1, || if inverse { plan.inverse(&mut a) } else { plan.forward(&mut a) })?;
    let kernel = if inverse { plan.inverse_kernel_for(batch) } else { plan.kernel_for(batch) };
    let bytes = crate::bench::ntt_bytes(&plan, batch) / batch as f64;
    Ok((t.median_us / batch as f64, kernel.name().to_string(), bytes))
}

/// A product as the previous default ran it: the forward transforms with
/// one configuration, the pointwise product, the inverse with another.
fn time_polymul<W: Coeff>(
    gpu: &Gpu,
    p: &NttParams<W>,
    batch: usize,
    reps: (usize, usize),
) -> polymul::Result<Measured> {
    let log_n = p.log_n();
    let mut rng = SplitMix64::new(0x9a1 ^ p.n() as u64);
    let now = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options())?;
    let fwd = NttPlan::with_options(gpu, p.clone(), previous_default(W::BITS, log_n, true, false))?;
    let inv = NttPlan::with_options(gpu, p.clone(), previous_default(W::BITS, log_n, true, true))?;
    let len = p.n() * batch;
    let (mut a, mut b) = (now.upload(&rng.coeffs(len, p.q()))?, now.upload(&rng.coeffs(len, p.q()))?);
    let t_now = gpu.time(reps.0, reps.1, || now.polymul_in_place(&mut a, &mut b))?.median_us;
    let t_before = gpu
        .time(reps.0, reps.1, || {
            fwd.forward(&mut a)?;
            fwd.forward(&mut b)?;
            fwd.pointwise_mul(&mut a, &b)?;
            inv.inverse(&mut a)
        })?
        .median_us;
    let w = std::mem::size_of::<W>() as f64;
    // A product runs the transforms' passes unfused (three launches), as a
    // transform of one polynomial does.
    let units = polymul_units(now.kernel_for(batch), now.global_passes(1));
    Ok(Measured {
        now: t_now / batch as f64,
        before: t_before / batch as f64,
        now_kernel: format!("{} / {}", now.kernel_for(batch).name(), now.inverse_kernel_for(batch).name()),
        before_kernel: format!("{} / {}", fwd.kernel_for(batch).name(), inv.inverse_kernel_for(batch).name()),
        bytes: units * p.n() as f64 * w,
    })
}

/// Polynomials' worth of global-memory traffic of one product with
/// `passes`-pass transforms: the lazy kernels read and write both operands
/// in their column pass (one launch), then read both and write one in the
/// product pass, then read and write one in the inverse column pass; the
/// other kernels run three whole transforms and a pointwise product.
fn polymul_units(kernel: NttKernel, passes: u32) -> f64 {
    let p = f64::from(passes);
    if kernel == NttKernel::Lazy { 6.0 * (p - 1.0) + 3.0 } else { 6.0 * p + 3.0 }
}

/// One RNS product of `towers` towers at N = 2^16, batch 1: the default
/// plan and the previous default's composition.
fn time_rns<W: Coeff>(gpu: &Gpu, towers: usize, reps: (usize, usize)) -> polymul::Result<Measured> {
    let n = 1usize << 16;
    let basis = RnsBasis::<W>::new(n, bits_of(W::BITS), towers)?;
    let now = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options())?;
    // One tower-batch of `towers` polynomials of 2^16 words: batched.
    let fwd = RnsPlan::with_options(gpu, &basis, previous_default(W::BITS, 16, true, false))?;
    let inv = RnsPlan::with_options(gpu, &basis, previous_default(W::BITS, 16, true, true))?;
    let mut rng = SplitMix64::new(0x7e5 ^ towers as u64);
    let mut residues = || -> Vec<W> { basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect() };
    let (ra, rb) = (residues(), residues());
    let (mut a, mut b): (DeviceVec<W>, DeviceVec<W>) = (now.upload(&ra)?, now.upload(&rb)?);
    let t_now = gpu.time(reps.0, reps.1, || now.polymul_in_place(&mut a, &mut b))?.median_us;
    let t_before = gpu
        .time(reps.0, reps.1, || {
            fwd.forward(&mut a)?;
            fwd.forward(&mut b)?;
            fwd.pointwise_mul(&mut a, &b)?;
            inv.inverse(&mut a)
        })?
        .median_us;
    let w = std::mem::size_of::<W>() as f64;
    let units = polymul_units(now.kernel_for(1), now.global_passes(1));
    Ok(Measured {
        now: t_now,
        before: t_before,
        now_kernel: now.kernel_for(1).name().to_string(),
        before_kernel: fwd.kernel_for(1).name().to_string(),
        bytes: towers as f64 * units * n as f64 * w,
    })
}

fn measure<W: Coeff>(gpu: &Gpu, g: &Goal, quick: bool) -> polymul::Result<Measured> {
    let n = 1usize << g.log_n;
    let p = NttParams::<W>::with_prime_bits(n, bits_of(W::BITS))?;
    let big = (BATCH_COEFFS / n).max(1);
    let reps = if quick { (2, 7) } else { (3, 21) };
    match g.op {
        Op::Forward | Op::Inverse => {
            let inv = g.op == Op::Inverse;
            let (now, now_kernel, bytes) =
                time_transform(gpu, &p, crate::env_options::plan_options(), big, inv, reps)?;
            let (before, before_kernel, _) =
                time_transform(gpu, &p, previous_default(W::BITS, g.log_n, true, inv), big, inv, reps)?;
            Ok(Measured { now, before, now_kernel, before_kernel, bytes })
        }
        Op::Polymul => time_polymul(gpu, &p, big / 2, reps),
        Op::Rns(towers) => time_rns::<W>(gpu, towers, (reps.0, reps.1 * 3)),
        Op::Moderate => {
            let reps_small = (reps.0, reps.1 * 3);
            let (small, now_kernel, bytes) =
                time_transform(gpu, &p, crate::env_options::plan_options(), 32, false, reps_small)?;
            let (large, _, _) =
                time_transform(gpu, &p, crate::env_options::plan_options(), big, false, reps)?;
            let prev = previous_default(W::BITS, g.log_n, true, false);
            let (small_b, before_kernel, _) = time_transform(gpu, &p, prev, 32, false, reps_small)?;
            let (large_b, _, _) = time_transform(gpu, &p, prev, big, false, reps)?;
            // As percentages of the large-batch rate.
            Ok(Measured {
                now: 100.0 * large / small,
                before: 100.0 * large_b / small_b,
                now_kernel,
                before_kernel,
                bytes,
            })
        }
    }
}

/// Butterflies of one row's work per polynomial (per call for RNS).
fn butterflies(g: &Goal) -> f64 {
    let per_ntt = f64::from(g.log_n) * (1u64 << (g.log_n - 1)) as f64;
    match g.op {
        Op::Forward | Op::Inverse | Op::Moderate => per_ntt,
        Op::Polymul => 3.0 * per_ntt,
        Op::Rns(t) => 3.0 * per_ntt * t as f64,
    }
}

/// Bytes of one pass over memory: inputs read once, outputs written once.
fn one_pass_bytes(g: &Goal) -> f64 {
    let w = f64::from(g.word / 8);
    let n = (1u64 << g.log_n) as f64;
    match g.op {
        Op::Forward | Op::Inverse | Op::Moderate => 2.0 * n * w,
        Op::Polymul => 3.0 * n * w,
        Op::Rns(t) => 3.0 * n * w * t as f64,
    }
}

/// The table; `rates` are the measured lazy-butterfly rates (u32, u64) in
/// butterflies per second, `copy_gbs` the copy bandwidth of this run.
pub fn table(gpu: &Gpu, copy_gbs: f64, quick: bool) -> polymul::Result<Table> {
    let rate32 = gpu.lazy_butterfly_rate::<u32>((1 << 30) - 35, 20_000, 5)?;
    let rate64 = gpu.lazy_butterfly_rate::<u64>((1 << 62) - 57, 20_000, 5)?;
    eprintln!(
        "goals: lazy butterflies {:.0} G/s (u32), {:.0} G/s (u64): 2^16-point NTT floors {:.3} / {:.3} µs",
        rate32 / 1e9,
        rate64 / 1e9,
        524_288.0 / rate32 * 1e6,
        524_288.0 / rate64 * 1e6
    );
    let mut t = Table::new(
        "Against the goals (issues 14 and 34): the default plan now and before, the open libraries, the floors",
        &[
            "row",
            "goal",
            PEERS[0],
            PEERS[1],
            PEERS[2],
            "before (previous default)",
            "now (default plan)",
            "now / before",
            "best open / now",
            "floor µs (compute / memory)",
            "% of floor",
            "GB/s",
            "% of copy",
            "goal met",
        ],
    );
    t.note = format!(
        "µs per polynomial (batch · N = 2^26, CUDA events, median) unless the row says otherwise; RNS rows: \
         one product at N = 2^16 (µs per call); moderate-batch rows: 32 polynomials' per-polynomial rate as \
         % of the large-batch rate. Goals: issue 34's where it sets one (a time, or a time and a % of \
         the floor), issue 14's elsewhere. The peers' figures are the issue's, measured on an H100 \
         80GB HBM3 on 2026-11-23 (GPU-NTT: 61-bit q for u64; Phantom: 60-bit; Cheddar: 30-bit), not in this \
         run. Floors from this run: compute = the row's butterflies at the register-only lazy-butterfly \
         rate ({:.0} G/s u32, {:.0} G/s u64, 30- and 62-bit q), memory = reading inputs once and writing \
         outputs once at the {copy_gbs:.0} GB/s copy bandwidth; % of floor = the larger floor over the time. \
         GB/s counts the bytes the default plan's kernels actually move.",
        rate32 / 1e9,
        rate64 / 1e9
    );
    for g in goals() {
        let m = match g.word {
            32 => measure::<u32>(gpu, &g, quick)?,
            _ => measure::<u64>(gpu, &g, quick)?,
        };
        let label = match g.op {
            Op::Forward => format!("u{} forward N=2^{}", g.word, g.log_n),
            Op::Inverse => format!("u{} inverse N=2^{}", g.word, g.log_n),
            Op::Polymul => format!("u{} polymul N=2^{} (per product)", g.word, g.log_n),
            Op::Rns(k) => format!("RNS {k} × {}-bit towers, N=2^16, one product (µs)", bits_of(g.word)),
            Op::Moderate => format!("u{} forward N=2^16, batch 32 (% of large-batch rate)", g.word),
        };
        let peer = |i: usize| g.peers[i].map_or("—".to_string(), fmt);
        let best = g.peers.iter().flatten().copied().fold(f64::INFINITY, f64::min);
        let moderate = g.op == Op::Moderate;
        let rate = if g.word == 32 { rate32 } else { rate64 };
        let floors =
            Floors { compute: butterflies(&g) / rate * 1e6, memory: one_pass_bytes(&g) / (copy_gbs * 1e3) };
        let pct = 100.0 * floors.max() / m.now;
        let met = g.met(m.now, pct);
        let (gbs, pct_floor) = if moderate {
            ("—".to_string(), "—".to_string())
        } else {
            (fmt(m.bytes / (m.now * 1e3)), format!("{pct:.0}%"))
        };
        let pct_copy = if moderate {
            "—".to_string()
        } else {
            format!("{:.0}%", 100.0 * m.bytes / (m.now * 1e3) / copy_gbs)
        };
        t.rows.push(vec![
            label,
            match (moderate, g.floor_pct) {
                (true, _) => format!("≥ {:.0}%", g.goal),
                (false, None) => format!("≤ {}", fmt(g.goal)),
                (false, Some(p)) => format!("≤ {}, ≥ {p:.0}% of floor", fmt(g.goal)),
            },
            peer(0),
            peer(1),
            peer(2),
            format!(
                "{} ({})",
                if moderate { format!("{:.0}%", m.before) } else { fmt(m.before) },
                m.before_kernel
            ),
            format!("{} ({})", if moderate { format!("{:.0}%", m.now) } else { fmt(m.now) }, m.now_kernel),
            if moderate { "—".into() } else { format!("{:.2}×", m.before / m.now) },
            if best.is_finite() { format!("{:.2}×", best / m.now) } else { "—".into() },
            if moderate { "—".into() } else { format!("{} / {}", fmt(floors.compute), fmt(floors.memory)) },
            pct_floor,
            gbs,
            pct_copy,
            if met { "yes".into() } else { "no".into() },
        ]);
        eprintln!("  goals: {}", t.rows.last().map(|r| r.join(" | ")).unwrap_or_default());
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn goal(word: u32, log_n: u32, op: Op) -> Goal {
        Goal { word, log_n, op, goal: 1.0, floor_pct: None, peers: [None; 3] }
    }

    /// The floors' arithmetic, by hand: `log N · N/2` butterflies per
    /// transform, three transforms' worth per product and per tower; one
    /// pass reads and writes each polynomial once (`N · w` bytes each way).
    #[test]
    fn floors_count_butterflies_and_bytes() {
        let fwd = goal(64, 16, Op::Forward);
        assert_relative_eq!(butterflies(&fwd), 16.0 * 32768.0);
        assert_relative_eq!(one_pass_bytes(&fwd), 2.0 * 65536.0 * 8.0);
        let mul = goal(32, 16, Op::Polymul);
        assert_relative_eq!(butterflies(&mul), 3.0 * 16.0 * 32768.0);
        assert_relative_eq!(one_pass_bytes(&mul), 3.0 * 65536.0 * 4.0);
        let rns = goal(64, 16, Op::Rns(20));
        assert_relative_eq!(butterflies(&rns), 20.0 * butterflies(&mul));
        assert_relative_eq!(one_pass_bytes(&rns), 20.0 * 3.0 * 65536.0 * 8.0);
        // At 773 G butterflies/s (u64) a forward 2^16 takes 0.678 µs, the
        // compute floor the goals table quotes.
        assert_relative_eq!(butterflies(&fwd) / 773e9 * 1e6, 0.678, max_relative = 1e-3);
        let f = Floors { compute: 0.678, memory: 0.354 };
        assert_relative_eq!(f.max(), 0.678);
    }

    /// A goal is met by a time at or under it and, where the row also asks
    /// a share of the floor, by that share too; moderate rows by a ratio at
    /// or above it.
    #[test]
    fn goals_need_both_the_time_and_the_floor_share() {
        let g = Goal { floor_pct: Some(75.0), ..goal(32, 14, Op::Forward) };
        assert!(g.met(1.0, 75.0));
        assert!(!g.met(1.0, 74.9), "the time alone is not enough");
        assert!(!g.met(1.01, 90.0), "the share alone is not enough");
        let plain = goal(64, 16, Op::Forward);
        assert!(plain.met(0.99, 10.0));
        assert!(!plain.met(1.01, 99.0));
        let m = Goal { goal: 85.0, ..goal(64, 16, Op::Moderate) };
        assert!(m.met(85.0, 0.0));
        assert!(!m.met(84.9, 0.0));
        // Every row of the table that sets a floor share is a transform
        // (the share is of a transform's floors).
        for g in goals() {
            if g.floor_pct.is_some() {
                assert!(matches!(g.op, Op::Forward | Op::Inverse));
            }
        }
    }

    /// Passes over memory of a product: the lazy kernels share the column
    /// pass of both operands and finish `b`'s transform in registers.
    #[test]
    fn polymul_traffic_units() {
        assert_relative_eq!(polymul_units(NttKernel::Lazy, 2), 9.0);
        assert_relative_eq!(polymul_units(NttKernel::Lazy, 1), 3.0);
        assert_relative_eq!(polymul_units(NttKernel::TwoD, 2), 15.0);
        // GB/s of a 2^16 u64 product moving 9 polynomials in 2.85 µs.
        let gbs = polymul_units(NttKernel::Lazy, 2) * 65536.0 * 8.0 / (2.85e-6 * 1e9);
        assert_relative_eq!(gbs, 1655.6, max_relative = 1e-3);
    }
}
