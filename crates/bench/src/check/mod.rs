//! The GPU check suite: every GPU result is compared bit for bit with the CPU
//! (the kernels' code run on the host, and for small N the naive schoolbook
//! product) on fresh random inputs, plus edge operands and error paths.
//!
//! Prints one line per check and ends with `N passed, N failed`.

mod api;
mod convert;
mod errors;
mod graphs;
mod options;
mod plans;
mod props;

use crate::host_ext::{dgt_forward_host, forward_host, inverse_host};
use crate::{Options, WORD_CONFIGS, log_ns};
use polymul::expert::{ModMulBench, NttKernel, PlanOptions, Reduction, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, Error, Gpu, NttParams, NttPlan, cpu};

/// Every kernel configuration the suite checks everywhere: each kernel, each
/// largest radix of the tiled kernel (with and without direct global I/O),
/// the 2D kernels, and the automatic choice.
pub fn variants() -> Vec<(String, PlanOptions)> {
    let mut v = vec![(
        "radix2".to_string(),
        PlanOptions { kernel: NttKernel::Radix2Global, ..crate::env_options::plan_options() },
    )];
    for radix in [2usize, 4, 8, 16] {
        for shared_only in [true, false] {
            if shared_only && radix > 4 {
                continue;
            }
            let tag = format!("tiled-r{radix}{}", if shared_only { "-smem" } else { "" });
            let o = PlanOptions {
                kernel: NttKernel::Tiled,
                radix: Some(radix),
                shared_only,
                ..crate::env_options::plan_options()
            };
            v.push((tag, o));
        }
    }
    for kernel in [NttKernel::TwoD, NttKernel::TwoDPipelined, NttKernel::Auto] {
        v.push((kernel.name().to_string(), PlanOptions { kernel, ..crate::env_options::plan_options() }));
    }
    for radix in [8usize, 16] {
        let o =
            PlanOptions { kernel: NttKernel::Lazy, radix: Some(radix), ..crate::env_options::plan_options() };
        v.push((format!("lazy-r{radix}"), o));
    }
    v.push((
        "cluster".into(),
        PlanOptions { kernel: NttKernel::Cluster, ..crate::env_options::plan_options() },
    ));
    v
}

/// The lazy kernels (two-pass or cluster): whole transforms only, N ≥ 8.
pub(crate) fn lazy_kernel(k: NttKernel) -> bool {
    matches!(k, NttKernel::Lazy | NttKernel::Cluster)
}

/// Counts and prints results.
#[derive(Debug, Default)]
pub struct Tally {
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
}

impl Tally {
    /// Records one check.
    pub fn record(&mut self, name: &str, r: Result<(), String>) {
        match r {
            Ok(()) => {
                self.passed += 1;
                println!("PASS {name}");
            }
            Err(e) => {
                self.failed += 1;
                println!("FAIL {name}: {e}");
            }
        }
    }
}

pub(crate) fn eq<W: Coeff>(what: &str, got: &[W], want: &[W]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: length {} != {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => {
            let bad = got.iter().zip(want).filter(|(g, w)| g != w).count();
            Err(format!(
                "{what}: {bad} of {} words differ, first at {i}: {} != {}",
                got.len(),
                got[i],
                want[i]
            ))
        }
    }
}

