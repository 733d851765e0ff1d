//! Issue-3 benchmarks: the modular-multiplication microbenchmark for every
//! reduction variant and width (Fig. 4 of the SEED 2022 paper), and the
//! radix-2 NTT with each variant swapped in.

use crate::report::Table;
use polymul::expert::GpuTiming;
use polymul::expert::{ModMulBench, NttKernel, PlanOptions, Reduction, SplitMix64};
use polymul::params::ntt_primes;
use polymul::prelude::*;
use polymul::{Coeff, Gpu, NttParams, NttPlan};

/// The widths of Fig. 4 (u32) and their 64-bit counterparts.
pub const WIDTHS: [(u32, u32); 6] = [(32, 28), (32, 29), (32, 30), (64, 60), (64, 61), (64, 62)];

/// One microbenchmark measurement.
#[derive(Debug, Clone)]
pub struct ModMulRow {
    /// Word bits.
    pub word: u32,
    /// Modulus bits.
    pub bits: u32,
    /// Variant.
    pub reduction: Reduction,
    /// Mask-and-subtract correction instead of `if`.
    pub select: bool,
    /// Nanoseconds per modular multiplication (device-wide throughput).
    pub ns: f64,
}

fn one_modmul<W: Coeff>(
    gpu: &Gpu,
    r: Reduction,
    select: bool,
    bits: u32,
    quick: bool,
) -> polymul::Result<(f64, f64, Result<(), String>)> {
    let q = W::from_u64(ntt_primes(bits, 2, 1)?[0]);
    let threads = (gpu.info().multiprocessors as u32) * 2048 * 2;
    let iters = match (r, W::BITS) {
        (Reduction::Builtin, 64) => 16,
        (Reduction::Builtin, _) => 64,
        _ => 256,
    };
    let mut mb = ModMulBench::new(gpu, r, select, q, threads, 0x5eed ^ bits as u64)?;
    // Correctness first, on this run's random inputs: sampled threads vs the CPU.
    mb.run(iters)?;
    let got = mb.values()?;
    let check = (0..threads as usize).step_by(threads as usize / 512).try_for_each(|t| {
        match mb.cpu_thread(t, iters) {
            Ok(want) if got[4 * t..4 * t + 4] == want => Ok(()),
            Ok(_) => Err(format!("{r} u{} {bits}-bit: thread {t} differs from the CPU", W::BITS)),
            Err(e) => Err(format!("{r} u{} {bits}-bit: thread {t}: {e}", W::BITS)),
        }
    });
    mb.reset()?;
    let reps = if quick { 5 } else { 20 };
    let t = gpu.time(2, reps, || mb.run(iters))?;
    let per_s = mb.modmuls(iters) as f64 / (t.median_us * 1e-6);
    Ok((1e9 / per_s, per_s / 1e9, check))
}

/// Runs the microbenchmark for every width, variant and correction form.
pub fn modmul_table(gpu: &Gpu, quick: bool) -> polymul::Result<(Table, Vec<ModMulRow>, Vec<String>)> {
    let mut t = Table::new(
        "Modular multiplication by variant (Fig. 4): device-wide throughput",
        &["word", "q bits", "reduction", "correction", "ns per modmul", "Gmodmul/s", "vs SEED Alg. 4"],
    );
    t.note = "Each thread runs 4 independent chains x ← x·w mod q (random x, w < q; w prepared per variant: \
              Montgomery form, Shoup's w'), 2 × 2048 threads per SM. `ns per modmul` is the kernel time over \
              the number of modular multiplications in flight across the whole GPU (a throughput, not a \
              latency). `vs SEED Alg. 4` > 1 means faster than Algorithm 4 with the same correction form. \
              Every run checks 512 sampled threads against the CPU."
        .into();
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (word, bits) in WIDTHS {
        for select in [false, true] {
            let mut ns_alg4 = f64::NAN;
            let mut group = Vec::new();
            for r in Reduction::ALL {
                if bits > r.max_bits(word) {
                    continue;
                }
                let (ns, g, check) = match word {
                    32 => one_modmul::<u32>(gpu, r, select, bits, quick)?,
                    _ => one_modmul::<u64>(gpu, r, select, bits, quick)?,
                };
                if let Err(e) = check {
                    failures.push(e);
                }
                if r == Reduction::Barrett4 {
                    ns_alg4 = ns;
                }
                eprintln!(
                    "  modmul u{word} {bits}-bit {:10} {:6}: {ns:.4} ns",
                    r.name(),
                    if select { "select" } else { "if" }
                );
                group.push((r, ns, g));
                rows.push(ModMulRow { word, bits, reduction: r, select, ns });
            }
            for (r, ns, g) in group {
                t.rows.push(vec![
                    format!("u{word}"),
                    bits.to_string(),
                    r.label().into(),
                    if select { "select" } else { "if" }.into(),
                    format!("{ns:.6}"),
                    format!("{g:.1}"),
                    format!("{:.2}", ns_alg4 / ns),
                ]);
            }
        }
    }
    Ok((t, rows, failures))
}

