//! The DGT kernels' code on the CPU against independent references.

use polymul::dgt::{DgtConfig, DgtParams};
use polymul::expert::DgtPipeline;
use polymul::expert::SplitMix64;
use polymul::expert::emulation;
use polymul::expert::emulation::dgt::{G, gmul, gpow};
use polymul::params::arith::bit_reverse;
use polymul::{Coeff, Error, cpu};

fn to_u64<W: Coeff>(v: &[W]) -> Vec<u64> {
    v.iter().map(|x| x.as_u64()).collect()
}

/// Every configuration of the search space for small N, and a few larger.
fn configs(log_m: u32) -> Vec<DgtConfig> {
    let mut v = DgtConfig::all(log_m, 3);
    v.push(DgtConfig::default_for(log_m));
    v
}

fn polymul_equals_naive<W: Coeff>(bits: u32) {
    for log_n in 2..=9u32 {
        let n = 1usize << log_n;
        let p = DgtParams::<W>::with_prime_bits(n, bits).unwrap();
        let q = p.p();
        let mut rng = SplitMix64::new(log_n as u64 ^ bits as u64);
        let qm1 = vec![q - W::one(); n];
        let cases =
            [(rng.coeffs(n, q), rng.coeffs(n, q)), (qm1.clone(), qm1.clone()), (vec![W::zero(); n], qm1)];
        for cfg in configs(log_n - 1) {
            for (a, b) in &cases {
                let want = cpu::negacyclic_naive(&to_u64(a), &to_u64(b), q.as_u64()).unwrap();
                for pipeline in [DgtPipeline::Fused, DgtPipeline::Coala] {
                    let got = emulation::dgt::polymul_with(&p, &cfg, pipeline, a, b).unwrap();
                    assert_eq!(to_u64(&got), want, "N={n} {cfg} u{} {pipeline:?}", W::BITS);
                }
            }
        }
    }
}

/// A batch of three pairs: each product is its pair's (the second operand's
/// blocks of a two-operand launch and every polynomial's offset), on both
/// pipelines and both words' largest primes.
fn batches_multiply_pair_by_pair<W: Coeff>(bits: u32) {
    for log_n in [4u32, 9, 12] {
        let n = 1usize << log_n;
        let p = DgtParams::<W>::with_prime_bits(n, bits).unwrap();
        let q = p.p();
        let mut rng = SplitMix64::new(u64::from(log_n) * 7 + u64::from(bits));
        let (a, mut b) = (rng.coeffs(3 * n, q), rng.coeffs(3 * n, q));
        b[n..2 * n].fill(q - W::one());
        let cfgs = [
            DgtConfig::default_for(log_n - 1),
            DgtConfig { stages1: 2, log_cluster1: 1, log_cluster2: 1, log_unit: 0 },
        ];
        for cfg in cfgs.into_iter().filter(|c| c.passes(log_n - 1).is_ok()) {
            for pipeline in [DgtPipeline::Fused, DgtPipeline::Coala] {
                let got = emulation::dgt::polymul_with(&p, &cfg, pipeline, &a, &b).unwrap();
                for i in 0..3 {
                    let r = i * n..(i + 1) * n;
                    let want =
                        cpu::negacyclic_naive(&to_u64(&a[r.clone()]), &to_u64(&b[r.clone()]), q.as_u64());
                    assert_eq!(to_u64(&got[r]), want.unwrap(), "N={n} {cfg} {pipeline:?} pair {i}");
                }
            }
        }
    }
}

#[test]
fn batches_multiply_pair_by_pair_u32() {
    batches_multiply_pair_by_pair::<u32>(30);
}

#[test]
fn batches_multiply_pair_by_pair_u64() {
    batches_multiply_pair_by_pair::<u64>(62);
}

#[test]
fn dgt_polymul_equals_naive_u32() {
    polymul_equals_naive::<u32>(30);
}

#[test]
fn dgt_polymul_equals_naive_u64() {
    polymul_equals_naive::<u64>(62);
}