pub(crate) fn s<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn word_suite<W: Coeff>(
    gpu: &Gpu,
    (name, opts): &(String, PlanOptions),
    bits: u32,
    log_n: u32,
    seed: u64,
    t: &mut Tally,
) {
    let n = 1usize << log_n;
    let tag = format!("{name} u{} q{}b N=2^{log_n}", W::BITS, bits);
    let params = match NttParams::<W>::with_prime_bits(n, bits) {
        Ok(p) => p,
        Err(e) => return t.record(&format!("{tag} params"), Err(s(e))),
    };
    let plan = match NttPlan::with_options(gpu, params, *opts) {
        Ok(p) => p,
        // The 2D split needs N >= 4, the lazy kernels N >= 8.
        Err(Error::InvalidN { .. }) if log_n < 2 || (lazy_kernel(opts.kernel) && log_n < 3) => return,
        Err(e) => return t.record(&format!("{tag} plan"), Err(s(e))),
    };
    let p = plan.params().clone();
    let q = p.q();
    let mut rng = SplitMix64::new(seed);

    for batch in [1usize, 3] {
        let a = rng.coeffs(n * batch, q);
        t.record(
            &format!("{tag} forward batch={batch} == CPU"),
            (|| {
                let got = forward_host(&plan, &a).map_err(s)?;
                let mut want = a.clone();
                emulation::forward(&p, &mut want).map_err(s)?;
                eq("forward", &got, &want)
            })(),
        );
        t.record(
            &format!("{tag} inverse batch={batch} == CPU"),
            (|| {
                let got = inverse_host(&plan, &a).map_err(s)?;
                let mut want = a.clone();
                emulation::inverse(&p, &mut want).map_err(s)?;
                eq("inverse", &got, &want)
            })(),
        );
        t.record(
            &format!("{tag} inverse(forward(a)) == a batch={batch}"),
            (|| {
                let mut d = plan.upload(&a).map_err(s)?;
                plan.forward(&mut d).map_err(s)?;
                plan.inverse(&mut d).map_err(s)?;
                eq("round trip", &gpu.download(&d).map_err(s)?, &a)
            })(),
        );
        let b = rng.coeffs(n * batch, q);
        t.record(
            &format!("{tag} polymul batch={batch} == CPU"),
            (|| {
                eq("polymul", &plan.polymul(&a, &b).map_err(s)?, &emulation::polymul(&p, &a, &b).map_err(s)?)
            })(),
        );
    }
    if log_n <= 12 {
        let (a, b) = (rng.coeffs(n, q), rng.coeffs(n, q));
        t.record(
            &format!("{tag} polymul == naive negacyclic convolution"),
            (|| {
                let got: Vec<u64> = plan.polymul(&a, &b).map_err(s)?.iter().map(|x| x.as_u64()).collect();
                let au: Vec<u64> = a.iter().map(|x| x.as_u64()).collect();
                let bu: Vec<u64> = b.iter().map(|x| x.as_u64()).collect();
                eq("naive", &got, &cpu::negacyclic_naive(&au, &bu, q.as_u64()).map_err(s)?)
            })(),
        );
    }
    let qm1 = vec![q - W::one(); n];
    t.record(
        &format!("{tag} polymul all q-1 == CPU"),
        (|| {
            eq("q-1", &plan.polymul(&qm1, &qm1).map_err(s)?, &emulation::polymul(&p, &qm1, &qm1).map_err(s)?)
        })(),
    );
}

/// The fused lazy transforms (both passes in one launch, `u32`, N = 2^15 …
/// 2^21): batches large enough that plans choose them (32 to 64 MiB of
/// words), both radices, forward and inverse against the CPU, the round
/// trip, random words with q − 1 at both ends of the batch.
fn fused_lazy_suite(gpu: &Gpu, seed: u64, opts: &Options, t: &mut Tally) {
    let sizes: &[(u32, usize)] =
        if opts.quick { &[(16, 128)] } else { &[(15, 256), (16, 128), (17, 64), (21, 8)] };
    for &(log_n, batch) in sizes {
        if opts.log_n.as_ref().is_some_and(|l| !l.contains(&log_n)) {
            continue;
        }
        for radix in [None, Some(8)] {
            let n = 1usize << log_n;
            let tag = format!("lazy fused u32 N=2^{log_n} batch {batch} radix {radix:?}");
            let r = (|| {
                let p = NttParams::<u32>::with_prime_bits(n, 30).map_err(s)?;
                let opts =
                    PlanOptions { kernel: NttKernel::Lazy, radix, ..crate::env_options::plan_options() };
                let plan = NttPlan::with_options(gpu, p.clone(), opts).map_err(s)?;
                let q = p.q();
                let mut a = SplitMix64::new(seed ^ u64::from(log_n)).coeffs(n * batch, q);
                a[0] = q - 1;
                a[n * batch - 1] = q - 1;
                let mut want = a.clone();
                emulation::forward(&p, &mut want).map_err(s)?;
                let mut d = plan.upload(&a).map_err(s)?;
                plan.forward(&mut d).map_err(s)?;
                eq("forward", &gpu.download(&d).map_err(s)?, &want)?;
                plan.inverse(&mut d).map_err(s)?;
                eq("round trip", &gpu.download(&d).map_err(s)?, &a)?;
                let mut want_inv = a.clone();
                emulation::inverse(&p, &mut want_inv).map_err(s)?;
                eq("inverse", &inverse_host(&plan, &a).map_err(s)?, &want_inv)
            })();
            t.record(&format!("{tag}: forward, inverse == CPU, round trip"), r);
        }
    }
}

