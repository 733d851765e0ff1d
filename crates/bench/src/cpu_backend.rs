//! The CPU backend (`polymul::cpu::CpuPlan`, issue 19) against Zama's
//! `concrete-ntt` 0.2 from crates.io on one thread, per word, N and
//! operation, with the ratio per row; and its batch scaling over all cores.
//! Every timed result is first checked against polymul's reference
//! (`emulation::forward`, `emulation::inverse`, `emulation::polymul`).

use crate::cpu_anchor::Anchor;
use crate::report::Table;
use polymul::cpu::CpuPlan;
use polymul::expert::{SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, NttParams};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// µs per call of `f` and of `g`, timed in alternation (`reps` pairs of
/// samples of `inner` calls each, so that load from other processes hits
/// both alike): the two medians and the median of the per-pair ratios f/g.
fn time_pair(reps: usize, inner: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64, f64) {
    let sample = |h: &mut dyn FnMut()| {
        let t = Instant::now();
        for _ in 0..inner {
            h();
        }
        t.elapsed().as_secs_f64() * 1e6 / inner as f64
    };
    f();
    g();
    let (mut fs, mut gs, mut ratios) = (vec![], vec![], vec![]);
    for _ in 0..reps {
        let (a, b) = (sample(&mut f), sample(&mut g));
        fs.push(a);
        gs.push(b);
        ratios.push(a / b);
    }
    (median(fs), median(gs), median(ratios))
}

/// µs per call of `f`: the median of `reps` samples of one call each.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect(),
    )
}

/// One row per operation: backend, concrete-ntt, reference µs, the ratio.
fn rows<W: Coeff, A: Anchor<W>>(bits: u32, log_n: u32, quick: bool, t: &mut Table) -> Result<(), String> {
    let s = |e: polymul::Error| e.to_string();
    let n = 1usize << log_n;
    let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
    let plan = CpuPlan::new(p.clone()).map_err(s)?;
    let anchor = A::make(n, p.q()).ok_or("concrete-ntt refused the prime")?;
    let mut rng = SplitMix64::new(n as u64 ^ u64::from(bits));
    let (a, b) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
    // The backend computes the reference's words.
    let (mut x, mut y) = (a.clone(), a.clone());
    plan.forward(&mut x).map_err(s)?;
    emulation::forward(&p, &mut y).map_err(s)?;
    let (mut u, mut v) = (a.clone(), a.clone());
    plan.inverse(&mut u).map_err(s)?;
    emulation::inverse(&p, &mut v).map_err(s)?;
    let c = plan.polymul(&a, &b).map_err(s)?;
    if x != y || u != v || c != emulation::polymul(&p, &a, &b).map_err(s)? {
        return Err(format!("CPU backend differs from the reference at u{} N=2^{log_n}", W::BITS));
    }
    // Samples of ≥ ~2 ms; fewer repetitions with --quick.
    let inner = ((1usize << 19) / n).max(1);
    let reps = if quick { 3 } else { 11 };
    let ref_reps = if quick { 1 } else { 3 };
    for op in ["forward", "inverse", "polymul"] {
        let (mut buf, mut other) = (a.clone(), a.clone());
        let (mut ca, mut cb) = (a.clone(), b.clone());
        let ((ours, theirs, ratio), reference) = match op {
            "forward" => (
                time_pair(reps, inner, || plan.forward(&mut buf).unwrap_or(()), || anchor.fwd(&mut other)),
                time(ref_reps, || emulation::forward(&p, &mut buf).unwrap_or(())),
            ),
            "inverse" => (
                time_pair(
                    reps,
                    inner,
                    || plan.inverse(&mut buf).unwrap_or(()),
                    || {
                        anchor.inv(&mut other);
                        anchor.normalize(&mut other)
                    },
                ),
                time(ref_reps, || emulation::inverse(&p, &mut buf).unwrap_or(())),
            ),
            _ => (
                time_pair(
                    reps,
                    inner,
                    || drop(std::hint::black_box(plan.polymul(&a, &b))),
                    || {
                        ca.copy_from_slice(&a);
                        cb.copy_from_slice(&b);
                        anchor.fwd(&mut ca);
                        anchor.fwd(&mut cb);
                        anchor.mul_assign_normalize(&mut ca, &cb);
                        anchor.inv(&mut ca);
                        std::hint::black_box(&ca);
                    },
                ),
                time(ref_reps, || drop(std::hint::black_box(emulation::polymul(&p, &a, &b)))),
            ),
        };
        std::hint::black_box((&buf, &other));
        t.rows.push(vec![
            format!("u{}", W::BITS),
            bits.to_string(),
            format!("2^{log_n}"),
            op.into(),
            if plan.is_vectorised() { "concrete-ntt on ψ" } else { "reference" }.into(),
            format!("{ours:.2}"),
            format!("{theirs:.2}"),
            format!("{ratio:.3}"),
            if ratio <= 1.25 { "yes" } else { "no" }.into(),
            format!("{reference:.1}"),
            format!("{:.1}", reference / ours),
        ]);
        eprintln!(
            "  cpu backend u{} N=2^{log_n} {op:8}: {ours:>9.2} µs, concrete-ntt {theirs:>9.2} µs, ratio {ratio:.3}, \
             reference {reference:>10.1} µs",
            W::BITS
        );
    }
    Ok(())
}

