//! The kernels' NTT code run on the CPU against independent references.

use polymul::cpu;
use polymul::expert::SplitMix64;
use polymul::expert::emulation;
use polymul::params::arith::{bit_reverse, mul_mod, pow_mod};
use polymul::params::{NttParams, ntt_primes};
use polymul::{Coeff, Error};

fn to_u64<W: Coeff>(v: &[W]) -> Vec<u64> {
    v.iter().map(|x| x.as_u64()).collect()
}

/// polymul through the kernels' NTT == schoolbook negacyclic product.
fn check_polymul<W: Coeff>(n: usize, bits: u32, seed: u64) {
    let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
    let q = p.q();
    let mut rng = SplitMix64::new(seed);
    let qm1 = vec![q - W::one(); n];
    let mut one = vec![W::zero(); n];
    one[0] = W::one();
    let mut x_last = vec![W::zero(); n];
    x_last[n - 1] = W::one();
    let cases: Vec<(Vec<W>, Vec<W>)> = vec![
        (rng.coeffs(n, q), rng.coeffs(n, q)),
        (rng.coeffs(n, q), rng.coeffs(n, q)),
        (qm1.clone(), qm1.clone()),
        (qm1.clone(), rng.coeffs(n, q)),
        (vec![W::zero(); n], rng.coeffs(n, q)),
        (one.clone(), rng.coeffs(n, q)),
        (x_last.clone(), x_last.clone()),
    ];
    for (a, b) in cases {
        let got = emulation::polymul(&p, &a, &b).unwrap();
        let want = cpu::negacyclic_naive(&to_u64(&a), &to_u64(&b), q.as_u64()).unwrap();
        assert_eq!(to_u64(&got), want, "N={n} bits={bits} word={}", W::BITS);
    }
}

#[test]
fn polymul_equals_naive_u64() {
    for log_n in 1..=11 {
        for bits in [20u32, 40, 61, 62] {
            if bits > log_n + 2 {
                check_polymul::<u64>(1 << log_n, bits, log_n as u64 * 100 + bits as u64);
            }
        }
    }
}

#[test]
fn polymul_equals_naive_u32() {
    for log_n in 1..=11 {
        for bits in [20u32, 28, 29, 30] {
            check_polymul::<u32>(1 << log_n, bits, log_n as u64 * 1000 + bits as u64);
        }
    }
}

/// Merged CT NTT output i is the evaluation at ψ^(2·br(i)+1).
#[test]
fn forward_is_evaluation_at_odd_powers_of_psi() {
    for (n, bits) in [(2usize, 30u32), (16, 30), (256, 62), (512, 50)] {
        let p = NttParams::<u64>::with_prime_bits(n, bits).unwrap();
        let q = p.q();
        let a = SplitMix64::new(n as u64).coeffs(n, q);
        let mut f = a.clone();
        emulation::forward(&p, &mut f).unwrap();
        let log_n = n.trailing_zeros();
        for (i, &fi) in f.iter().enumerate() {
            let x = pow_mod(p.psi(), 2 * bit_reverse(i, log_n) as u64 + 1, q).unwrap();
            let mut acc = 0u64;
            for &c in a.iter().rev() {
                acc = (mul_mod(acc, x, q).unwrap() + c) % q;
            }
            assert_eq!(fi, acc, "N={n} output {i}");
        }
    }
}

fn check_round_trip<W: Coeff>(n: usize, bits: u32, batch: usize) {
    let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
    let a = SplitMix64::new(bits as u64 ^ n as u64).coeffs(n * batch, p.q());
    let mut f = a.clone();
    emulation::forward(&p, &mut f).unwrap();
    assert_ne!(f, a);
    emulation::inverse(&p, &mut f).unwrap();
    assert_eq!(f, a, "inverse(forward(a)) != a for N={n}");
}

#[test]
fn forward_then_inverse_is_identity_for_all_sizes() {
    for log_n in 10..=17 {
        check_round_trip::<u64>(1 << log_n, 62, 1);
        check_round_trip::<u32>(1 << log_n, 30, 1);
    }
    check_round_trip::<u64>(1 << 10, 62, 5);
    check_round_trip::<u32>(1 << 12, 29, 3);
}

#[test]
fn batched_polymul_is_per_polynomial() {
    let n = 64;
    let p = NttParams::<u64>::with_prime_bits(n, 62).unwrap();
    let mut rng = SplitMix64::new(9);
    let (a, b) = (rng.coeffs(4 * n, p.q()), rng.coeffs(4 * n, p.q()));
    let c = emulation::polymul(&p, &a, &b).unwrap();
    for k in 0..4 {
        let s = k * n..(k + 1) * n;
        assert_eq!(c[s.clone()], emulation::polymul(&p, &a[s.clone()], &b[s]).unwrap()[..]);
    }
}