/// Every reduction's NTT kernels on the GPU against the same kernels' code on
/// the CPU, at each word's widest modulus the reduction accepts.
fn reduction_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for r in Reduction::ALL {
        let bits = bits.min(r.max_bits(W::BITS));
        for log_n in [12u32, 16] {
            let n = 1usize << log_n;
            let name = format!("reduction {r} u{} q{bits}b N=2^{log_n}", W::BITS);
            let res = (|| {
                let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
                let mut rng = SplitMix64::new(seed ^ n as u64);
                let (a, b) = (rng.coeffs(2 * n, p.q()), rng.coeffs(2 * n, p.q()));
                let mut want = a.clone();
                emulation::forward_with(&p, r, &mut want).map_err(s)?;
                let want_mul = emulation::polymul_with(&p, r, &a, &b).map_err(s)?;
                for (tag, o) in variants() {
                    let opts = PlanOptions { reduction: r, ..o };
                    let plan = NttPlan::with_options(gpu, p.clone(), opts).map_err(s)?;
                    eq(&tag, &forward_host(&plan, &a).map_err(s)?, &want)?;
                    eq(&tag, &plan.polymul(&a, &b).map_err(s)?, &want_mul)?;
                }
                Ok(())
            })();
            t.record(&name, res);
        }
        for select in [false, true] {
            let name = format!(
                "microbenchmark {r} {} u{} q{bits}b == CPU",
                if select { "select" } else { "if" },
                W::BITS
            );
            let res = (|| {
                let q = polymul::params::ntt_primes(bits, 2, 1).map_err(s)?[0];
                let mut mb = ModMulBench::new(gpu, r, select, W::from_u64(q), 4096, seed).map_err(s)?;
                mb.run(50).map_err(s)?;
                let got = mb.values().map_err(s)?;
                for th in (0..4096).step_by(7) {
                    eq("chains", &got[4 * th..4 * th + 4], &mb.cpu_thread(th, 50).map_err(s)?)?;
                }
                Ok(())
            })();
            t.record(&name, res);
        }
    }
}

/// Tiles of every size from 8 KiB to 128 KiB (dynamic shared memory) give
/// the CPU's result.
fn tile_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for kib in [2usize, 8, 16, 64, 128] {
        for log_n in [12u32, 15, 17] {
            let n = 1usize << log_n;
            let name = format!("tile {kib} KiB u{} N=2^{log_n} forward/polymul == CPU", W::BITS);
            if kib * 1024 > gpu.info().max_shared_per_block {
                continue;
            }
            let res = (|| {
                let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
                let mut rng = SplitMix64::new(seed ^ (kib as u64) << 20 ^ n as u64);
                let (a, b) = (rng.coeffs(2 * n, p.q()), rng.coeffs(2 * n, p.q()));
                let mut want = a.clone();
                emulation::forward(&p, &mut want).map_err(s)?;
                let want_mul = emulation::polymul(&p, &a, &b).map_err(s)?;
                for kernel in [NttKernel::Tiled, NttKernel::TwoD] {
                    for radix in [4usize, 16] {
                        let opts = PlanOptions {
                            kernel,
                            radix: Some(radix),
                            tile_bytes: Some(kib * 1024),
                            ..crate::env_options::plan_options()
                        };
                        let plan = match NttPlan::with_options(gpu, p.clone(), opts) {
                            Ok(plan) => plan,
                            Err(Error::InvalidN { .. }) => continue,
                            Err(e) => return Err(s(e)),
                        };
                        let what = format!("{} r{radix}", kernel.name());
                        eq(&what, &forward_host(&plan, &a).map_err(s)?, &want)?;
                        eq(&what, &plan.polymul(&a, &b).map_err(s)?, &want_mul)?;
                    }
                }
                Ok(())
            })();
            t.record(&name, res);
        }
    }
}

