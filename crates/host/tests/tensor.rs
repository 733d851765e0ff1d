//! The ciphertext tensor product (`Tensor::tensor_into`, `Plan::tensor`)
//! on the CPU: every CPU path (the CPU backend's transforms with the
//! tensor kernel's own code, the composition through products any plan
//! runs, the planner's `Multiplier`) against a schoolbook negacyclic
//! product written here in `u128`, bit for bit, at the largest prime of
//! each word, with the edge operands 0 and q − 1; and the typed errors of
//! bad shapes and unreduced words. The GPU paths are checked against the
//! CPU in the check suite (`polymul-bench check --only ciphertext`).
//!
//! Run with `cargo test -p polymul --test tensor`.

use polymul::cpu::{CpuPlan, CpuRnsPlan};
use polymul::expert::SplitMix64;
use polymul::params::NttParams;
use polymul::planner::{Modulus, Multiplier};
use polymul::prelude::*;
use polymul::rns::RnsBasis;
use polymul::{Coeff, Error, tensor_by_products};

/// `a · b mod (X^n + 1, q)`, schoolbook in `u128`.
fn schoolbook(a: &[u64], b: &[u64], q: u64) -> Vec<u64> {
    let n = a.len();
    let q = q as u128;
    let mut c = vec![0u128; n];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let p = x as u128 * y as u128 % q;
            let k = (i + j) % n;
            c[k] = if i + j < n { (c[k] + p) % q } else { (c[k] + q - p) % q };
        }
    }
    c.into_iter().map(|x| x as u64).collect()
}

/// The three products of every ciphertext of every tower, tower-major
/// (the layout of `polymul::Tensor`).
fn reference(a: &[u64], b: &[u64], n: usize, moduli: &[u64]) -> Vec<u64> {
    let per = a.len() / moduli.len();
    let m = per / (2 * n);
    let mut out = Vec::with_capacity(a.len() / 2 * 3);
    for (t, &q) in moduli.iter().enumerate() {
        let poly = |v: &[u64], k: usize| v[t * per + k * n..t * per + (k + 1) * n].to_vec();
        for j in 0..m {
            let (a0, a1, b0, b1) = (poly(a, 2 * j), poly(a, 2 * j + 1), poly(b, 2 * j), poly(b, 2 * j + 1));
            out.extend(schoolbook(&a0, &b0, q));
            let (x, y) = (schoolbook(&a0, &b1, q), schoolbook(&a1, &b0, q));
            out.extend(x.iter().zip(&y).map(|(&u, &v)| ((u as u128 + v as u128) % q as u128) as u64));
            out.extend(schoolbook(&a1, &b1, q));
        }
    }
    out
}

/// Tower-major words of `polys` polynomials per tower: random below each
/// modulus, with 0 and q − 1 mixed in (`edge`: 0 random, 1 all q − 1, 2 a
/// mix of 0, q − 1 and random).
fn words<W: Coeff>(rng: &mut SplitMix64, n: usize, polys: usize, moduli: &[u64], edge: u8) -> Vec<W> {
    let mut v = Vec::with_capacity(n * polys * moduli.len());
    for &q in moduli {
        for _ in 0..n * polys {
            let r = rng.next_u64();
            v.push(W::from_u64(match (edge, r % 4) {
                (1, _) => q - 1,
                (2, 0) => 0,
                (2, 1) => q - 1,
                _ => r % q,
            }));
        }
    }
    v
}

fn wide<W: Coeff>(v: &[W]) -> Vec<u64> {
    v.iter().map(|x| x.as_u64()).collect()
}

/// Every CPU path of one word: an RNS plan of 3 towers at the word's
/// largest prime width, two ciphertexts, each edge mix.
fn all_paths_equal_the_schoolbook<W: Coeff>(bits: u32) {
    let n = 1 << 6;
    let basis = RnsBasis::<W>::new(n, bits, 3).unwrap();
    let moduli = basis.primes();
    let rns = CpuRnsPlan::new(&basis).unwrap();
    let mul = Multiplier::<W>::cpu(n, Modulus::Primes(moduli.clone())).unwrap();
    let mut rng = SplitMix64::new(u64::from(bits));
    for edge in 0..3 {
        let (a, b) =
            (words::<W>(&mut rng, n, 4, &moduli, edge), words::<W>(&mut rng, n, 4, &moduli, 2 - edge));
        let want = reference(&wide(&a), &wide(&b), n, &moduli);
        assert_eq!(wide(&rns.tensor(&a, &b).unwrap()), want, "CpuRnsPlan::tensor, edge {edge}");
        let mut out = vec![W::default(); want.len()];
        rns.tensor_into(&a[..], &b[..], &mut out[..]).unwrap();
        assert_eq!(wide(&out), want, "CpuRnsPlan::tensor_into, edge {edge}");
        assert_eq!(wide(&tensor_by_products(&rns, &a, &b).unwrap()), want, "tensor_by_products, edge {edge}");
        assert_eq!(wide(&mul.tensor(&a, &b).unwrap()), want, "Multiplier::tensor, edge {edge}");
        let mut out = vec![W::default(); want.len()];
        Tensor::<W, [W]>::tensor_into(&mul, &a[..], &b[..], &mut out[..]).unwrap();
        assert_eq!(wide(&out), want, "Multiplier::tensor_into, edge {edge}");
    }
    // One prime: CpuPlan, one ciphertext.
    let one = CpuPlan::new(NttParams::<W>::with_prime_bits(n, bits).unwrap()).unwrap();
    let q = one.moduli();
    let (a, b) = (words::<W>(&mut rng, n, 2, &q, 2), words::<W>(&mut rng, n, 2, &q, 1));
    assert_eq!(wide(&one.tensor(&a, &b).unwrap()), reference(&wide(&a), &wide(&b), n, &q), "CpuPlan");
}

