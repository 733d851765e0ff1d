//! criterion benchmarks of the CPU paths: the kernels' radix-2 NTT looped on
//! the host, and the naive O(N²) reference. GPU timings come from
//! `cargo xtask bench`, which uses CUDA events.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use polymul::random::SplitMix64;
use polymul::{NttParams, cpu};
use std::hint::black_box;

fn ntt(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu_radix2_forward_u64_q62");
    for log_n in [10u32, 12, 14, 16] {
        let n = 1usize << log_n;
        let p = NttParams::<u64>::with_prime_bits(n, 62).expect("parameters");
        let a = SplitMix64::new(1).coeffs(n, p.q());
        g.bench_with_input(BenchmarkId::from_parameter(n), &a, |b, a| {
            b.iter(|| {
                let mut x = a.clone();
                cpu::forward(&p, &mut x).expect("forward");
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
            bch.iter(|| cpu::polymul(&p, &a, &b).expect("polymul"))
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
    criterion_group!(benches, ntt, naive);
}

criterion_main!(group::benches);