/// Fused polymul (Algorithm 8) on the GPU with each kernel, against the
/// CPU's unfused product; half the twiddle bytes of the unfused plan; whole
/// transforms refused with a typed error.
fn fused_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for log_n in [2u32, 10, 11, 13, 16, 17] {
        let n = 1usize << log_n;
        for (tag, o) in variants() {
            let name = format!("fused polymul {tag} u{} N=2^{log_n} batch 2 == CPU, half twiddles", W::BITS);
            let res = (|| {
                let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
                let plan =
                    match NttPlan::with_options(gpu, p.clone(), PlanOptions { fused_polymul: true, ..o }) {
                        Ok(plan) => plan,
                        Err(Error::InvalidN { .. }) => return Ok(()),
                        // The lazy kernels run whole transforms only.
                        Err(Error::NoTransformFor { .. }) if lazy_kernel(o.kernel) => return Ok(()),
                        Err(e) => return Err(s(e)),
                    };
                // Half the twiddles of the same shared-memory kernels unfused
                // (an unfused automatic plan also holds the lazy kernels' tables).
                let shared = if o.kernel == NttKernel::Auto { NttKernel::Tiled } else { o.kernel };
                let unfused =
                    NttPlan::with_options(gpu, p.clone(), PlanOptions { kernel: shared, ..o }).map_err(s)?;
                if 2 * plan.twiddle_bytes() != unfused.twiddle_bytes() {
                    return Err(format!(
                        "twiddles: {} bytes fused, {} unfused",
                        plan.twiddle_bytes(),
                        unfused.twiddle_bytes()
                    ));
                }
                let mut rng = SplitMix64::new(seed ^ n as u64);
                let (a, b) = (rng.coeffs(2 * n, p.q()), rng.coeffs(2 * n, p.q()));
                eq("fused", &plan.polymul(&a, &b).map_err(s)?, &emulation::polymul(&p, &a, &b).map_err(s)?)?;
                match forward_host(&plan, &a) {
                    Err(Error::FusedPlanTransform) => Ok(()),
                    other => Err(format!("forward on a fused plan: {other:?}")),
                }
            })();
            t.record(&name, res);
        }
    }
}

/// The fused step alone ([`NttPlan::hadamard_step`] of a fused plan) gives
/// the same words as its unfused counterpart (last forward stage of both
/// operands, pointwise product, first inverse stage).
fn hadamard_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for log_n in [2u32, 11, 16] {
        for batch in [1usize, 3] {
            let n = 1usize << log_n;
            let name = format!("fused step == unfused step u{} N=2^{log_n} batch {batch}", W::BITS);
            let res = (|| {
                let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
                let fused_opts = PlanOptions { fused_polymul: true, ..crate::env_options::plan_options() };
                let fused = NttPlan::with_options(gpu, p.clone(), fused_opts).map_err(s)?;
                let unfused =
                    NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
                let mut rng = SplitMix64::new(seed ^ n as u64 ^ batch as u64);
                let (a, b) = (rng.coeffs(batch * n, p.q()), rng.coeffs(batch * n, p.q()));
                let run = |plan: &NttPlan<W>| -> Result<Vec<W>, String> {
                    let (mut da, mut db) = (plan.upload(&a).map_err(s)?, plan.upload(&b).map_err(s)?);
                    plan.hadamard_step(&mut da, &mut db).map_err(s)?;
                    gpu.download(&da).map_err(s)
                };
                eq("fused vs unfused step", &run(&fused)?, &run(&unfused)?)
            })();
            t.record(&name, res);
        }
    }
}