/// The backend against concrete-ntt, one polynomial per call (one thread).
pub fn table(quick: bool) -> Result<Table, String> {
    let mut t = Table::new(
        "CPU backend (issue 19) against concrete-ntt, one polynomial, one thread",
        &[
            "word",
            "q bits",
            "N",
            "op",
            "path",
            "backend µs",
            "concrete-ntt µs",
            "backend / concrete-ntt",
            "within 1.25×",
            "reference µs",
            "reference / backend",
        ],
    );
    let before = load_average();
    // --quick: three sizes, the widest primes only.
    let log_ns: Vec<u32> = if quick { vec![10, 13, 16] } else { (10..=17).collect() };
    let widths: &[(u32, u32)] =
        if quick { &[(64, 62), (32, 30)] } else { &[(64, 62), (32, 30), (64, 40), (32, 20)] };
    for &(word, bits) in widths {
        for &log_n in &log_ns {
            match word {
                64 => rows::<u64, concrete_ntt::prime64::Plan>(bits, log_n, quick, &mut t)?,
                _ => rows::<u32, concrete_ntt::prime32::Plan>(bits, log_n, quick, &mut t)?,
            }
        }
    }
    t.note = format!(
        "polymul::cpu::CpuPlan (one polynomial runs on the calling thread) against concrete-ntt 0.2 from \
         crates.io (default features: AVX2 where present; its AVX-512 paths need its nightly feature), the \
         same N and prime. Inverse: concrete-ntt's `inv` then `normalize` (the scaled inverse polymul \
         computes); polymul: copies of both operands, `fwd`, `fwd`, `mul_assign_normalize`, `inv` (the \
         backend's `polymul` allocates its result). The backend's results are first checked equal to \
         polymul's reference (`cpu::*`), the kernels' own code looped on the host (its time in the last \
         columns, a few runs of one call). Backend and concrete-ntt are timed in alternation, pairs of \
         samples of ≥ 2^19 coefficients each; µs columns: medians; ratio: the median of the per-pair \
         ratios. The cores were shared with other work (load average {before} before this table, {} \
         after it), so single rows can be noisy.",
        load_average()
    );
    Ok(t)
}

/// The machine's own ceiling for a batch of `batch` independent one-polynomial
/// jobs (`job(i)` runs job `i` on the calling thread, on data of its own):
/// `threads` OS threads started together, each running its share of the
/// jobs `inner` times, against one thread running all of them as often;
/// timed in alternation. No rayon and no shared writes: what the cores give
/// when nothing but the work is parallel (a lower ceiling than the thread
/// count means the cores share something, e.g. SMT siblings of one
/// physical core, or the VM's scheduling).
fn ceiling(threads: usize, batch: usize, reps: usize, inner: usize, job: &(dyn Fn(usize) + Sync)) -> f64 {
    let one = || {
        for _ in 0..inner {
            (0..batch).for_each(job);
        }
    };
    let all = || {
        std::thread::scope(|sc| {
            for t in 0..threads {
                sc.spawn(move || {
                    for _ in 0..inner {
                        (t..batch).step_by(threads).for_each(job);
                    }
                });
            }
        })
    };
    let (_, _, inv) = time_pair(reps, 1, all, one);
    1.0 / inv
}