/// The forward transform is the weighted DGT: output at natural position
/// `k` is `Σ_j x_j ξ^j g^(j·br(k))` with `x_j = a_j + i·a_{j+M}`.
#[test]
fn forward_is_the_weighted_dgt_in_bit_reversed_order() {
    for log_n in [3u32, 6, 9] {
        let n = 1usize << log_n;
        let m = n / 2;
        let p = DgtParams::<u64>::with_prime_bits(n, 30).unwrap();
        let q = p.p();
        let a = SplitMix64::new(5).coeffs(n, q);
        for cfg in configs(log_n - 1) {
            let mut got = a.clone();
            emulation::dgt::forward(&p, &cfg, &mut got).unwrap();
            let mut coala = a.clone();
            emulation::dgt::forward_with(&p, &cfg, DgtPipeline::Coala, &mut coala).unwrap();
            assert_eq!(got, coala, "N={n} {cfg}: the pipelines' forward transforms differ");
            for k in 0..m {
                let f = bit_reverse(k, log_n - 1) as u128;
                let mut acc: G = (0, 0);
                for j in 0..m {
                    let x = (a[j], a[m + j]);
                    let w =
                        gmul(gpow(p.xi(), j as u128, q).unwrap(), gpow(p.g(), j as u128 * f, q).unwrap(), q)
                            .unwrap();
                    let t = gmul(x, w, q).unwrap();
                    acc = ((acc.0 + t.0) % q, (acc.1 + t.1) % q);
                }
                assert_eq!((got[k], got[m + k]), acc, "N={n} {cfg} k={k}");
            }
        }
    }
}

#[test]
fn inverse_undoes_forward_at_large_n() {
    for (log_n, bits) in [(14u32, 30u32), (17, 30), (17, 28), (12, 62)] {
        let n = 1usize << log_n;
        let p = DgtParams::<u64>::with_prime_bits(n, bits).unwrap();
        let a = SplitMix64::new(log_n as u64).coeffs(2 * n, p.p());
        for cfg in [
            DgtConfig::default_for(log_n - 1),
            DgtConfig { stages1: 6, log_cluster1: 2, log_cluster2: 0, log_unit: 0 },
        ] {
            let mut x = a.clone();
            emulation::dgt::forward(&p, &cfg, &mut x).unwrap();
            assert_ne!(x, a);
            let mut y = x.clone();
            emulation::dgt::inverse(&p, &cfg, &mut x).unwrap();
            assert_eq!(x, a, "N={n} {cfg}");
            emulation::dgt::inverse_with(&p, &cfg, DgtPipeline::Coala, &mut y).unwrap();
            assert_eq!(y, a, "N={n} {cfg} (Coala's pipeline)");
        }
    }
}

#[test]
fn polymul_at_n_4096_equals_naive() {
    // N = 2^12 (O(N²) naive is still quick), one dense and one sparse operand.
    let n = 1usize << 12;
    let p = DgtParams::<u32>::with_prime_bits(n, 30).unwrap();
    let q = p.p();
    let mut rng = SplitMix64::new(9);
    let a = rng.coeffs(n, q);
    let mut b = vec![0u32; n];
    b[n - 1] = 3;
    b[5] = q - 1;
    let want = cpu::negacyclic_naive(&to_u64(&a), &to_u64(&b), q as u64).unwrap();
    for cfg in
        [DgtConfig::default_for(11), DgtConfig { stages1: 3, log_cluster1: 4, log_cluster2: 0, log_unit: 0 }]
    {
        assert_eq!(to_u64(&emulation::dgt::polymul(&p, &cfg, &a, &b).unwrap()), want, "{cfg}");
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let p = DgtParams::<u32>::with_prime_bits(1 << 8, 30).unwrap();
    let cfg = DgtConfig::default_for(7);
    let mut bad = vec![0u32; 256];
    bad[9] = p.p();
    assert!(matches!(
        emulation::dgt::polymul(&p, &cfg, &bad, &bad),
        Err(Error::CoefficientOutOfRange { index: 9, .. })
    ));
    assert!(matches!(
        emulation::dgt::forward(&p, &cfg, &mut [0u32; 100]),
        Err(Error::NotAMultipleOfN { .. })
    ));
    let over = DgtConfig { stages1: 8, log_cluster1: 0, log_cluster2: 0, log_unit: 0 };
    assert!(matches!(emulation::dgt::forward(&p, &over, &mut [0u32; 256]), Err(Error::BadDgtConfig { .. })));
}
