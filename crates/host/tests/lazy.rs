//! The lazy NTT kernels' code (Harvey butterflies, one or two passes) run on
//! the CPU against the radix-2 reference and the schoolbook product.

use polymul::cpu;
use polymul::expert::SplitMix64;
use polymul::expert::emulation;
use polymul::params::NttParams;
use polymul::{Coeff, Error};

fn to_u64<W: Coeff>(v: &[W]) -> Vec<u64> {
    v.iter().map(|x| x.as_u64()).collect()
}

/// Inputs of a batch of three: random, all q − 1, sparse edge values.
fn inputs<W: Coeff>(n: usize, q: W, rng: &mut SplitMix64) -> Vec<W> {
    let mut v = rng.coeffs(n, q);
    v.extend(std::iter::repeat_n(q - W::one(), n));
    let mut edge = vec![W::zero(); n];
    edge[0] = q - W::one();
    edge[n - 1] = W::one();
    edge[n / 2] = q - W::one();
    v.extend(edge);
    v
}

/// Forward and inverse equal the radix-2 kernels' bit for bit, and the
/// round trip is the identity, for every N the lazy kernels cover, both
/// radices, the widest and a narrow modulus.
fn check_transforms<W: Coeff>(log_ns: std::ops::RangeInclusive<u32>, widths: &[u32]) {
    for log_n in log_ns {
        let n = 1usize << log_n;
        for &bits in widths {
            let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
            let mut rng = SplitMix64::new(u64::from(log_n) * 1000 + u64::from(bits));
            let x = inputs(n, p.q(), &mut rng);
            let mut want = x.clone();
            emulation::forward(&p, &mut want).unwrap();
            let mut back_want = want.clone();
            emulation::inverse(&p, &mut back_want).unwrap();
            assert_eq!(back_want, x);
            for log_r in [None, Some(3), Some(4)] {
                let mut got = x.clone();
                emulation::forward_lazy(&p, &mut got, log_r).unwrap();
                assert_eq!(
                    to_u64(&got),
                    to_u64(&want),
                    "forward N=2^{log_n} {bits} bits u{} r{log_r:?}",
                    W::BITS
                );
                emulation::inverse_lazy(&p, &mut got, log_r).unwrap();
                assert_eq!(to_u64(&got), to_u64(&x), "round trip N=2^{log_n} {bits} bits r{log_r:?}");
                // The inverse alone on reduced words in the NTT domain.
                let mut y = x.clone();
                let mut y_want = x.clone();
                emulation::inverse(&p, &mut y_want).unwrap();
                emulation::inverse_lazy(&p, &mut y, log_r).unwrap();
                assert_eq!(to_u64(&y), to_u64(&y_want), "inverse N=2^{log_n} {bits} bits r{log_r:?}");
            }
        }
    }
}

#[test]
fn lazy_equals_radix2_u64() {
    check_transforms::<u64>(3..=17, &[62, 40]);
}

#[test]
fn lazy_equals_radix2_u32() {
    check_transforms::<u32>(3..=17, &[30, 25]);
}

#[test]
fn lazy_covers_the_largest_sizes() {
    check_transforms::<u64>(20..=21, &[62]);
    check_transforms::<u32>(21..=21, &[30]);
}

/// forward · forward · pointwise · inverse through the lazy code == the
/// schoolbook negacyclic product.
#[test]
fn lazy_polymul_equals_naive() {
    for log_n in 3..=10u32 {
        let n = 1usize << log_n;
        let p = NttParams::<u64>::with_prime_bits(n, 62).unwrap();
        let mut rng = SplitMix64::new(u64::from(log_n));
        let (a, b) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
        let (mut fa, mut fb) = (a.clone(), b.clone());
        emulation::forward_lazy(&p, &mut fa, None).unwrap();
        emulation::forward_lazy(&p, &mut fb, None).unwrap();
        emulation::pointwise_mul(&p, &mut fa, &fb).unwrap();
        emulation::inverse_lazy(&p, &mut fa, None).unwrap();
        assert_eq!(fa, cpu::negacyclic_naive(&a, &b, p.q()).unwrap(), "N=2^{log_n}");
    }
}

#[test]
fn lazy_refuses_what_it_does_not_cover() {
    let p = NttParams::<u64>::with_prime_bits(4, 40).unwrap();
    assert!(matches!(emulation::forward_lazy(&p, &mut [1, 2, 3, 4], None), Err(Error::InvalidN { .. })));
    let p = NttParams::<u64>::with_prime_bits(16, 40).unwrap();
    let mut v = vec![1u64; 16];
    assert!(matches!(emulation::forward_lazy(&p, &mut v, Some(2)), Err(Error::BadRadix { radix: 4 })));
    assert!(matches!(emulation::forward_lazy(&p, &mut v[..15], None), Err(Error::NotAMultipleOfN { .. })));
}

