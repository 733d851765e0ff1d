//! RNS: bases, conversions and polymul modulo a large Q against big-integer
//! references.

use num_bigint::BigUint;
use polymul::expert::SplitMix64;
use polymul::expert::emulation;
use polymul::rns::RnsBasis;
use polymul::{Coeff, Error, cpu};

/// A random big integer below `q`, from 64-bit limbs.
fn below(rng: &mut SplitMix64, q: &BigUint) -> BigUint {
    let limbs = q.bits().div_ceil(64) as usize + 1;
    let v: Vec<u64> = (0..limbs).map(|_| rng.next_u64()).collect();
    let mut x = BigUint::from(0u32);
    for l in v {
        x = (x << 64u32) + l;
    }
    x % q
}

#[test]
fn bases_hold_distinct_ntt_primes_and_their_product() {
    let n = 1 << 12;
    let b = RnsBasis::<u64>::new(n, 62, 5).unwrap();
    let ps = b.primes();
    assert_eq!(ps.len(), 5);
    for (i, &q) in ps.iter().enumerate() {
        assert_eq!(q % (2 * n as u64), 1);
        assert_eq!(64 - q.leading_zeros(), 62);
        assert!(!ps[..i].contains(&q));
    }
    let prod: BigUint = ps.iter().map(|&q| BigUint::from(q)).product();
    assert_eq!(b.modulus(), &prod);
    // The paper's comparison: log2 Q = 1240 at N = 2^16 from 62-bit (u64),
    // 30-bit and 28-bit (u32) towers.
    let q62 = RnsBasis::<u64>::with_modulus_bits(1 << 16, 62, 1240).unwrap();
    let q30 = RnsBasis::<u32>::with_modulus_bits(1 << 16, 30, 1240).unwrap();
    let q28 = RnsBasis::<u32>::with_modulus_bits(1 << 16, 28, 1240).unwrap();
    for (b, bits) in [(q62.modulus(), 62), (q30.modulus(), 30), (q28.modulus(), 28)] {
        assert!(b.bits() >= 1240, "{bits}-bit towers give only {} bits", b.bits());
    }
    assert_eq!(q62.len(), 20);
    assert_eq!(q30.len(), 42);
    assert_eq!(q28.len(), 45);
    // Fewest towers: one fewer falls short of 1240 bits.
    let short = RnsBasis::<u32>::new(1 << 16, 30, q30.len() - 1).unwrap();
    assert!(short.modulus().bits() < 1240);
}

#[test]
fn bad_bases_are_typed_errors() {
    let n = 1 << 10;
    let q = polymul::params::ntt_primes(40, n, 2).unwrap();
    assert!(matches!(
        RnsBasis::<u64>::from_primes(n, &[q[0], q[1], q[0]]),
        Err(Error::DuplicatePrime { .. })
    ));
    assert!(matches!(RnsBasis::<u64>::from_primes(n, &[]), Err(Error::EmptyBasis)));
    assert!(matches!(RnsBasis::<u64>::new(n, 40, 0), Err(Error::EmptyBasis)));
    // Not prime; prime but q ≢ 1 (mod 2N); too wide for u32.
    assert!(RnsBasis::<u64>::from_primes(n, &[q[0], 15]).is_err());
    assert!(RnsBasis::<u64>::from_primes(n, &[1_000_000_007]).is_err());
    assert!(matches!(RnsBasis::<u32>::from_primes(n, &[q[0]]), Err(Error::ModulusTooWide { .. })));
}

#[test]
fn residues_round_trip_including_edges() {
    let n = 1 << 6;
    let b = RnsBasis::<u64>::new(n, 62, 4).unwrap();
    let q = b.modulus().clone();
    let mut rng = SplitMix64::new(9);
    let mut a: Vec<BigUint> = (0..2 * n).map(|_| below(&mut rng, &q)).collect();
    a[0] = BigUint::from(0u32);
    a[1] = &q - 1u32;
    let r = b.to_residues(&a).unwrap();
    assert_eq!(r.len(), 4 * 2 * n);
    for (i, &p) in b.primes().iter().enumerate() {
        assert_eq!(r[i * 2 * n + 1], u64::try_from((&q - 1u32) % p).unwrap());
    }
    assert_eq!(b.from_residues(&r).unwrap(), a);
    // A coefficient equal to Q, a wrong length: typed errors.
    let mut bad = a.clone();
    bad[7] = q.clone();
    assert!(matches!(b.to_residues(&bad), Err(Error::BigCoefficientOutOfRange { index: 7, .. })));
    assert!(matches!(b.to_residues(&a[..n + 1]), Err(Error::NotAMultipleOfN { .. })));
    assert!(b.from_residues(&r[..r.len() - 1]).is_err());
}

fn rns_polymul_matches_big_naive<W: Coeff>(n: usize, bits: u32, towers: usize, seed: u64) {
    let b = RnsBasis::<W>::new(n, bits, towers).unwrap();
    let q = b.modulus().clone();
    let mut rng = SplitMix64::new(seed);
    let x: Vec<BigUint> = (0..n).map(|_| below(&mut rng, &q)).collect();
    let mut y: Vec<BigUint> = (0..n).map(|_| below(&mut rng, &q)).collect();
    y[n - 1] = &q - 1u32;
    let want = cpu::negacyclic_naive_big(&x, &y, &q).unwrap();
    let (rx, ry) = (b.to_residues(&x).unwrap(), b.to_residues(&y).unwrap());
    let got = b.from_residues(&emulation::rns_polymul(&b, &rx, &ry).unwrap()).unwrap();
    assert_eq!(got, want, "u{} N={n} {towers}×{bits}-bit towers", W::BITS);
}

/// Polymul modulo Q through the towers equals the big-integer schoolbook
/// product modulo Q.
#[test]
fn rns_polymul_equals_big_integer_naive_convolution() {
    rns_polymul_matches_big_naive::<u64>(16, 62, 3, 1);
    rns_polymul_matches_big_naive::<u64>(256, 62, 5, 2);
    rns_polymul_matches_big_naive::<u32>(64, 30, 6, 3);
    rns_polymul_matches_big_naive::<u32>(1024, 28, 4, 4);
}

/// The big-integer reference itself against the u64 one, where both apply.
#[test]
fn big_naive_agrees_with_word_naive() {
    let q = polymul::params::ntt_primes(62, 64, 1).unwrap()[0];
    let mut rng = SplitMix64::new(5);
    let a: Vec<u64> = (0..64).map(|_| rng.next_u64() % q).collect();
    let c: Vec<u64> = (0..64).map(|_| rng.next_u64() % q).collect();
    let big = |v: &[u64]| v.iter().map(|&x| BigUint::from(x)).collect::<Vec<_>>();
    let want = cpu::negacyclic_naive(&a, &c, q).unwrap();
    assert_eq!(cpu::negacyclic_naive_big(&big(&a), &big(&c), &BigUint::from(q)).unwrap(), big(&want));
}
