//! criterion benchmarks of the CPU paths: the CPU backend
//! (`polymul::cpu::CpuPlan`) against concrete-ntt 0.2 and the scalar
//! reference (forward, inverse, polymul, both words, several N; batches over
//! all cores), the kernels' radix-2 NTT looped on the host, and the naive
//! O(N²) reference. GPU timings come from `cargo xtask bench`, which uses
//! CUDA events. `cargo bench -p polymul-benches -- backend` runs only the
//! backend's groups.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use polymul::cpu::CpuPlan;
use polymul::expert::SplitMix64;
use polymul::expert::emulation;
use polymul::prelude::*;
use polymul::{Coeff, NttParams, cpu};
use polymul_bench::cpu_anchor::Anchor;
use std::hint::black_box;

/// Group `backend_<op>_u<W>_q<bits>`: ids `backend/N`, `concrete-ntt/N`,
/// `reference/N` (the reference only up to 2^14: it is 10–60× slower).
fn backend_word<W: Coeff, A: Anchor<W>>(c: &mut Criterion, bits: u32) {
    for op in ["forward", "inverse", "polymul"] {
        let mut g = c.benchmark_group(format!("backend_{op}_u{}_q{bits}", W::BITS));
        for log_n in [10u32, 12, 14, 16] {
            let n = 1usize << log_n;
            let p = NttParams::<W>::with_prime_bits(n, bits).expect("parameters");
            let plan = CpuPlan::new(p.clone()).expect("plan");
            let anchor = A::make(n, p.q()).expect("concrete-ntt plan");
            let mut rng = SplitMix64::new(u64::from(log_n));
            let (a, b) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
            let mut x = a.clone();
            match op {
                "forward" => {
                    g.bench_function(BenchmarkId::new("backend", n), |bch| {
                        bch.iter(|| plan.forward(black_box(&mut x)).expect("forward"))
                    });
                    g.bench_function(BenchmarkId::new("concrete-ntt", n), |bch| {
                        bch.iter(|| anchor.fwd(black_box(&mut x)))
                    });
                    if log_n <= 14 {
                        g.bench_function(BenchmarkId::new("reference", n), |bch| {
                            bch.iter(|| emulation::forward(&p, black_box(&mut x)).expect("forward"))
                        });
                    }
                }
                "inverse" => {
                    g.bench_function(BenchmarkId::new("backend", n), |bch| {
                        bch.iter(|| plan.inverse(black_box(&mut x)).expect("inverse"))
                    });
                    g.bench_function(BenchmarkId::new("concrete-ntt", n), |bch| {
                        bch.iter(|| {
                            anchor.inv(black_box(&mut x));
                            anchor.normalize(&mut x)
                        })
                    });
                    if log_n <= 14 {
                        g.bench_function(BenchmarkId::new("reference", n), |bch| {
                            bch.iter(|| emulation::inverse(&p, black_box(&mut x)).expect("inverse"))
                        });
                    }
                }
                _ => {
                    g.bench_function(BenchmarkId::new("backend", n), |bch| {
                        bch.iter(|| plan.polymul(black_box(&a), black_box(&b)).expect("polymul"))
                    });
                    let (mut ca, mut cb) = (a.clone(), b.clone());
                    g.bench_function(BenchmarkId::new("concrete-ntt", n), |bch| {
                        bch.iter(|| {
                            ca.copy_from_slice(black_box(&a));
                            cb.copy_from_slice(black_box(&b));
                            anchor.fwd(&mut ca);
                            anchor.fwd(&mut cb);
                            anchor.mul_assign_normalize(&mut ca, &cb);
                            anchor.inv(&mut ca);
                        })
                    });
                    if log_n <= 14 {
                        g.bench_function(BenchmarkId::new("reference", n), |bch| {
                            bch.iter(|| {
                                emulation::polymul(&p, black_box(&a), black_box(&b)).expect("polymul")
                            })
                        });
                    }
                }
            }
        }
        g.finish();
    }
}

fn backend(c: &mut Criterion) {
    backend_word::<u64, concrete_ntt::prime64::Plan>(c, 62);
    backend_word::<u32, concrete_ntt::prime32::Plan>(c, 30);
    // A batch of 8 polynomials over all cores.
    let mut g = c.benchmark_group("backend_batch8_polymul_u64_q62");
    for log_n in [12u32, 14] {
        let n = 1usize << log_n;
        let p = NttParams::<u64>::with_prime_bits(n, 62).expect("parameters");
        let plan = CpuPlan::new(p.clone()).expect("plan");
        let mut rng = SplitMix64::new(7);
        let (a, b) = (rng.coeffs(8 * n, p.q()), rng.coeffs(8 * n, p.q()));
        g.bench_function(BenchmarkId::new("backend", n), |bch| {
            bch.iter(|| plan.polymul(&a, &b).expect("polymul"))
        });
    }
    g.finish();
}

fn ntt(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu_radix2_forward_u64_q62");
    for log_n in [10u32, 12, 14, 16] {
        let n = 1usize << log_n;
        let p = NttParams::<u64>::with_prime_bits(n, 62).expect("parameters");
        let a = SplitMix64::new(1).coeffs(n, p.q());
        g.bench_with_input(BenchmarkId::from_parameter(n), &a, |b, a| {
            b.iter(|| {
                let mut x = a.clone();
                emulation::forward(&p, &mut x).expect("forward");
                black_box(x)
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("cpu_polymul_u32_q30");
    for log_n in [10u32, 12] {
        let n = 1usize << log_n;
        let p = NttParams::<u32>::with_prime_bits(n, 30).expect("parameters");
        let mut rng = SplitMix64::new(2);
        let (a, b) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
        g.bench_function(BenchmarkId::new("ntt", n), |bch| {
            bch.iter(|| emulation::polymul(&p, &a, &b).expect("polymul"))
        });
    }
    g.finish();
}

fn naive(c: &mut Criterion) {
    let n = 1 << 10;
    let q = polymul::params::ntt_primes(62, n, 1).expect("prime")[0];
    let mut rng = SplitMix64::new(3);
    let (a, b) = (rng.coeffs(n, q), rng.coeffs(n, q));
    c.bench_function("naive_negacyclic_u64_1024", |bch| {
        bch.iter(|| cpu::negacyclic_naive(black_box(&a), black_box(&b), q).expect("naive"))
    });
}

mod group {
    #![allow(missing_docs)]
    use super::*;
    criterion_group!(benches, backend, ntt, naive);
}

criterion_main!(group::benches);