/// A batch large enough that each stage's threads run on every core (2^15
/// words and up) gives, polynomial by polynomial, the words of the serial
/// run of each polynomial alone (2^10 words: one thread), both words,
/// forward, inverse and polymul, including all-`q − 1` polynomials.
fn check_parallel_stages<W: Coeff>(bits: u32) {
    let (n, batch) = (1usize << 10, 64);
    let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
    let q = p.q();
    let mut rng = SplitMix64::new(u64::from(bits));
    let (mut a, b) = (rng.coeffs(batch * n, q), rng.coeffs(batch * n, q));
    a[..n].fill(q - W::one());
    a[(batch - 1) * n..].fill(q - W::one());
    let (mut fwd, mut inv) = (a.clone(), a.clone());
    emulation::forward(&p, &mut fwd).unwrap();
    emulation::inverse(&p, &mut inv).unwrap();
    let prod = emulation::polymul(&p, &a, &b).unwrap();
    for k in 0..batch {
        let s = k * n..(k + 1) * n;
        let mut one = a[s.clone()].to_vec();
        emulation::forward(&p, &mut one).unwrap();
        assert_eq!(fwd[s.clone()], one[..], "forward, polynomial {k}");
        let mut one = a[s.clone()].to_vec();
        emulation::inverse(&p, &mut one).unwrap();
        assert_eq!(inv[s.clone()], one[..], "inverse, polynomial {k}");
        assert_eq!(prod[s.clone()], emulation::polymul(&p, &a[s.clone()], &b[s]).unwrap()[..], "polymul {k}");
    }
}

#[test]
fn stages_on_every_core_give_the_serial_words() {
    check_parallel_stages::<u32>(30);
    check_parallel_stages::<u64>(62);
}

