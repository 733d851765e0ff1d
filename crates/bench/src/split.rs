//! The `split` section: host-to-host products of a batch larger than the
//! device's free memory, which polymul runs in pieces whose copies and
//! kernels overlap (gpu/split.rs), against the bus's own rate measured in
//! the same run (pinned host-to-device and device-to-host copies of the
//! same bytes).
//!
//! Free memory is made short with a "hog" buffer holding all but 2 GiB of
//! the device (1 GiB with `--quick`), so the batch (operands and result
//! about 1.2 × what is left) is split by memory, not by the launch limit;
//! the same batch without the hog runs unsplit (its operands fit), for
//! comparison. The words moved per call are the two operands up and the
//! result down.
//!
//! First, issue 34's row: a `u64` N = 2^16 × 1024 product host → host
//! against the pinned copy time of its bytes (goal: within 1.3×), with a
//! breakdown (each copy engine alone, the host's staging copies, the
//! kernels alone) that says which resource bounds it.

use crate::report::Table;
use polymul::expert::{GpuTiming, median};
use polymul::prelude::*;
use polymul::{Coeff, Gpu, NttParams, NttPlan};

/// Wall-clock seconds of `reps` calls of `f` (after one warm-up), median.
pub(crate) fn wall(reps: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    f()?;
    let mut v = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        let t0 = std::time::Instant::now();
        f()?;
        v.push(t0.elapsed().as_secs_f64());
    }
    Ok(median(&mut v))
}

fn rows<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, quick: bool, t: &mut Table) -> Result<(), String> {
    let s = |e: polymul::Error| e.to_string();
    let n = 1usize << log_n;
    let leave: usize = if quick { 1 << 30 } else { 2 << 30 };
    let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
    let plan = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
    let reps = if quick { 2 } else { 5 };
    let (free, _) = gpu.device_memory().map_err(s)?;
    // The batch: operands and result 1.2 × what the hog leaves.
    let per = n * std::mem::size_of::<W>();
    let batch = ((leave as f64 * 1.2 / 3.0) / per as f64) as usize;
    let bytes = batch * per;
    let a = crate::check::split_coeffs(batch * n, p.q(), 1);
    let b = crate::check::split_coeffs(batch * n, p.q(), 2);
    let mut out = vec![W::default(); a.len()];
    let moved = 3.0 * bytes as f64;
    // The bus: the two operands up, the result down, through pinned memory.
    let (up, down) = gpu.host_copy_gbs(bytes, reps).map_err(s)?;
    let copy_s = 2.0 * bytes as f64 / (up * 1e9) + bytes as f64 / (down * 1e9);
    let copy_gbs = moved / copy_s / 1e9;
    let label = format!("u{} N=2^{log_n}", W::BITS);
    let mut row = |what: &str, secs: f64| {
        let gbs = moved / secs / 1e9;
        t.rows.push(vec![
            label.clone(),
            batch.to_string(),
            format!("{:.2}", bytes as f64 / (1u64 << 30) as f64),
            what.to_string(),
            format!("{:.1}", secs * 1e3),
            format!("{gbs:.1}"),
            format!("{:.0}%", 100.0 * gbs / copy_gbs),
        ]);
        eprintln!(
            "  split {label} batch {batch} {what}: {gbs:.1} GB/s ({:.0}% of the copies)",
            100.0 * gbs / copy_gbs
        );
    };
    row(&format!("pinned copies (H2D {up:.1} GB/s, D2H {down:.1} GB/s)"), copy_s);
    let whole = wall(reps, || plan.polymul_into(&a[..], &b[..], &mut out[..]).map_err(s))?;
    row("polymul_into, device memory to spare (pieces of at most 64 MiB)", whole);
    let hog = gpu.zeros::<u64>(free.saturating_sub(leave) / 8).map_err(s)?;
    let split = wall(reps, || plan.polymul_into(&a[..], &b[..], &mut out[..]).map_err(s))?;
    drop(hog);
    row("polymul_into, free memory short (hog): pieces as memory allows", split);
    Ok(())
}

