//! Host-slice products by size: the library's `polymul_into` (whole up to
//! 1 MiB per operand, pipelined pieces above) against the sequence a whole
//! call used to run (two pageable uploads, the device product, a download
//! into a new `Vec`, a copy into the output). u64, N = 2^16, one GPU.
//!
//! `cargo run --release -p polymul-bench --example host_calls` (on a GPU
//! machine: the binary from `target/release/examples/`). Prints the median
//! of 7 calls after one warm-up, in ms.

use polymul::prelude::*;
use polymul::{Gpu, NttParams, NttPlan};
use std::time::Instant;

/// Median wall-clock time of `f` in ms, 7 calls after one warm-up.
fn median_ms(mut f: impl FnMut() -> Result<(), polymul::Error>) -> Result<f64, polymul::Error> {
    f()?;
    let mut v = Vec::with_capacity(7);
    for _ in 0..7 {
        let t = Instant::now();
        f()?;
        v.push(t.elapsed().as_secs_f64() * 1e3);
    }
    v.sort_by(f64::total_cmp);
    Ok(v[3])
}

fn main() -> Result<(), polymul::Error> {
    let gpu = Gpu::new()?;
    let n = 1usize << 16;
    let p = NttParams::<u64>::with_prime_bits(n, 62)?;
    let plan = NttPlan::new(&gpu, p.clone())?;
    let q = p.q();
    println!("device: {}; u64 N=2^16; median of 7 calls (ms)", gpu.info().name);
    println!("| MiB per operand | polymul_into | upload, upload, product, download, copy | ratio |");
    println!("|---|---|---|---|");
    for batch in [1usize, 2, 3, 4, 8, 16, 32, 64, 256, 1024] {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % q
        };
        let a: Vec<u64> = (0..batch * n).map(|_| rnd()).collect();
        let b: Vec<u64> = (0..batch * n).map(|_| rnd()).collect();
        let mut out = vec![0u64; a.len()];
        let lib = median_ms(|| plan.polymul_into(&a[..], &b[..], &mut out[..]))?;
        let check = out.clone();
        let seq = median_ms(|| {
            let mut da = gpu.upload(&a[..])?;
            let mut db = gpu.upload(&b[..])?;
            plan.polymul_in_place(&mut da, &mut db)?;
            out.copy_from_slice(&gpu.download(&da)?);
            Ok(())
        })?;
        assert_eq!(out, check, "the two paths disagree at batch {batch}");
        let mib = (batch * n * 8) as f64 / f64::from(1 << 20);
        println!("| {mib:.2} | {lib:.3} | {seq:.3} | {:.2}× |", seq / lib);
    }
    Ok(())
}