fn ntt_rows<W: Coeff>(
    kernel: NttKernel,
    gpu: &Gpu,
    bits: u32,
    log_n: u32,
    copy_gbs: f64,
    quick: bool,
    t: &mut Table,
) -> polymul::Result<()> {
    let n = 1usize << log_n;
    let batch = (1usize << 25) / n;
    let mut base = f64::NAN;
    for r in Reduction::ALL {
        let b = bits.min(r.max_bits(W::BITS));
        let p = NttParams::<W>::with_prime_bits(n, b)?;
        let plan = NttPlan::with_options(
            gpu,
            p,
            PlanOptions { reduction: r, kernel, ..crate::env_options::plan_options() },
        )?;
        let q = plan.params().q();
        let mut rng = SplitMix64::new(r as u64);
        for batch in [1usize, batch] {
            let mut a = plan.upload(&rng.coeffs(n * batch, q))?;
            let (warm, reps) = crate::repetitions(batch, quick);
            let tm = gpu.time(warm, reps, || plan.forward(&mut a))?;
            let bytes = crate::bench::ntt_bytes(&plan, batch);
            let gbs = bytes / (tm.median_us * 1e3);
            let per = tm.median_us / batch as f64;
            if r == Reduction::Barrett4 && batch > 1 {
                base = per;
            }
            t.rows.push(vec![
                kernel.name().into(),
                format!("u{}", W::BITS),
                b.to_string(),
                format!("2^{log_n}"),
                r.label().into(),
                batch.to_string(),
                format!("{per:.3}"),
                format!("{gbs:.0}"),
                format!("{:.1}", 100.0 * gbs / copy_gbs),
            ]);
        }
    }
    // Ratio column for the batched rows, relative to Algorithm 4.
    for row in t.rows.iter_mut().rev().take(2 * Reduction::ALL.len()) {
        let per: f64 = row[6].parse().unwrap_or(f64::NAN);
        let is_batched = row[5] != "1";
        row.push(if is_batched { format!("{:.2}", base / per) } else { String::new() });
    }
    Ok(())
}

/// The radix-2 forward NTT with each reduction swapped in (Table III's
/// "+ Alg4" step, on this GPU).
pub fn ntt_table(gpu: &Gpu, copy_gbs: f64, quick: bool) -> polymul::Result<Table> {
    let mut t = Table::new(
        "Forward NTT with each reduction, both kernels (N = 2^16; Table III's \"+ Alg. 4\" step)",
        &[
            "word",
            "q bits",
            "N",
            "reduction",
            "batch",
            "µs per NTT",
            "GB/s",
            "% of copy",
            "speed vs Alg. 4 (batched)",
        ],
    );
    t.note =
        "Same kernel, only the butterflies' modular multiplication differs. Dhem–Quisquater runs at its \
              widest modulus (28 / 60 bits). GB/s counts the global-memory passes as in the kernel table."
            .into();
    for kernel in [NttKernel::Radix2Global, NttKernel::Tiled] {
        ntt_rows::<u32>(kernel, gpu, 30, 16, copy_gbs, quick, &mut t)?;
        ntt_rows::<u64>(kernel, gpu, 62, 16, copy_gbs, quick, &mut t)?;
    }
    Ok(t)
}
