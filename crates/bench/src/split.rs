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

use crate::report::Table;
use polymul::expert::{GpuTiming, median};
use polymul::prelude::*;
use polymul::{Coeff, Gpu, NttParams, NttPlan};

/// Wall-clock seconds of `reps` calls of `f` (after one warm-up), median.
fn wall(reps: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
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

/// The section's table.
pub fn table(gpu: &Gpu, quick: bool) -> Result<Table, String> {
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