/// RNS polymul on the GPU (all towers in one launch per step) with every
/// kernel configuration, fused and unfused, against the CPU's per-tower
/// product; transforms against the CPU per tower; for a small N the
/// big-integer schoolbook product modulo Q after CRT reconstruction; a
/// residue not below its tower's prime is refused.
fn rns_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for (log_n, batch, towers) in [(10u32, 1usize, 3usize), (12, 2, 1), (12, 3, 4), (16, 2, 3)] {
        let n = 1usize << log_n;
        let Ok(basis) = polymul::rns::RnsBasis::<W>::new(n, bits, towers) else {
            t.record(&format!("rns u{} basis {towers}x{bits}", W::BITS), Err("no basis".into()));
            continue;
        };
        let mut rng = SplitMix64::new(seed ^ n as u64 ^ towers as u64);
        let mut res =
            |_| -> Vec<W> { basis.towers().iter().flat_map(|p| rng.coeffs(n * batch, p.q())).collect() };
        let (a, b) = (res(0), res(1));
        let want = match emulation::rns_polymul(&basis, &a, &b) {
            Ok(w) => w,
            Err(e) => return t.record("rns cpu", Err(s(e))),
        };
        let len = n * batch;
        let mut want_fwd = a.clone();
        for (i, p) in basis.towers().iter().enumerate() {
            if let Err(e) = emulation::forward(p, &mut want_fwd[i * len..(i + 1) * len]) {
                return t.record("rns cpu forward", Err(s(e)));
            }
        }
        for (tag, o) in variants() {
            // The lazy kernels run whole transforms only (no fused polymul).
            let fused = if lazy_kernel(o.kernel) { &[false][..] } else { &[false, true][..] };
            for &fused_polymul in fused {
                let name = format!(
                    "rns {tag}{} u{} {towers}x{bits}-bit N=2^{log_n} batch {batch} == CPU",
                    if fused_polymul { " fused" } else { "" },
                    W::BITS
                );
                let res = (|| {
                    let opts = PlanOptions { fused_polymul, ..o };
                    let plan = polymul::rns::RnsPlan::with_options(gpu, &basis, opts).map_err(s)?;
                    let got = plan.polymul(&a, &b).map_err(s)?;
                    eq("towers", &got, &want)?;
                    if !fused_polymul {
                        let mut d = plan.upload(&a).map_err(s)?;
                        plan.forward(&mut d).map_err(s)?;
                        eq("forward", &gpu.download(&d).map_err(s)?, &want_fwd)?;
                        plan.inverse(&mut d).map_err(s)?;
                        eq("round trip", &gpu.download(&d).map_err(s)?, &a)?;
                    }
                    if log_n == 10 && tag == "auto" {
                        let (ba, bb) =
                            (basis.from_residues(&a).map_err(s)?, basis.from_residues(&b).map_err(s)?);
                        let big = cpu::negacyclic_naive_big(&ba, &bb, basis.modulus()).map_err(s)?;
                        if basis.from_residues(&got).map_err(s)? != big {
                            return Err(
                                "CRT of the GPU product differs from the big-integer product mod Q".into()
                            );
                        }
                    }
                    Ok(())
                })();
                t.record(&name, res);
            }
        }
        if towers > 1 {
            let name = format!("rns u{} residue >= its tower's prime is refused", W::BITS);
            let res = (|| {
                let plan =
                    polymul::rns::RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options())
                        .map_err(s)?;
                let mut bad = a.clone();
                let at = len + 7; // tower 1
                bad[at] = basis.towers()[1].q();
                match plan.upload(&bad) {
                    Err(Error::CoefficientOutOfRange { index, .. }) if index == at => Ok(()),
                    other => Err(format!("{other:?}")),
                }
            })();
            t.record(&name, res);
        }
    }
}