/// Batches over rayon's pool: one thread against all.
fn scaling_rows<W: Coeff>(
    bits: u32,
    log_n: u32,
    batch: usize,
    quick: bool,
    t: &mut Table,
) -> Result<(), String> {
    let s = |e: polymul::Error| e.to_string();
    let n = 1usize << log_n;
    let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
    let plan = CpuPlan::new(p.clone()).map_err(s)?;
    let mut rng = SplitMix64::new(n as u64 ^ batch as u64);
    let (a, b) = (rng.coeffs(n * batch, p.q()), rng.coeffs(n * batch, p.q()));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| e.to_string())?;
    let threads = rayon::current_num_threads();
    let inner = ((1usize << 20) / (n * batch)).max(1);
    let reps = if quick { 3 } else { 9 };
    for op in ["forward", "polymul"] {
        let mut buf = a.clone();
        let run = |buf: &mut Vec<W>| match op {
            "forward" => plan.forward(buf).unwrap_or(()),
            _ => drop(std::hint::black_box(plan.polymul(&a, &b))),
        };
        let mut copy = buf.clone();
        let (all, single, inv_speedup) =
            time_pair(reps, inner, || run(&mut buf), || one.install(|| run(&mut copy)));
        let speedup = 1.0 / inv_speedup;
        // The same work as independent jobs on private copies, OS threads.
        let (pa, pb): (Vec<Vec<W>>, Vec<Vec<W>>) =
            (a.chunks(n).map(<[W]>::to_vec).collect(), b.chunks(n).map(<[W]>::to_vec).collect());
        let slots: Vec<std::sync::Mutex<Vec<W>>> = pa.iter().cloned().map(std::sync::Mutex::new).collect();
        let job = |i: usize| match op {
            "forward" => {
                let mut x = slots[i].lock().unwrap_or_else(|p| p.into_inner());
                plan.forward(&mut x[..]).unwrap_or(());
            }
            _ => drop(std::hint::black_box(plan.polymul(&pa[i], &pb[i]))),
        };
        let ideal = ceiling(threads, batch, reps, inner, &job);
        // How many cores the all-threads run kept busy: CPU time of every
        // thread of this process over wall time.
        let (c0, t0) = (process_cpu_ns(), Instant::now());
        for _ in 0..reps * inner {
            run(&mut buf);
        }
        let busy = match (c0, process_cpu_ns()) {
            (Some(c0), Some(c1)) => format!("{:.2}", (c1 - c0) as f64 / (t0.elapsed().as_nanos() as f64)),
            _ => "n/a".into(),
        };
        t.rows.push(vec![
            format!("u{}", W::BITS),
            format!("2^{log_n}"),
            batch.to_string(),
            op.into(),
            format!("{single:.1}"),
            format!("{all:.1}"),
            threads.to_string(),
            format!("{speedup:.2}"),
            format!("{ideal:.2}"),
            busy,
        ]);
        eprintln!(
            "  cpu backend scaling u{} N=2^{log_n} batch {batch} {op}: 1 thread {single:.1} µs, {threads} threads \
             {all:.1} µs, ×{speedup:.2}",
            W::BITS
        );
    }
    Ok(())
}

/// Batch scaling of the backend over all cores.
pub fn scaling_table(quick: bool) -> Result<Table, String> {
    let mut t = Table::new(
        "CPU backend: batches over all cores (rayon)",
        &[
            "word",
            "N",
            "batch",
            "op",
            "1 thread µs per call",
            "all threads µs per call",
            "threads",
            "speedup",
            "ceiling: independent threads",
            "cores busy (all threads)",
        ],
    );
    let before = load_average();
    let sizes: &[(u32, usize)] =
        if quick { &[(12, 16), (16, 4)] } else { &[(10, 64), (12, 16), (14, 4), (16, 4), (16, 8)] };
    for &(log_n, batch) in sizes {
        scaling_rows::<u64>(62, log_n, batch, quick, &mut t)?;
        scaling_rows::<u32>(30, log_n, batch, quick, &mut t)?;
    }
    t.note = format!(
        "One call on the whole batch; one thread: the same call inside a one-thread rayon pool; the two \
         timed in alternation (medians; speedup: the median of the per-pair ratios). Cores busy: the CPU \
         time of all of the process's threads (/proc/self/task/*/schedstat) over the wall time of the \
         all-threads run, repeated alone. Ceiling: the same polynomials as independent jobs on private copies, split over as many OS threads \
         started together (no rayon, nothing shared), against one thread: what these cores give when only the \
         work is parallel (below the thread count when the cores share execution units, e.g. SMT siblings, \
         or the hypervisor's time). A speedup needs idle cores: the machine's load average (/proc/loadavg, 1/5/15 min) was {before} before this \
         table and {} after it; with a load near the core count the second thread only takes time from \
         other work.",
        load_average()
    );
    Ok(t)
}

/// The 1, 5 and 15 minute load averages, as /proc/loadavg gives them.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" / "))
        .unwrap_or_else(|_| "unknown".into())
}

/// CPU time of every thread of this process so far, in ns (Linux:
/// /proc/self/task/*/schedstat); `None` elsewhere.
fn process_cpu_ns() -> Option<u64> {
    let mut sum = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let stat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
        sum += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(sum)
}
