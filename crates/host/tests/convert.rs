//! The limb conversions on the CPU (the kernels' bodies, `RnsBasis::decompose`
//! and `RnsBasis::reconstruct`) against independent num-bigint arithmetic:
//! random values, 0, Q − 1, values at limb and tower boundaries, for Q from
//! one tower up to 4096 bits on both words; products reaching the largest
//! sums against the big-integer schoolbook product; the typed errors.

use num_bigint::BigUint;
use polymul::expert::SplitMix64;
use polymul::expert::emulation;
use polymul::rns::RnsBasis;
use polymul::{Coeff, Error, cpu};

/// A random integer below `q`.
fn below(rng: &mut SplitMix64, q: &BigUint) -> BigUint {
    let words = q.bits().div_ceil(32) as usize;
    let v = BigUint::new((0..words).map(|_| rng.next_u64() as u32).collect());
    v % q
}

/// Independent reference: residues tower-major by `%` on big integers.
fn residues_ref<W: Coeff>(basis: &RnsBasis<W>, xs: &[BigUint]) -> Vec<W> {
    let mut out = Vec::new();
    for q in basis.primes() {
        out.extend(xs.iter().map(|x| W::from_u64(u64::try_from(x % q).unwrap())));
    }
    out
}

/// Independent reference: limbs of `xs` by `to_u64_digits`.
fn limbs_ref(l: usize, xs: &[BigUint]) -> Vec<u64> {
    let mut out = vec![0u64; xs.len() * l];
    for (row, x) in out.chunks_exact_mut(l).zip(xs) {
        for (d, v) in row.iter_mut().zip(x.to_u64_digits()) {
            *d = v;
        }
    }
    out
}

/// The edge values of a basis: 0, 1, Q − 1, Q − 2, 2^(64j) ± 1 below Q,
/// Q/q_i and its neighbours, multiples of each q_i ± 1, Q − q_i, small and
/// near-Q values (whose quotient estimate needs the fix-up).
fn edges<W: Coeff>(basis: &RnsBasis<W>, rng: &mut SplitMix64) -> Vec<BigUint> {
    let q = basis.modulus().clone();
    let one = BigUint::from(1u32);
    let mut v = vec![BigUint::from(0u32), one.clone(), &q - 1u32, &q - 2u32, BigUint::from(2u32)];
    for j in 1..=basis.limbs() as u32 {
        let p = &one << (64 * j);
        for x in [&p - 1u32, p.clone(), &p + 1u32] {
            if x < q {
                v.push(x);
            }
        }
    }
    for p in basis.primes() {
        let qi = BigUint::from(p);
        let hat = &q / &qi;
        v.extend([hat.clone(), &hat - 1u32, &hat + 1u32, &q - &qi, qi.clone(), &qi - 1u32, &qi + 1u32]);
        let m = below(rng, &hat);
        let mult = &m * &qi;
        v.extend([mult.clone(), &mult + 1u32]);
        if mult > one {
            v.push(&mult - 1u32);
        }
        // x with x/Q just below 1 or just above 0 in the last tower's terms.
        v.push(&q - &hat);
    }
    v.retain(|x| x < &q);
    v
}

/// Pads `xs` with random values to a whole number of polynomials.
fn pad<W: Coeff>(
    basis: &RnsBasis<W>,
    mut xs: Vec<BigUint>,
    rng: &mut SplitMix64,
    polys: usize,
) -> Vec<BigUint> {
    let n = basis.n();
    let want = (xs.len().div_ceil(n)).max(polys) * n;
    while xs.len() < want {
        xs.push(below(rng, basis.modulus()));
    }
    xs
}