/// The DGT on the GPU against its CPU emulation: every configuration of
/// the search space (clusters up to 32) at every N with one tower, the
/// default and two other splits with 2 and 4 towers; polymul, forward,
/// round trip, on the fused pipeline and (the few splits) Coala's; and the
/// naive product at N = 2^10.
fn dgt_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, opts: &Options, t: &mut Tally) {
    use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
    use polymul::expert::DgtPipeline;
    let quick = opts.quick;
    for log_n in (2u32..=17).filter(|l| opts.log_n.as_ref().is_none_or(|only| only.contains(l))) {
        let (n, log_m) = (1usize << log_n, log_n - 1);
        let mut few = vec![DgtConfig::default_for(log_m)];
        if log_m > 6 {
            few.push(DgtConfig { stages1: 6, log_cluster1: 0, log_cluster2: 0 });
            few.push(DgtConfig { stages1: log_m.min(10), log_cluster1: 0, log_cluster2: 2.min(log_m - 6) });
        }
        for towers in [1usize, 2, 4] {
            // Every configuration the search can choose (one tower), a few
            // with more towers. All give the same words, so the CPU
            // reference is computed once, with the default configuration.
            let cfgs = if towers == 1 && !quick { DgtConfig::all(log_m, 5) } else { few.clone() };
            let name =
                format!("dgt u{} {towers}x{bits}-bit N=2^{log_n} ({} configs) == CPU", W::BITS, cfgs.len());
            let res = (|| {
                let ps = dgt::dgt_primes(bits, n, towers).map_err(s)?;
                let params: Vec<DgtParams<W>> =
                    ps.iter().map(|&p| DgtParams::new(n, p)).collect::<polymul::Result<_>>().map_err(s)?;
                let mut rng = SplitMix64::new(seed ^ n as u64 ^ towers as u64);
                let batch = 2;
                let mut fresh =
                    || -> Vec<W> { params.iter().flat_map(|p| rng.coeffs(batch * n, p.p())).collect() };
                let (a, b) = (fresh(), fresh());
                let len = batch * n;
                let reference = DgtConfig::default_for(log_m);
                let (mut want, mut want_fwd) = (Vec::new(), Vec::new());
                for (i, p) in params.iter().enumerate() {
                    let r = i * len..(i + 1) * len;
                    want.extend(
                        emulation::dgt::polymul(p, &reference, &a[r.clone()], &b[r.clone()]).map_err(s)?,
                    );
                    let mut wf = a[r].to_vec();
                    emulation::dgt::forward(p, &reference, &mut wf).map_err(s)?;
                    want_fwd.extend(wf);
                }
                for cfg in cfgs.iter().filter(|c| c.passes(log_m).is_ok()) {
                    // Coala's pipeline too, on the few configurations.
                    let coala = few.contains(cfg).then_some(DgtPipeline::Coala);
                    for pipeline in std::iter::once(DgtPipeline::Fused).chain(coala) {
                        let plan = DgtPlan::with_pipeline(gpu, &params, *cfg, pipeline).map_err(s)?;
                        let what = |op: &str| format!("{cfg} {pipeline:?} {op}");
                        eq(&what("polymul"), &plan.polymul(&a, &b).map_err(s)?, &want)?;
                        eq(&what("forward"), &dgt_forward_host(&plan, &a).map_err(s)?, &want_fwd)?;
                        let mut d = plan.upload(&a).map_err(s)?;
                        let f = plan.forward(&mut d).map_err(s)?;
                        plan.inverse(f).map_err(s)?;
                        eq(&what("round trip"), &gpu.download(&d).map_err(s)?, &a)?;
                    }
                }
                if log_n == 10 && towers == 1 {
                    let q = params[0].p();
                    let plan =
                        DgtPlan::new(gpu, params[0].clone(), DgtConfig::default_for(log_m)).map_err(s)?;
                    let got: Vec<u64> =
                        plan.polymul(&a[..n], &b[..n]).map_err(s)?.iter().map(|x| x.as_u64()).collect();
                    let au: Vec<u64> = a[..n].iter().map(|x| x.as_u64()).collect();
                    let bu: Vec<u64> = b[..n].iter().map(|x| x.as_u64()).collect();
                    eq("naive", &got, &cpu::negacyclic_naive(&au, &bu, q.as_u64()).map_err(s)?)?;
                }
                Ok(())
            })();
            t.record(&name, res);
        }
    }
}

