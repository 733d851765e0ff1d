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
