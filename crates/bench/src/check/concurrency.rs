//! The `concurrency` suite: host threads sharing one `Gpu`, and
//! determinism.

use super::{Tally, eq, s, variants};
use polymul::expert::{SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Gpu, NttParams, NttPlan};

/// Several host threads share one `Gpu`, each with its own stream and
/// plan (NTT, RNS, DGT), running products concurrently: every result equals
/// the CPU's. Determinism: the same inputs give the same words run after
/// run, and a batch gives the words of its polynomials one by one.
pub(super) fn concurrency_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    use polymul::dgt::{DgtConfig, DgtParams, DgtPlan};
    let n = 1usize << 13;
    let res: Vec<Result<(), String>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..6u64)
            .map(|id| {
                sc.spawn(move || -> Result<(), String> {
                    let stream = gpu.create_stream().map_err(s)?;
                    let mut rng = SplitMix64::new(seed ^ (id << 32));
                    for round in 0..4 {
                        match id % 3 {
                            0 => {
                                let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
                                let o = variants()[(id as usize + round) % variants().len()].1;
                                let mut plan = NttPlan::with_options(gpu, p.clone(), o).map_err(s)?;
                                plan.set_stream(Some(&stream));
                                let (a, b) = (rng.coeffs(3 * n, p.q()), rng.coeffs(3 * n, p.q()));
                                eq(
                                    "thread ntt",
                                    &plan.polymul(&a, &b).map_err(s)?,
                                    &emulation::polymul(&p, &a, &b).map_err(s)?,
                                )?;
                            }
                            1 => {
                                let basis = polymul::rns::RnsBasis::<u32>::new(n, 30, 3).map_err(s)?;
                                let mut plan = polymul::rns::RnsPlan::with_options(
                                    gpu,
                                    &basis,
                                    crate::env_options::plan_options(),
                                )
                                .map_err(s)?;
                                plan.set_stream(Some(&stream));
                                let a: Vec<u32> =
                                    basis.towers().iter().flat_map(|p| rng.coeffs(2 * n, p.q())).collect();
                                let b: Vec<u32> =
                                    basis.towers().iter().flat_map(|p| rng.coeffs(2 * n, p.q())).collect();
                                eq(
                                    "thread rns",
                                    &plan.polymul(&a, &b).map_err(s)?,
                                    &emulation::rns_polymul(&basis, &a, &b).map_err(s)?,
                                )?;
                            }
                            _ => {
                                let p = DgtParams::<u32>::with_prime_bits(n, 30).map_err(s)?;
                                let cfg = DgtConfig::default_for(12);
                                let mut plan = DgtPlan::new(gpu, p.clone(), cfg).map_err(s)?;
                                plan.set_stream(Some(&stream));
                                let (a, b) = (rng.coeffs(2 * n, p.p()), rng.coeffs(2 * n, p.p()));
                                eq(
                                    "thread dgt",
                                    &plan.polymul(&a, &b).map_err(s)?,
                                    &emulation::dgt::polymul(&p, &cfg, &a, &b).map_err(s)?,
                                )?;
                            }
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into()))).collect()
    });
    for (i, r) in res.into_iter().enumerate() {
        t.record(&format!("concurrency: host thread {i} with its own stream and plan == CPU"), r);
    }
    plans_made_during_launches(gpu, seed ^ 0x7ace, t);
    for (tag, o) in variants() {
        let name =
            format!("determinism {tag} u32 N=2^12: repeated runs and batch splits give the same words");
        let res = (|| {
            let p = NttParams::<u32>::with_prime_bits(1 << 12, 30).map_err(s)?;
            let plan = NttPlan::with_options(gpu, p.clone(), o).map_err(s)?;
            let mut rng = SplitMix64::new(seed ^ 99);
            let (a, b) = (rng.coeffs(4 << 12, p.q()), rng.coeffs(4 << 12, p.q()));
            let first = plan.polymul(&a, &b).map_err(s)?;
            eq("second run", &plan.polymul(&a, &b).map_err(s)?, &first)?;
            for i in 0..4 {
                let r = (i << 12)..((i + 1) << 12);
                eq("one by one", &plan.polymul(&a[r.clone()], &b[r.clone()]).map_err(s)?, &first[r])?;
            }
            Ok(())
        })();
        t.record(&name, res);
    }
}

/// Plan creation racing launches of the same kernels: one thread keeps
/// making tiled plans of 64 and 128 KiB tiles (and DGT plans of N = 2^11
/// and 2^16), each of which sets the shared-memory limit of kernels the
/// other thread's plan uses, while the other thread runs forwards and
/// products on a plan of 128 KiB tiles made before, checking every result
/// against the CPU. The limit only rises (`raise_max_dynamic_smem`, under
/// one process-wide lock, crates/host/src/gpu/launch.rs), so no launch may
/// fail or differ; a limit set to each plan's own size would make the
/// 128 KiB launches fail ("invalid argument") whenever a 64 KiB plan came
/// last.
fn plans_made_during_launches(gpu: &Gpu, seed: u64, t: &mut Tally) {
    use super::plans::{Expected, tiled_plan};
    use crate::host_ext::forward_host;
    use polymul::dgt::{DgtConfig, DgtParams, DgtPlan};
    use std::sync::atomic::{AtomicBool, Ordering};
    let name = "concurrency: launches on a 128 KiB-tile plan while another thread makes plans of the same \
                kernels (u64 N=2^17, DGT N=2^11 and 2^16) == CPU";
    // Blocks of 128 KiB need sm_80 or later (the suite runs the rest there).
    if gpu.info().max_shared_per_block < 128 * 1024 {
        return;
    }
    let n = 1usize << 17;
    let r = (|| -> Result<(), String> {
        let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
        let big = tiled_plan(gpu, &p, 128)?;
        let Expected { a, b, forward: want, product: want_mul } = Expected::new(&p, seed)?;
        let making = AtomicBool::new(true);
        std::thread::scope(|sc| {
            let maker = sc.spawn(|| -> Result<(), String> {
                let r = (|| {
                    for round in 0..6 {
                        for kib in [64, 128, 64] {
                            tiled_plan(gpu, &p, kib)?;
                        }
                        let log_n = if round % 2 == 0 { 11u32 } else { 16 };
                        let dp = DgtParams::<u64>::with_prime_bits(1 << log_n, 62).map_err(s)?;
                        DgtPlan::new(gpu, dp, DgtConfig::default_for(log_n - 1)).map_err(s)?;
                    }
                    Ok(())
                })();
                making.store(false, Ordering::Release);
                r
            });
            // At least four rounds, and as many as fit while plans are made.
            let mut launches = 0usize;
            let mut r = Ok(());
            while r.is_ok() && (launches < 4 || making.load(Ordering::Acquire)) {
                r = (|| {
                    eq("forward", &forward_host(&big, &a).map_err(s)?, &want)?;
                    eq("polymul", &big.polymul(&a, &b).map_err(s)?, &want_mul)
                })();
                launches += 1;
            }
            maker.join().unwrap_or_else(|_| Err("the plan-making thread panicked".into()))?;
            r
        })
    })();
    t.record(name, r);
}