/// The product pass (the second operand's forward row steps, the first's,
/// the pointwise product and the inverse row steps in one kernel) after the
/// two operands' column passes in one launch == the radix-2 polymul,
/// and == the schoolbook product for small N; every size, both radices,
/// both words, edge operands.
fn check_product<W: Coeff>(log_ns: std::ops::RangeInclusive<u32>, bits: u32) {
    for log_n in log_ns {
        let n = 1usize << log_n;
        let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
        let mut rng = SplitMix64::new(u64::from(log_n) * 7 + u64::from(bits));
        let (a, b) = (inputs(n, p.q(), &mut rng), inputs(n, p.q(), &mut rng));
        let want = emulation::polymul(&p, &a, &b).unwrap();
        for log_r in [None, Some(3), Some(4)] {
            let got = emulation::polymul_lazy(&p, &a, &b, log_r).unwrap();
            assert_eq!(to_u64(&got), to_u64(&want), "polymul N=2^{log_n} u{} r{log_r:?}", W::BITS);
        }
        if log_n <= 10 {
            let naive = cpu::negacyclic_naive(&to_u64(&a[..n]), &to_u64(&b[..n]), p.q().as_u64()).unwrap();
            assert_eq!(to_u64(&want[..n]), naive);
        }
    }
}

#[test]
fn lazy_product_pass_equals_polymul() {
    check_product::<u64>(3..=17, 62);
    check_product::<u32>(3..=17, 30);
}

#[test]
fn lazy_product_refuses_mismatched_operands() {
    let p = NttParams::<u64>::with_prime_bits(16, 40).unwrap();
    let a = vec![1u64; 32];
    assert!(matches!(emulation::polymul_lazy(&p, &a, &a[..16], None), Err(Error::LengthMismatch { .. })));
}

/// The one-pass cluster kernels' code (blocks handing words to each other's
/// tiles) == the radix-2 transforms, both words, widest modulus, edge inputs.
fn check_cluster<W: Coeff>(bits: u32) {
    let n = 1usize << 16;
    let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
    let mut rng = SplitMix64::new(u64::from(bits));
    let x = inputs(n, p.q(), &mut rng);
    let mut want = x.clone();
    emulation::forward(&p, &mut want).unwrap();
    let mut got = x.clone();
    emulation::transform_cluster(&p, &mut got, false).unwrap();
    let bad = got.iter().zip(&want).filter(|(a, b)| a != b).count();
    assert_eq!(
        bad,
        0,
        "cluster forward u{}: {bad} words differ, first {:?}",
        W::BITS,
        got.iter().zip(&want).position(|(a, b)| a != b)
    );
    emulation::transform_cluster(&p, &mut got, true).unwrap();
    assert!(got == x, "cluster round trip u{}", W::BITS);
}

#[test]
fn cluster_equals_radix2() {
    check_cluster::<u64>(62);
    check_cluster::<u32>(30);
    let p = NttParams::<u64>::with_prime_bits(1 << 12, 40).unwrap();
    let mut v = vec![0u64; 1 << 12];
    assert!(matches!(emulation::transform_cluster(&p, &mut v, false), Err(Error::InvalidN { .. })));
}

/// Row passes that hold rows of several polynomials per block (the batch's
/// power-of-two factor up to `lazy::ROW_POLYS_LOG_MAX`, `lazy::row_polys_log`:
/// 2 and 4 polynomials; one-pass sizes one polynomial per row) equal the
/// radix-2 kernels, forward, inverse and product, both words and radices;
/// a batch of 12 is 3 groups of 4 polynomials, 40 ten groups.
fn check_polys_per_block<W: Coeff>(bits: u32) {
    for (log_n, batch) in [(14u32, 4usize), (15, 4), (16, 2), (16, 8), (13, 12), (12, 6), (17, 4), (9, 40)] {
        let n = 1usize << log_n;
        let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
        let mut rng = SplitMix64::new(u64::from(log_n) * 31 + batch as u64);
        let mut x = rng.coeffs(batch * n, p.q());
        x[n - 1] = p.q() - W::one();
        x[batch * n - 1] = p.q() - W::one();
        let y = rng.coeffs(batch * n, p.q());
        let mut want = x.clone();
        emulation::forward(&p, &mut want).unwrap();
        let want_mul = emulation::polymul(&p, &x, &y).unwrap();
        for log_r in [None, Some(3), Some(4)] {
            let what = format!("N=2^{log_n} batch {batch} u{} r{log_r:?}", W::BITS);
            let mut got = x.clone();
            emulation::forward_lazy(&p, &mut got, log_r).unwrap();
            assert!(got == want, "forward {what}");
            emulation::inverse_lazy(&p, &mut got, log_r).unwrap();
            assert!(got == x, "round trip {what}");
            assert!(emulation::polymul_lazy(&p, &x, &y, log_r).unwrap() == want_mul, "polymul {what}");
        }
    }
}