/// The planner: a `Multiplier` built from wisdom naming each transform
/// (NTT kernels, the DGT) for one prime and for RNS towers gives the CPU's
/// product; an unreadable wisdom file is a typed error.
fn planner_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    use polymul::dgt::{DgtConfig, DgtParams};
    use polymul::planner::{Choice, Modulus, Multiplier, Wisdom, WisdomEntry, WisdomKey, batch_bucket};
    for log_n in [10u32, 13, 16] {
        let n = 1usize << log_n;
        let winners = [
            Choice::Ntt { kernel: NttKernel::Auto, radix: None },
            Choice::Ntt { kernel: NttKernel::TwoD, radix: Some(8) },
            Choice::Dgt { config: DgtConfig::default_for(log_n - 1) },
        ];
        for winner in winners {
            for (modulus, towers) in [(Modulus::Bits(bits), 1usize), (Modulus::Rns { bits, towers: 3 }, 3)] {
                let batch = 2;
                let name = format!("planner u{} N=2^{log_n} {towers} tower(s) {winner:?} == CPU", W::BITS);
                let res = (|| {
                    let key = WisdomKey {
                        device: gpu.info().name.clone(),
                        log_n,
                        word_bits: W::BITS,
                        towers,
                        batch_bucket: batch_bucket(batch),
                    };
                    let mut w = Wisdom::new();
                    w.insert(WisdomEntry { key, winner, us_per_poly: 1.0, candidates: 1 });
                    let m = Multiplier::<W>::with_wisdom(gpu, n, modulus, batch, Some(&w)).map_err(s)?;
                    if !m.decision().from_wisdom || m.decision().winner != winner {
                        return Err(format!("decision {:?}", m.decision()));
                    }
                    let mut rng = SplitMix64::new(seed ^ n as u64 ^ towers as u64);
                    let mut fresh = || -> Vec<W> {
                        m.primes().iter().flat_map(|&q| rng.coeffs(batch * n, W::from_u64(q))).collect()
                    };
                    let (a, b) = (fresh(), fresh());
                    let got = m.polymul(&a, &b).map_err(s)?;
                    let len = batch * n;
                    for (i, &q) in m.primes().iter().enumerate() {
                        let r = i * len..(i + 1) * len;
                        let want = match winner {
                            Choice::Dgt { config } => {
                                let p = DgtParams::<W>::new(n, q).map_err(s)?;
                                emulation::dgt::polymul(&p, &config, &a[r.clone()], &b[r.clone()])
                                    .map_err(s)?
                            }
                            Choice::Ntt { .. } => {
                                let p = NttParams::<W>::new(n, q).map_err(s)?;
                                emulation::polymul(&p, &a[r.clone()], &b[r.clone()]).map_err(s)?
                            }
                        };
                        eq(&format!("tower {i}"), &got[r], &want)?;
                    }
                    Ok(())
                })();
                t.record(&name, res);
            }
        }
    }
    let bad = std::env::temp_dir().join(format!("polymul-bad-wisdom-{}.json", std::process::id()));
    let res = (|| {
        std::fs::write(&bad, b"{ this is not wisdom").map_err(s)?;
        match Wisdom::load(&bad) {
            Err(Error::Wisdom { .. }) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })();
    let _ = std::fs::remove_file(&bad);
    t.record("planner: an unreadable wisdom file is a typed error", res);
}

/// Several host threads share one `Gpu`, each with its own stream and
/// plan (NTT, RNS, DGT), running products concurrently: every result equals
/// the CPU's. Determinism: the same inputs give the same words run after
/// run, and a batch gives the words of its polynomials one by one.
fn concurrency_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
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