/// Issue 34's row: a `u64` N = 2^16 × 1024 product host → host (512 MiB
/// per operand: two up, one down), without the hog, against the pinned
/// copies of its bytes one after the other, and where its time goes: the
/// bus each way alone, the host's staging copies at the library's rate,
/// the kernels on device-resident operands. A row per measurement.
fn issue_row(gpu: &Gpu, quick: bool) -> Result<Table, String> {
    let s = |e: polymul::Error| e.to_string();
    let (log_n, batch) = (16u32, 1024usize);
    let n = 1usize << log_n;
    let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
    let plan = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
    let reps = if quick { 3 } else { 9 };
    let bytes = batch * n * 8;
    let a = crate::check::split_coeffs(batch * n, p.q(), 11);
    let b = crate::check::split_coeffs(batch * n, p.q(), 12);
    let mut out = vec![0u64; a.len()];
    let (up, down) = gpu.host_copy_gbs(bytes, reps).map_err(s)?;
    let (to_pinned, from_pinned) = gpu.host_staging_gbs(bytes, reps).map_err(s)?;
    let secs = |b: f64, gbs: f64| b / (gbs * 1e9);
    let (b1, b2, b3) = (bytes as f64, 2.0 * bytes as f64, 3.0 * bytes as f64);
    let copy_s = secs(b2, up) + secs(b1, down);
    let into = wall(reps, || plan.polymul_into(&a[..], &b[..], &mut out[..]).map_err(s))?;
    let alloc = wall(reps, || plan.polymul(&a[..], &b[..]).map(drop).map_err(s))?;
    // The kernels alone: the batch's product on device-resident operands
    // (the second clobbered, so later runs multiply other words: the same
    // kernels, the same time).
    let kernels = {
        let (mut da, mut db) = (plan.upload(&a).map_err(s)?, plan.upload(&b).map_err(s)?);
        gpu.time(1, reps, || plan.polymul_in_place(&mut da, &mut db)).map_err(s)?.median_us * 1e-6
    };
    let host_s = secs(b2, to_pinned) + secs(b1, from_pinned);
    let mut t = Table::new(
        "Issue 34: u64 N=2^16 × 1024 polymul host → host vs the PCIe copies of its bytes",
        &["what", "MiB moved", "ms (median)", "GB/s", "× the pinned copy time"],
    );
    t.note = format!(
        "Wall-clock median of {reps} after one warm-up (GPU-event medians for the copy-engine and kernel \
         rows). The reference is the pinned copies of the product's bytes one after the other: both \
         operands up ({} MiB), the result down ({} MiB); the goal is polymul_into within 1.3× of it. \
         The breakdown rows are each resource alone; a pipelined call cannot beat the slowest of \
         them (its host copies, its up-link) and should approach it. No hog: the batch fits the \
         device, and is split by size (pieces of 64 MiB).",
        (2 * bytes) >> 20,
        bytes >> 20
    );
    let mut row = |what: &str, moved: f64, secs: f64| {
        t.rows.push(vec![
            what.to_string(),
            format!("{:.0}", moved / (1u64 << 20) as f64),
            format!("{:.2}", secs * 1e3),
            format!("{:.1}", moved / secs / 1e9),
            format!("{:.2}×", secs / copy_s),
        ]);
        eprintln!("  split issue row: {what}: {:.2} ms, {:.2}× the pinned copies", secs * 1e3, secs / copy_s);
    };
    row("pinned copies: 2 operands H2D then the result D2H (reference)", b3, copy_s);
    row("polymul_into (output reused)", b3, into);
    row("polymul (output allocated per call)", b3, alloc);
    row(&format!("breakdown: H2D of both operands alone, pinned ({up:.1} GB/s)"), b2, secs(b2, up));
    row(&format!("breakdown: D2H of the result alone, pinned ({down:.1} GB/s)"), b1, secs(b1, down));
    row(
        &format!(
            "breakdown: host copies alone, every core: operands pageable → pinned ({to_pinned:.1} GB/s), \
             result pinned → pageable ({from_pinned:.1} GB/s)"
        ),
        b3,
        host_s,
    );
    row("breakdown: kernels alone, device-resident polymul_in_place of the batch", b3, kernels);
    let floor = secs(b2, up).max(secs(b1, down)).max(host_s).max(kernels);
    row("bound: the slowest resource above (perfect overlap)", b3, floor);
    Ok(t)
}

/// The section's tables: issue 34's row and its breakdown, then the
/// products split by memory (the hog) and by size.
pub fn tables(gpu: &Gpu, quick: bool) -> Result<Vec<Table>, String> {
    Ok(vec![issue_row(gpu, quick)?, table(gpu, quick)?])
}

/// The products split by memory (the hog) and by size.
fn table(gpu: &Gpu, quick: bool) -> Result<Table, String> {
    let mut t = Table::new(
        "Host-to-host products, split into pieces (copies overlapping kernels), vs the bus",
        &["word, N", "batch", "GiB per operand", "call", "ms (median)", "GB/s (3 operands)", "% of copies"],
    );
    t.note = "Wall-clock median after one warm-up. GB/s counts both operands up and the result down; % of \
              copies compares with pinned H2D + D2H copies of the same bytes, one after the other, measured \
              in the same run (the split call can pass 100%: its uploads and downloads overlap on the two \
              copy engines). Host calls above 1 MiB per operand run as a pipeline of pieces (at most 64 \
              MiB, at least two) through pinned memory; the 'free memory short' rows run with a buffer \
              holding all but 2 GiB of the device (1 GiB with --quick)."
        .into();
    rows::<u64>(gpu, 62, 16, quick, &mut t)?;
    rows::<u32>(gpu, 30, 20, quick, &mut t)?;
    Ok(t)
}