fn both_directions<W: Coeff>(basis: &RnsBasis<W>, seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let xs = pad(basis, edges(basis, &mut rng), &mut rng, 2);
    let limbs = limbs_ref(basis.limbs(), &xs);
    assert_eq!(basis.to_limbs(&xs).unwrap(), limbs);
    let want = residues_ref(basis, &xs);
    let got = basis.decompose(&limbs).unwrap();
    assert_eq!(got, want, "decompose, {} towers, {} bits", basis.len(), basis.modulus().bits());
    assert_eq!(basis.to_residues(&xs).unwrap(), want);
    let back = basis.reconstruct(&want).unwrap();
    assert_eq!(back, limbs, "CRT, {} towers, {} bits", basis.len(), basis.modulus().bits());
    assert_eq!(basis.from_limbs(&back).unwrap(), xs);
    // Random residues (every tower independent: uniform X in [0, Q)).
    let n = basis.n();
    let res: Vec<W> = basis.towers().iter().flat_map(|p| rng.coeffs(3 * n, p.q())).collect();
    let big = basis.from_residues(&res).unwrap();
    assert_eq!(basis.reconstruct(&res).unwrap(), limbs_ref(basis.limbs(), &big));
    assert_eq!(basis.decompose(&limbs_ref(basis.limbs(), &big)).unwrap(), res);
}

/// (bits per tower, log2 Q) pairs from one tower to 4096 bits.
const SIZES_U64: &[(u32, u64)] =
    &[(62, 62), (62, 64), (62, 124), (62, 200), (62, 1240), (62, 4096), (40, 300)];
const SIZES_U32: &[(u32, u64)] =
    &[(30, 30), (30, 64), (30, 65), (30, 130), (30, 1240), (30, 4096), (28, 500)];

#[test]
fn u64_towers_both_directions_match_num_bigint() {
    for (i, &(bits, log_q)) in SIZES_U64.iter().enumerate() {
        let basis = RnsBasis::<u64>::with_modulus_bits(16, bits, log_q).unwrap();
        both_directions(&basis, 100 + i as u64);
    }
}

#[test]
fn u32_towers_both_directions_match_num_bigint() {
    for (i, &(bits, log_q)) in SIZES_U32.iter().enumerate() {
        let basis = RnsBasis::<u32>::with_modulus_bits(16, bits, log_q).unwrap();
        both_directions(&basis, 200 + i as u64);
    }
}

#[test]
fn one_tower_and_exact_limb_boundaries() {
    // One tower: L = 1, Q = q.
    let b = RnsBasis::<u64>::new(8, 62, 1).unwrap();
    assert_eq!(b.limbs(), 1);
    both_directions(&b, 1);
    let b = RnsBasis::<u32>::new(8, 30, 1).unwrap();
    both_directions(&b, 2);
    // Q just above a limb boundary: two 62-bit primes give 123-124 bits, L = 2;
    // three 30-bit primes ≤ 90 bits, L = 2.
    both_directions(&RnsBasis::<u64>::new(8, 62, 2).unwrap(), 3);
    both_directions(&RnsBasis::<u32>::new(8, 30, 3).unwrap(), 4);
}

#[test]
fn larger_n_and_batches_cross_blocks() {
    // N = 2^10, 3 polynomials: several blocks, a partial last one never
    // (powers of two), and the multi-threaded path.
    let basis = RnsBasis::<u64>::with_modulus_bits(1 << 10, 62, 1240).unwrap();
    let mut rng = SplitMix64::new(9);
    let xs: Vec<BigUint> = (0..3 << 10).map(|_| below(&mut rng, basis.modulus())).collect();
    let limbs = limbs_ref(basis.limbs(), &xs);
    let res = basis.decompose(&limbs).unwrap();
    assert_eq!(res, residues_ref(&basis, &xs));
    assert_eq!(basis.reconstruct(&res).unwrap(), limbs);
}

/// Products whose coefficients reach the largest sums (every coefficient
/// Q − 1, then random) against the schoolbook product modulo Q.
fn products<W: Coeff>(bits: u32, log_q: u64, seed: u64) {
    let n = 16;
    let basis = RnsBasis::<W>::with_modulus_bits(n, bits, log_q).unwrap();
    let q = basis.modulus().clone();
    let mut rng = SplitMix64::new(seed);
    let top = vec![&q - 1u32; n];
    let rand: Vec<BigUint> = (0..n).map(|_| below(&mut rng, &q)).collect();
    for (a, b) in [(&top, &top), (&top, &rand), (&rand, &rand)] {
        let want = cpu::negacyclic_naive_big(a, b, &q).unwrap();
        assert_eq!(
            emulation::rns_polymul_big(&basis, a, b).unwrap(),
            want,
            "{bits}-bit towers, {log_q} bits"
        );
        let (la, lb) = (basis.to_limbs(a).unwrap(), basis.to_limbs(b).unwrap());
        assert_eq!(emulation::rns_polymul_limbs(&basis, &la, &lb).unwrap(), limbs_ref(basis.limbs(), &want));
    }
}