#[test]
fn row_blocks_of_several_polynomials_equal_radix2() {
    check_polys_per_block::<u64>(62);
    check_polys_per_block::<u32>(30);
}

/// The fused kernels' code (both passes in one launch, blocks in ticket
/// order, the second pass reading what the first wrote) == the radix-2
/// transforms (`u32`: the word with fused kernels), several lags, batches of one and several
/// polynomials, edge inputs.
fn check_fused<W: Coeff>(bits: u32, sizes: &[u32]) {
    for &log_n in sizes {
        for (batch, lag) in [(1usize, 0u32), (3, 1), (3, 2), (4, 100)] {
            let n = 1usize << log_n;
            let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
            let mut rng = SplitMix64::new(u64::from(log_n) * 17 + batch as u64);
            let mut x = rng.coeffs(batch * n, p.q());
            x[0] = p.q() - W::one();
            x[batch * n - 1] = p.q() - W::one();
            let mut want = x.clone();
            emulation::forward(&p, &mut want).unwrap();
            let mut got = x.clone();
            emulation::transform_lazy_fused(&p, &mut got, false, lag).unwrap();
            assert!(got == want, "fused forward N=2^{log_n} batch {batch} lag {lag} u{}", W::BITS);
            emulation::transform_lazy_fused(&p, &mut got, true, lag).unwrap();
            assert!(got == x, "fused round trip N=2^{log_n} batch {batch} lag {lag} u{}", W::BITS);
        }
    }
}

#[test]
fn fused_equals_radix2() {
    check_fused::<u32>(30, &[15, 16, 18]);
    check_fused::<u32>(30, &[21]);
    let p = NttParams::<u32>::with_prime_bits(1 << 14, 30).unwrap();
    let mut v = vec![0u32; 1 << 14];
    assert!(matches!(emulation::transform_lazy_fused(&p, &mut v, false, 1), Err(Error::InvalidN { .. })));
    // No fused kernels for u64 (they measured slower).
    let p = NttParams::<u64>::with_prime_bits(1 << 16, 62).unwrap();
    let mut v = vec![0u64; 1 << 16];
    assert!(matches!(emulation::transform_lazy_fused(&p, &mut v, false, 1), Err(Error::InvalidN { .. })));
}

/// The latency schedule (two passes of two rows or columns per block, what
/// a plan launches for one polynomial or a few at N = 2^10 to 2^16): both
/// transforms equal the radix-2 kernels and the product equals the
/// schoolbook one, bit for bit, on random, all-(q − 1) and sparse inputs,
/// the widest modulus of each word.
fn check_latency<W: Coeff>(bits: u32) {
    for log_n in 10u32..=16 {
        let n = 1usize << log_n;
        let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
        let mut rng = SplitMix64::new(u64::from(log_n) * 77 + u64::from(bits));
        let x = inputs(n, p.q(), &mut rng);
        let mut want = x.clone();
        emulation::forward(&p, &mut want).unwrap();
        for log_r in [None, Some(2), Some(3), Some(4)] {
            let tag = format!("N=2^{log_n} u{} r{log_r:?}", W::BITS);
            let mut got = x.clone();
            emulation::transform_lazy_latency(&p, &mut got, false, log_r).unwrap();
            assert_eq!(to_u64(&got), to_u64(&want), "forward {tag}");
            emulation::transform_lazy_latency(&p, &mut got, true, log_r).unwrap();
            assert_eq!(to_u64(&got), to_u64(&x), "round trip {tag}");
            if log_n <= 11 {
                let (a, b) = (&x[..n], &x[2 * n..]);
                let prod = emulation::polymul_lazy_latency(&p, a, b, log_r).unwrap();
                let naive = cpu::negacyclic_naive(&to_u64(a), &to_u64(b), p.q().as_u64()).unwrap();
                assert_eq!(to_u64(&prod), naive, "polymul {tag}");
            }
            let prod = emulation::polymul_lazy_latency(&p, &x, &want, log_r).unwrap();
            assert_eq!(prod, emulation::polymul(&p, &x, &want).unwrap(), "batch polymul {tag}");
        }
    }
    let p = NttParams::<W>::with_prime_bits(1 << 9, bits).unwrap();
    let r = emulation::transform_lazy_latency(&p, &mut [W::zero(); 512], false, None);
    assert!(matches!(r, Err(Error::InvalidN { .. })));
    let p = NttParams::<W>::with_prime_bits(1 << 12, bits).unwrap();
    let r = emulation::transform_lazy_latency(&p, &mut [W::zero(); 1 << 12], false, Some(1));
    assert!(matches!(r, Err(Error::BadRadix { radix: 2 })));
}

#[test]
fn latency_schedule_equals_radix2_and_naive() {
    check_latency::<u64>(62);
    check_latency::<u32>(30);
}