#[test]
fn linearity() {
    let n = 1 << 10;
    let p = NttParams::<u32>::with_prime_bits(n, 30).unwrap();
    let q = p.q();
    let mut rng = SplitMix64::new(3);
    let (a, b) = (rng.coeffs(n, q), rng.coeffs(n, q));
    let s: Vec<u32> = a.iter().zip(&b).map(|(x, y)| ((*x as u64 + *y as u64) % q as u64) as u32).collect();
    let (mut fa, mut fb, mut fs) = (a, b, s);
    for v in [&mut fa, &mut fb, &mut fs] {
        emulation::forward(&p, v).unwrap();
    }
    for i in 0..n {
        assert_eq!(fs[i] as u64, (fa[i] as u64 + fb[i] as u64) % q as u64);
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let p = NttParams::<u64>::with_prime_bits(1024, 62).unwrap();
    let q = p.q();
    let good = vec![0u64; 1024];
    let mut bad = good.clone();
    bad[17] = q;
    assert!(matches!(
        emulation::polymul(&p, &bad, &good),
        Err(Error::CoefficientOutOfRange { index: 17, .. })
    ));
    assert!(matches!(emulation::polymul(&p, &good, &good[..512]), Err(Error::NotAMultipleOfN { .. })));
    assert!(matches!(
        emulation::polymul(&p, &good, &[good.clone(), good.clone()].concat()),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(emulation::forward(&p, &mut []), Err(Error::NotAMultipleOfN { .. })));
    assert!(ntt_primes(62, 1024, 2).is_ok());
    // Error messages say what to do.
    let msg = NttParams::<u32>::new(1024, (1 << 40) + 1).unwrap_err().to_string();
    assert!(msg.contains("at most 30"), "{msg}");
}

/// Every reduction's NTT kernels (run on the CPU) give the naive product,
/// wherever the reduction accepts the modulus; and refuse it with a typed
/// error where it does not.
#[test]
fn every_reduction_gives_the_naive_product() {
    use polymul::expert::Reduction;
    fn one<W: Coeff>(bits: u32, n: usize, r: Reduction, seed: u64) {
        let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
        let q = p.q();
        let mut rng = SplitMix64::new(seed);
        let (a, b) = (rng.coeffs(n, q), rng.coeffs(n, q));
        match emulation::polymul_with(&p, r, &a, &b) {
            Ok(got) => {
                assert!(bits <= r.max_bits(W::BITS));
                let want = cpu::negacyclic_naive(&to_u64(&a), &to_u64(&b), q.as_u64()).unwrap();
                assert_eq!(to_u64(&got), want, "{r} u{} {bits}-bit N={n}", W::BITS);
                let mut f = a.clone();
                emulation::forward_with(&p, r, &mut f).unwrap();
                let mut g = a.clone();
                emulation::forward(&p, &mut g).unwrap();
                assert_eq!(f, g, "{r}: forward transform differs from the default reduction's");
            }
            Err(Error::ModulusTooWide { max_bits, .. }) => {
                assert!(bits > r.max_bits(W::BITS));
                assert_eq!(max_bits, r.max_bits(W::BITS));
            }
            Err(e) => panic!("{r}: {e}"),
        }
    }
    for r in Reduction::ALL {
        for (bits, log_n) in [(28u32, 8u32), (30, 10)] {
            one::<u32>(bits, 1 << log_n, r, bits as u64);
        }
        for (bits, log_n) in [(60u32, 9u32), (62, 10)] {
            one::<u64>(bits, 1 << log_n, r, bits as u64);
        }
    }
}

#[test]
fn reduction_names_round_trip() {
    use polymul::expert::Reduction;
    for r in Reduction::ALL {
        assert_eq!(Reduction::from_name(r.name()), Some(r));
        assert!(r.max_bits(32) < r.max_bits(64));
    }
    assert_eq!(Reduction::default(), Reduction::Shoup);
    assert_eq!(Reduction::BarrettClassic.max_corrections(), 2);
    assert_eq!(Reduction::DhemQuisquater.max_bits(64), 60);
    assert_eq!(Reduction::from_name("nope"), None);
}

/// The shared-memory (tiled) kernels' code gives exactly the radix-2
/// transform, for one-tile and two-pass geometries, any emulated thread
/// count, both words and every reduction; and it inverts.
#[test]
fn tiled_transform_equals_radix2() {
    use polymul::expert::Reduction;
    fn one<W: Coeff>(log_n: u32, log_tile: u32, threads: usize, r: Reduction, batch: usize) {
        for log_radix in 1..=4 {
            for direct in [false, true] {
                for two_d in [false, true] {
                    let cfg = emulation::TiledConfig {
                        log_max_tile: log_tile,
                        threads,
                        log_radix,
                        direct,
                        two_d,
                        truncated: false,
                    };
                    if cfg.geometry(log_n).is_ok() {
                        one_cfg::<W>(log_n, cfg, r, batch);
                    }
                }
            }
        }
    }
    fn one_cfg<W: Coeff>(log_n: u32, cfg: emulation::TiledConfig, r: Reduction, batch: usize) {
        let log_tile = cfg.log_max_tile;
        let n = 1usize << log_n;
        let bits = if W::BITS == 32 { 30 } else { 62 }.min(r.max_bits(W::BITS));
        let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
        let a = SplitMix64::new(log_n as u64 * 31 + log_tile as u64).coeffs(n * batch, p.q());
        let mut want = a.clone();
        emulation::forward_with(&p, r, &mut want).unwrap();
        let mut got = a.clone();
        emulation::forward_tiled(&p, r, &mut got, cfg).unwrap();
        assert_eq!(got, want, "forward: u{} N=2^{log_n} {cfg:?} {r}", W::BITS);
        let mut inv_want = want.clone();
        emulation::inverse_with(&p, r, &mut inv_want).unwrap();
        emulation::inverse_tiled(&p, r, &mut got, cfg).unwrap();
        assert_eq!(got, inv_want, "inverse: u{} N=2^{log_n} tile 2^{log_tile} {r}", W::BITS);
        assert_eq!(got, a, "round trip");
    }
    for log_n in 1..=12 {
        for log_tile in [1u32, 3, 5, 12] {
            one::<u64>(log_n, log_tile, 3, Reduction::Shoup, 2);
            one::<u32>(log_n, log_tile, 1, Reduction::Barrett4, 1);
        }
    }
    for r in Reduction::ALL {
        one::<u64>(14, 12, 256, r, 1);
        one::<u32>(15, 13, 256, r, 1);
    }
    one::<u64>(17, 12, 512, Reduction::Shoup, 1);
    one::<u32>(17, 13, 512, Reduction::Shoup, 1);
    // Too long for two passes of the given tile: a typed error.
    assert!(polymul::expert::tile_geometry(9, 4).is_err());
    assert!(polymul::expert::tile_geometry(8, 4).is_ok());
    assert!(polymul::expert::geometry_2d(9, 4).is_err());
    assert!(polymul::expert::geometry_2d(8, 4).is_ok());
    assert!(polymul::expert::geometry_2d(1, 4).is_err());
    let g = polymul::expert::geometry_2d(17, 13).unwrap();
    assert_eq!((g.l1, g.log_tile), (8, 13));
    // An unknown radix: a typed error, not a panic.
    let p = NttParams::<u64>::with_prime_bits(16, 40).unwrap();
    let mut v = vec![0u64; 16];
    let cfg = emulation::TiledConfig {
        log_max_tile: 4,
        threads: 1,
        log_radix: 5,
        direct: false,
        two_d: false,
        truncated: false,
    };
    assert!(matches!(
        emulation::forward_tiled(&p, Reduction::Shoup, &mut v, cfg),
        Err(polymul::Error::BadRadix { .. })
    ));
}

#[test]
fn tiled_gpu_configuration_barrett2_u32() {
    use polymul::expert::Reduction;
    let n = 1 << 16;
    let p = NttParams::<u32>::with_prime_bits(n, 30).unwrap();
    let a = SplitMix64::new(5).coeffs(2 * n, p.q());
    let mut want = a.clone();
    emulation::forward_with(&p, Reduction::BarrettClassic, &mut want).unwrap();
    let mut got = a.clone();
    let cfg = emulation::TiledConfig {
        log_max_tile: 13,
        threads: 512,
        log_radix: 2,
        direct: false,
        two_d: false,
        truncated: false,
    };
    emulation::forward_tiled(&p, Reduction::BarrettClassic, &mut got, cfg).unwrap();
    assert_eq!(got, want);
}

/// The fused polymul (Algorithm 8: truncated transforms, Karatsuba-fused
/// step, half the twiddles) equals the unfused polymul bit for bit, and the
/// naive convolution, for both words, every reduction, N = 2^2 … 2^17, edge
/// operands, and through the tiled/2D kernels' code at every radix.
#[test]
fn fused_polymul_equals_unfused_and_naive() {
    use polymul::expert::Reduction;
    fn one<W: Coeff>(log_n: u32, r: Reduction, batch: usize) {
        let n = 1usize << log_n;
        let bits = if W::BITS == 32 { 30 } else { 62 }.min(r.max_bits(W::BITS));
        let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
        let q = p.q();
        let mut rng = SplitMix64::new(log_n as u64 * 7 + batch as u64);
        let (a, mut b) = (rng.coeffs(n * batch, q), rng.coeffs(n * batch, q));
        b[0] = q - W::one();
        let want = emulation::polymul_with(&p, r, &a, &b).unwrap();
        assert_eq!(emulation::polymul_fused(&p, r, &a, &b).unwrap(), want, "u{} N=2^{log_n} {r}", W::BITS);
        if log_n <= 9 && batch == 1 {
            let au: Vec<u64> = a.iter().map(|x| x.as_u64()).collect();
            let bu: Vec<u64> = b.iter().map(|x| x.as_u64()).collect();
            let naive = cpu::negacyclic_naive(&au, &bu, q.as_u64()).unwrap();
            let got: Vec<u64> = want.iter().map(|x| x.as_u64()).collect();
            assert_eq!(got, naive);
        }
        let qm1 = vec![q - W::one(); n];
        assert_eq!(
            emulation::polymul_fused(&p, r, &qm1, &qm1).unwrap(),
            emulation::polymul_with(&p, r, &qm1, &qm1).unwrap()
        );
        if log_n <= 13 {
            for log_radix in [1, 2, 4] {
                for two_d in [false, true] {
                    let cfg = emulation::TiledConfig {
                        log_max_tile: log_n.div_ceil(2).max(log_n.min(7)),
                        threads: 16,
                        log_radix,
                        direct: true,
                        two_d,
                        truncated: true,
                    };
                    if cfg.geometry(log_n).is_err() {
                        continue;
                    }
                    let got = emulation::polymul_fused_tiled(&p, r, &a, &b, cfg).unwrap();
                    assert_eq!(got, want, "tiled u{} N=2^{log_n} {r} {cfg:?}", W::BITS);
                }
            }
        }
    }
    for log_n in 2..=12 {
        one::<u64>(log_n, Reduction::Shoup, 2);
        one::<u32>(log_n, Reduction::Shoup, 1);
    }
    for r in Reduction::ALL {
        one::<u64>(11, r, 1);
        one::<u32>(11, r, 1);
    }
    one::<u64>(16, Reduction::Shoup, 1);
    one::<u32>(17, Reduction::Barrett4, 1);
    // N = 2 has no truncated transform: a typed error.
    let p = NttParams::<u64>::with_prime_bits(2, 40).unwrap();
    assert!(matches!(
        emulation::polymul_fused(&p, Reduction::Shoup, &[1, 2], &[3, 4]),
        Err(polymul::Error::InvalidN { .. })
    ));
}