/// Runs the suite; returns the process exit code.
pub fn run(opts: &Options) -> i32 {
    let t0 = std::time::Instant::now();
    let gpu = match crate::env_options::gpu() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("polymul-bench check: {e}");
            println!("0 passed, 1 failed");
            return 1;
        }
    };
    let i = gpu.info();
    println!(
        "device: {} (sm_{}{}, {} SMs, driver {}), kernels: {}, context + module load {:.2} s",
        i.name,
        i.compute_capability.0,
        i.compute_capability.1,
        i.multiprocessors,
        i.driver_version,
        i.kernel_image,
        t0.elapsed().as_secs_f64()
    );
    let seed = opts.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    println!("seed: {seed}");
    let mut t = Tally::default();
    let variants = variants();
    // `--only` picks suites (e.g. for a slow sanitizer): words, reductions,
    // tiles, fused, rns, convert, dgt, planner, concurrency, api, graphs, options, props, errors; lazy-fused
    // (part of words).
    let runs = |name: &str| opts.runs(name);
    if runs("words") {
        for (word, bits) in WORD_CONFIGS {
            let mut sizes = log_ns(opts.quick);
            if !opts.quick {
                sizes.insert(0, 1);
            }
            if let Some(only) = &opts.log_n {
                sizes = only.clone();
            }
            for log_n in sizes {
                let sd = seed ^ ((word as u64) << 40) ^ ((log_n as u64) << 8);
                for k in &variants {
                    match word {
                        32 => word_suite::<u32>(&gpu, k, bits, log_n, sd, &mut t),
                        _ => word_suite::<u64>(&gpu, k, bits, log_n, sd, &mut t),
                    }
                }
            }
        }
        // Narrower primes on each word too (N = 2^13: part of a `--log-n`
        // run only when it names 13).
        for k in variants.iter().filter(|_| opts.log_n.as_ref().is_none_or(|l| l.contains(&13))) {
            word_suite::<u32>(&gpu, k, 28, 13, seed ^ 1, &mut t);
            word_suite::<u64>(&gpu, k, 40, 13, seed ^ 2, &mut t);
        }
    }
    if runs("words") || runs("lazy-fused") {
        fused_lazy_suite(&gpu, seed ^ 20, opts, &mut t);
    }
    if runs("reductions") {
        reduction_suite::<u32>(&gpu, 30, seed ^ 3, &mut t);
        reduction_suite::<u64>(&gpu, 62, seed ^ 4, &mut t);
    }
    if runs("tiles") {
        tile_suite::<u32>(&gpu, 30, seed ^ 5, &mut t);
        tile_suite::<u64>(&gpu, 62, seed ^ 6, &mut t);
    }
    if runs("fused") {
        fused_suite::<u64>(&gpu, 62, seed ^ 9, &mut t);
        fused_suite::<u32>(&gpu, 30, seed ^ 10, &mut t);
        hadamard_suite::<u64>(&gpu, 62, seed ^ 11, &mut t);
        hadamard_suite::<u32>(&gpu, 30, seed ^ 12, &mut t);
    }
    if runs("rns") {
        rns_suite::<u64>(&gpu, 62, seed ^ 7, &mut t);
        rns_suite::<u32>(&gpu, 30, seed ^ 8, &mut t);
        rns_suite::<u32>(&gpu, 28, seed ^ 13, &mut t);
    }
    if runs("convert") {
        convert::convert_suite(&gpu, seed ^ 23, &mut t);
    }
    if runs("dgt") {
        dgt_suite::<u32>(&gpu, 30, seed ^ 14, opts, &mut t);
        dgt_suite::<u64>(&gpu, 62, seed ^ 15, &Options { quick: true, ..opts.clone() }, &mut t);
    }
    if runs("planner") {
        planner_suite::<u32>(&gpu, 30, seed ^ 16, &mut t);
        planner_suite::<u64>(&gpu, 62, seed ^ 17, &mut t);
    }
    if runs("concurrency") {
        concurrency_suite(&gpu, seed ^ 18, &mut t);
    }
    // The graph and api suites on a GPU handle of their own: a GPU that
    // several host threads used (the concurrency suite) no longer captures
    // graphs on its own (`Gpu::exclusive_capture`), and these suites check
    // the graph cache, and that it stands aside when threads arrive.
    let fresh = || crate::env_options::gpu().map_err(s);
    if runs("api") {
        match fresh() {
            Ok(g) => {
                api::api_suite::<u32>(&g, 30, seed ^ 21, &mut t);
                api::api_suite::<u64>(&g, 62, seed ^ 22, &mut t);
            }
            Err(e) => t.record("api: a GPU handle of its own", Err(e)),
        }
    }
    if runs("graphs") {
        match fresh() {
            Ok(g) => graphs::graph_suite(&g, seed ^ 20, &mut t),
            Err(e) => t.record("graphs: a GPU handle of its own", Err(e)),
        }
    }
    if runs("options") {
        match fresh() {
            Ok(g) => options::options_suite(&g, seed ^ 24, &mut t),
            Err(e) => t.record("options: a GPU handle of its own", Err(e)),
        }
    }
    if runs("plans") {
        plans::plans_suite(&gpu, seed ^ 25, &mut t);
    }
    if runs("props") {
        props::props_suite(&gpu, seed ^ 19, opts.cases.unwrap_or(if opts.quick { 60 } else { 200 }), &mut t);
    }
    if runs("errors") {
        errors::error_suite(&gpu, &mut t);
    }
    println!("{} passed, {} failed", t.passed, t.failed);
    if t.failed == 0 { 0 } else { 1 }
}
