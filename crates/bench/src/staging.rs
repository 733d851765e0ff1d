//! The `staging` section (issue 53): a `Gpu`'s pinned staging memory
//! shared by two host threads. One thread runs long host-slice products
//! (`u64` N = 2^16 × 1024, hundreds of MiB through the pinned pipeline);
//! the other runs short ones (× 4, 2 MiB an operand, also pipelined) back
//! to back meanwhile, and each short call's wall-clock latency is
//! recorded. With one staging buffer (`GpuOptions::staging_buffers = 1`,
//! the single buffer under one lock that every large copy took turns on
//! before issue 33) a short call waits for the long call's whole pipeline;
//! with the pool (the default, 4 buffers) it takes a buffer of its own.
//! Both plans run on streams of their own, so that only the staging memory
//! is shared. Same binary, same process, same GPU.

use crate::report::Table;
use polymul::expert::median;
use polymul::prelude::*;
use polymul::{Gpu, GpuOptions, NttParams, NttPlan};

/// Latencies (ms) of the short calls: solo, then while the long calls run.
struct Run {
    solo: Vec<f64>,
    contended: Vec<f64>,
    long_ms: Vec<f64>,
}

fn pct(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(((v.len().max(1) - 1) as f64 * p).round() as usize).copied().unwrap_or(f64::NAN)
}

fn run(buffers: usize, quick: bool) -> Result<Run, String> {
    let s = |e: polymul::Error| e.to_string();
    let options = GpuOptions { staging_buffers: buffers, ..crate::env_options::gpu_options_from_env() };
    let gpu = Gpu::with_options(0, options).map_err(s)?;
    let n = 1usize << 16;
    let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
    let mut long = NttPlan::with_options(&gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
    let mut short = NttPlan::with_options(&gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
    let (ls, ss) = (gpu.create_stream().map_err(s)?, gpu.create_stream().map_err(s)?);
    long.set_stream(Some(&ls));
    short.set_stream(Some(&ss));
    let (big, small) = (if quick { 256 } else { 1024 }, 4usize);
    let a = crate::check::split_coeffs(big * n, p.q(), 31);
    let b = crate::check::split_coeffs(big * n, p.q(), 32);
    let (sa, sb) = (&a[..small * n], &b[..small * n]);
    let want = short.polymul(sa, sb).map_err(s)?;
    let mut out = vec![0u64; small * n];
    let short_call = |out: &mut Vec<u64>| -> Result<f64, String> {
        let t0 = std::time::Instant::now();
        short.polymul_into(sa, sb, &mut out[..]).map_err(s)?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if *out != want {
            return Err("a short call's product differs from its first run".into());
        }
        Ok(ms)
    };
    let solo = (0..20).map(|_| short_call(&mut out)).collect::<Result<Vec<_>, _>>()?;
    let mut long_out = vec![0u64; big * n];
    long.polymul_into(&a[..], &b[..], &mut long_out[..]).map_err(s)?; // warm-up: staging grown
    let done = std::sync::atomic::AtomicBool::new(false);
    let (contended, long_ms) = std::thread::scope(|sc| {
        let worker = sc.spawn(|| {
            let mut t = Vec::new();
            for _ in 0..3 {
                let t0 = std::time::Instant::now();
                let r = long.polymul_into(&a[..], &b[..], &mut long_out[..]).map_err(s);
                t.push(t0.elapsed().as_secs_f64() * 1e3);
                if r.is_err() {
                    done.store(true, std::sync::atomic::Ordering::Release);
                    return r.map(|()| t);
                }
            }
            done.store(true, std::sync::atomic::Ordering::Release);
            Ok(t)
        });
        let mut lat = Vec::new();
        while !done.load(std::sync::atomic::Ordering::Acquire) {
            lat.push(short_call(&mut out)?);
        }
        let long_ms = worker.join().map_err(|_| "the long-call thread panicked".to_string())??;
        Ok::<_, String>((lat, long_ms))
    })?;
    Ok(Run { solo, contended, long_ms })
}

/// The section's table: one buffer against the pool.
pub fn tables(quick: bool) -> Result<Vec<Table>, String> {
    let mut t = Table::new(
        "Issue 53: short host-slice calls beside a long one, one staging buffer vs the pool",
        &[
            "staging buffers",
            "short call alone, ms (median of 20)",
            "short calls during the long ones",
            "median ms",
            "p90 ms",
            "max ms",
            "long call ms (median of 3)",
        ],
    );
    t.note = "Thread 1: u64 N=2^16 × 1024 products host → host (polymul_into, 3 in a row; × 256 with \
              --quick). Thread 2, meanwhile: u64 N=2^16 × 4 products host → host back to back (2 MiB an \
              operand: pipelined through the staging memory), each checked against its first result; \
              wall-clock latency per call. Both plans on streams of their own on one Gpu; the row's \
              Gpu is created with GpuOptions::staging_buffers as given (1: the single buffer of before \
              issue 33)."
        .into();
    for buffers in [1usize, 4] {
        let r = run(buffers, quick)?;
        let mut long = r.long_ms.clone();
        t.rows.push(vec![
            buffers.to_string(),
            format!("{:.2}", median(&mut r.solo.clone())),
            r.contended.len().to_string(),
            format!("{:.2}", median(&mut r.contended.clone())),
            format!("{:.2}", pct(&r.contended, 0.9)),
            format!("{:.2}", pct(&r.contended, 1.0)),
            format!("{:.1}", median(&mut long)),
        ]);
        eprintln!("  staging: {buffers} buffer(s): {:?}", t.rows.last());
    }
    Ok(vec![t])
}