#[test]
fn u32_paths_equal_the_schoolbook_at_30_bits() {
    all_paths_equal_the_schoolbook::<u32>(30);
}

#[test]
fn u64_paths_equal_the_schoolbook_at_62_bits() {
    all_paths_equal_the_schoolbook::<u64>(62);
}

#[test]
fn bad_shapes_and_unreduced_words_are_typed_errors() {
    let n = 1 << 4;
    let basis = RnsBasis::<u64>::new(n, 50, 2).unwrap();
    let plan = CpuRnsPlan::new(&basis).unwrap();
    let moduli = basis.primes();
    let a = vec![1u64; 2 * 2 * n];
    let odd = vec![1u64; 2 * 3 * n];
    assert!(matches!(plan.tensor(&odd, &odd), Err(Error::NotCiphertexts { what: "a", polys: 3 })));
    assert!(matches!(plan.tensor(&a[1..], &a[1..]), Err(Error::NotAMultipleOfN { what: "a", .. })));
    assert!(matches!(plan.tensor(&a, &a[..2 * n]), Err(Error::LengthMismatch { what: "b", .. })));
    let mut short = vec![0u64; 5 * n];
    assert!(matches!(
        plan.tensor_into(&a[..], &a[..], &mut short[..]),
        Err(Error::LengthMismatch { what: "out", expected, .. }) if expected == 6 * n
    ));
    // The second tower's first word equal to its prime: indexed into the whole buffer.
    let mut bad = a.clone();
    bad[2 * n] = moduli[1];
    for r in [plan.tensor(&a, &bad), tensor_by_products(&plan, &a, &bad)] {
        assert!(
            matches!(r, Err(Error::CoefficientOutOfRange { what: "b", index, q, .. }) if index == 2 * n && q == moduli[1]),
            "{r:?}"
        );
    }
}

/// The tensor-source inverse row pass (the GPU's four-launch tensor
/// product: both forwards, then an inverse whose first pass reads the
/// products itself) run on the CPU (`emulation::tensor_lazy`): against the
/// schoolbook at N = 2^8 (the one-pass row of 2^8 points) and against the
/// CPU backend at N = 2^16 (the ciphertexts' size, column and row passes),
/// one and two ciphertexts, edge words, the largest prime of each word.
fn tensor_source_pass_equals_the_reference<W: Coeff>(bits: u32) {
    use polymul::expert::emulation::tensor_lazy;
    let mut rng = SplitMix64::new(u64::from(bits) ^ 0x7e45);
    for (log_n, m) in [(8u32, 1usize), (8, 2), (16, 1)] {
        let n = 1usize << log_n;
        let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
        let q = vec![p.q().as_u64()];
        for edge in 0..3u8 {
            let (a, b) =
                (words::<W>(&mut rng, n, 2 * m, &q, edge), words::<W>(&mut rng, n, 2 * m, &q, 2 - edge));
            let got = wide(&tensor_lazy(&p, &a, &b).unwrap());
            let want = if log_n <= 8 {
                reference(&wide(&a), &wide(&b), n, &q)
            } else {
                wide(&CpuPlan::new(p.clone()).unwrap().tensor(&a, &b).unwrap())
            };
            assert_eq!(got, want, "u{} N=2^{log_n} m={m} edge {edge}", W::BITS);
        }
    }
    // N without a tensor-source kernel: a typed error.
    let p = NttParams::<W>::with_prime_bits(1 << 12, bits).unwrap();
    let z = vec![W::default(); 2 << 12];
    assert!(matches!(tensor_lazy(&p, &z, &z), Err(Error::InvalidN { .. })));
}

#[test]
fn u32_tensor_source_pass_equals_the_reference() {
    tensor_source_pass_equals_the_reference::<u32>(30);
}

#[test]
fn u64_tensor_source_pass_equals_the_reference() {
    tensor_source_pass_equals_the_reference::<u64>(62);
}