#[test]
fn products_match_the_schoolbook_product_mod_q() {
    products::<u64>(62, 62, 1);
    products::<u64>(62, 1240, 2);
    products::<u64>(62, 4096, 3);
    products::<u32>(30, 30, 4);
    products::<u32>(30, 1240, 5);
    products::<u32>(30, 4096, 6);
}

#[test]
fn bad_input_is_a_typed_error() {
    let basis = RnsBasis::<u64>::with_modulus_bits(8, 62, 200).unwrap();
    let (n, l) = (basis.n(), basis.limbs());
    assert_eq!(l, 4);
    // Lengths: not a multiple of N · L, empty.
    for len in [0, l, n * l - 1, n * l + 1] {
        match basis.decompose(&vec![0; len]) {
            Err(Error::NotAMultipleOfN { what: "limbs", got, n: per }) => {
                assert_eq!((got, per), (len, n * l))
            }
            other => panic!("{len}: {other:?}"),
        }
    }
    // A coefficient equal to Q, and one with every limb set.
    let mut limbs = vec![0u64; 2 * n * l];
    let ql = basis.modulus().to_u64_digits();
    limbs[5 * l..6 * l].copy_from_slice(&ql);
    match basis.decompose(&limbs) {
        Err(Error::BigCoefficientOutOfRange { index: 5, bits, q_bits, .. }) => {
            assert_eq!((bits, q_bits), (basis.modulus().bits(), basis.modulus().bits()))
        }
        other => panic!("{other:?}"),
    }
    limbs[5 * l..6 * l].fill(0);
    limbs[9 * l..10 * l].fill(u64::MAX);
    assert!(matches!(
        basis.check_limbs("x", &limbs),
        Err(Error::BigCoefficientOutOfRange { what: "x", index: 9, bits: 256, .. })
    ));
    assert!(matches!(basis.from_limbs(&limbs), Err(Error::BigCoefficientOutOfRange { index: 9, .. })));
    // Residues: a wrong length, a residue not below its prime.
    let k = basis.len();
    assert!(matches!(
        basis.reconstruct(&vec![0u64; k * n + 1]),
        Err(Error::NotAMultipleOfN { what: "residues", .. })
    ));
    let mut res = vec![0u64; k * n];
    res[n + 3] = basis.primes()[1];
    match basis.reconstruct(&res) {
        Err(Error::CoefficientOutOfRange { index, .. }) => assert_eq!(index, n + 3),
        other => panic!("{other:?}"),
    }
    // Big integers: Q itself, a wrong count.
    let mut xs = vec![BigUint::from(0u32); n];
    xs[2] = basis.modulus().clone();
    assert!(matches!(basis.to_limbs(&xs), Err(Error::BigCoefficientOutOfRange { index: 2, .. })));
    assert!(matches!(basis.to_limbs(&xs[1..]), Err(Error::NotAMultipleOfN { .. })));
    // Products: operands of different lengths.
    let a = vec![0u64; n * l];
    assert!(matches!(
        emulation::rns_polymul_limbs(&basis, &a, &a[..(n - 1) * l]),
        Err(Error::LengthMismatch { what: "b", .. })
    ));
}

#[test]
fn a_modulus_too_large_for_the_kernels_is_refused() {
    let basis = RnsBasis::<u32>::with_modulus_bits(16, 28, 12_000).unwrap();
    let limbs = vec![0u64; 16 * basis.limbs()];
    assert!(matches!(basis.decompose(&limbs), Err(Error::ConversionTooLarge { .. })));
    let res = vec![0u32; 16 * basis.len()];
    assert!(matches!(basis.reconstruct(&res), Err(Error::ConversionTooLarge { .. })));
}
