//! The `words` suite: every kernel configuration on each word and prime
//! width against the CPU (forward, inverse, round trip, polymul, the naive
//! convolution, all q − 1), and the fused lazy transforms (`lazy-fused`).

use super::{Tally, eq, lazy_kernel, s};
use crate::Options;
use crate::host_ext::{forward_host, inverse_host};
use polymul::expert::{NttKernel, PlanOptions, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, Error, Gpu, NttParams, NttPlan, cpu};

pub(super) fn word_suite<W: Coeff>(
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

    // The pipelined 2D kernel runs batches above 64 in groups of
    // polynomials (`polymul::plan::launch::pipeline_groups`): 67 is 34
    // groups, the last one of a single polynomial.
    let batches: &[usize] = if opts.kernel == NttKernel::TwoDPipelined { &[1, 3, 67] } else { &[1, 3] };
    for &batch in batches {
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

/// Polymuls and transforms on both sides of where the plan's launches
/// change schedule (`transform_takes_latency`, `product_takes_latency` and
/// `moderate_product_bounds` in the host's `plan/engine/lazy_state.rs`, on
/// an H100): `u32` transforms up to a quarter of a wave of full-tile
/// blocks and below 2^19 words and just past; polymuls on the latency
/// schedule up to 2^18 (`u32`) or 2^19 (`u64`; 2^18 at N = 2^12) words,
/// on the radix-8 full tiles up to 2^20 or 2^21, and just past each; N =
/// 2^17 (no latency schedule) from one polynomial; forward and inverse
/// transforms on both sides of `moderate_transform_words`' bands. Each
/// against the CPU emulation, random words with q − 1 at both ends.
pub(super) fn moderate_products(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let u64_sizes = [
        (16u32, 8usize),
        (16, 9),
        (16, 16),
        (16, 17),
        (16, 32),
        (16, 33),
        (15, 24),
        (14, 48),
        (14, 128),
        (14, 129),
        (12, 64),
        (12, 65),
        (12, 192),
        (12, 193),
        (12, 512),
        (12, 513),
        (17, 1),
        (17, 8),
        (17, 9),
        (17, 16),
        (17, 17),
    ];
    let u32_sizes = [
        (16u32, 4usize),
        (16, 5),
        (16, 8),
        (16, 9),
        (16, 32),
        (16, 33),
        (14, 15),
        (14, 16),
        (14, 17),
        (14, 24),
        (14, 25),
        (14, 32),
        (14, 33),
        (14, 64),
        (14, 65),
        (12, 63),
        (12, 64),
        (12, 67),
        (12, 256),
        (12, 257),
        (17, 1),
        (17, 4),
        (17, 5),
        (17, 16),
        (17, 17),
    ];
    for (i, &(log_n, batch)) in u64_sizes.iter().enumerate() {
        moderate::<u64>(gpu, 62, log_n, batch, seed ^ i as u64, t);
    }
    for (i, &(log_n, batch)) in u32_sizes.iter().enumerate() {
        moderate::<u32>(gpu, 30, log_n, batch, seed ^ (16 + i as u64), t);
    }
}

fn moderate<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, batch: usize, seed: u64, t: &mut Tally) {
    let n = 1usize << log_n;
    let tag = format!("products u{} q{bits}b N=2^{log_n} batch {batch}", W::BITS);
    t.record(
        &format!("{tag} polymul, forward and inverse == CPU"),
        (|| {
            let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
            let plan = NttPlan::new(gpu, p.clone()).map_err(s)?;
            let q = p.q();
            let mut rng = SplitMix64::new(seed);
            let (mut a, b) = (rng.coeffs(n * batch, q), rng.coeffs(n * batch, q));
            a[0] = q - W::one();
            a[n * batch - 1] = q - W::one();
            eq("polymul", &plan.polymul(&a, &b).map_err(s)?, &emulation::polymul(&p, &a, &b).map_err(s)?)?;
            let mut want = a.clone();
            emulation::forward(&p, &mut want).map_err(s)?;
            eq("forward", &forward_host(&plan, &a).map_err(s)?, &want)?;
            let mut want = b.clone();
            emulation::inverse(&p, &mut want).map_err(s)?;
            eq("inverse", &inverse_host(&plan, &b).map_err(s)?, &want)
        })(),
    );
}

/// The fused lazy transforms (both passes in one launch, `u32`, N = 2^15 …
/// 2^21): batches large enough that plans choose them (32 to 64 MiB of
/// words), both radices, forward and inverse against the CPU, the round
/// trip, random words with q − 1 at both ends of the batch.
pub(super) fn fused_lazy_suite(gpu: &Gpu, seed: u64, opts: &Options, t: &mut Tally) {
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
