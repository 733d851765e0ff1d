//! One conformance check for every plan kind, through the plan traits
//! alone: whatever implements [`Product`] on host slices (all six plan
//! kinds) is held to the naive reference ([`crate::cpu::negacyclic_naive`],
//! `u128` schoolbook arithmetic sharing no code with any transform), and
//! whatever implements [`Transform`] to its round trip and its pointwise
//! product. The host crate's tests run it on the CPU plans in CI; the GPU
//! check suite (`polymul-bench check --only plans`) runs it on the GPU
//! plans.

use crate::random::SplitMix64;
use crate::{Coeff, Error, Product, Transform};

/// A failed conformance check: which one, and what differed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The check, e.g. `polymul_into leaves a intact`.
    pub check: String,
    /// What differed (first differing index, or the unexpected result).
    pub detail: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.check, self.detail)
    }
}

impl std::error::Error for Mismatch {}

fn fail(check: &str, detail: impl Into<String>) -> Mismatch {
    Mismatch { check: check.into(), detail: detail.into() }
}

/// Equal words, or the first difference.
fn same<W: Coeff>(check: &str, got: &[W], want: &[W]) -> Result<(), Mismatch> {
    if got.len() != want.len() {
        return Err(fail(check, format!("{} words, expected {}", got.len(), want.len())));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(fail(check, format!("word {i}: {} instead of {}", got[i], want[i]))),
    }
}

/// `Ok` from a plan call, or the error as a mismatch.
fn ok<T>(check: &str, r: crate::Result<T>) -> Result<T, Mismatch> {
    r.map_err(|e| fail(check, format!("unexpected error: {e}")))
}

/// The naive negacyclic product of tower-major `a` and `b` (`batch`
/// polynomials of `n` words per tower, one modulus per tower).
fn naive<W: Coeff>(moduli: &[u64], n: usize, a: &[W], b: &[W]) -> Result<Vec<W>, Mismatch> {
    let mut out = Vec::with_capacity(a.len());
    let per_tower = a.len() / moduli.len().max(1);
    for (t, &q) in moduli.iter().enumerate() {
        for k in (0..per_tower).step_by(n) {
            let at: Vec<u64> = a[t * per_tower + k..][..n].iter().map(|w| w.as_u64()).collect();
            let bt: Vec<u64> = b[t * per_tower + k..][..n].iter().map(|w| w.as_u64()).collect();
            let c = negacyclic(&at, &bt, q)?;
            out.extend(c.into_iter().map(W::from_u64));
        }
    }
    Ok(out)
}

fn negacyclic(a: &[u64], b: &[u64], q: u64) -> Result<Vec<u64>, Mismatch> {
    crate::cpu::negacyclic_naive(a, b, q).map_err(|e| fail("the naive reference", e.to_string()))
}

/// Tower-major words: `batch` polynomials per tower, each word below its
/// tower's modulus, drawn by `word(rng, q)`.
fn words<W: Coeff>(moduli: &[u64], n: usize, batch: usize, mut word: impl FnMut(u64) -> u64) -> Vec<W> {
    moduli.iter().flat_map(|&q| (0..n * batch).map(|_| W::from_u64(word(q))).collect::<Vec<_>>()).collect()
}

/// Holds `plan`'s products on host slices to the naive reference: random
/// operands (`batch` polynomials per tower), the edge operands 0 and
/// `q − 1`, `polymul`, `polymul_into` (operands left intact) and
/// `polymul_in_place`, and the typed errors of bad input (unreduced words,
/// lengths that differ or are no multiple of `towers · N`). Returns the
/// number of checks passed.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_product<W: Coeff, P: Product<W, [W]> + ?Sized>(
    plan: &P,
    batch: usize,
    seed: u64,
) -> Result<usize, Mismatch> {
    let (n, moduli) = (plan.n(), plan.moduli());
    let mut rng = SplitMix64::new(seed);
    let mut passed = 0;
    let cases: [(&str, Vec<W>, Vec<W>); 3] = [
        (
            "random operands",
            words(&moduli, n, batch, |q| rng.below(q)),
            words(&moduli, n, batch, |q| rng.below(q)),
        ),
        ("q − 1 times q − 1", words(&moduli, n, batch, |q| q - 1), words(&moduli, n, batch, |q| q - 1)),
        ("0 times q − 1", words(&moduli, n, batch, |_| 0), words(&moduli, n, batch, |q| q - 1)),
    ];
    for (case, a, b) in cases {
        let want = naive(&moduli, n, &a, &b)?;
        let check = format!("polymul, {case}");
        same(&check, &ok(&check, plan.polymul(&a, &b))?, &want)?;

        let check = format!("polymul_into, {case}");
        let mut out = vec![W::from_u64(0); a.len()];
        let (a0, b0) = (a.clone(), b.clone());
        ok(&check, plan.polymul_into(&a[..], &b[..], &mut out[..]))?;
        same(&check, &out, &want)?;
        same(&format!("{check}: a intact"), &a, &a0)?;
        same(&format!("{check}: b intact"), &b, &b0)?;

        let check = format!("polymul_in_place, {case}");
        let (mut x, mut y) = (a.clone(), b.clone());
        ok(&check, plan.polymul_in_place(&mut x[..], &mut y[..]))?;
        same(&check, &x, &want)?;
        passed += 3;
    }

    // Bad input: typed errors, the output left alone.
    let a: Vec<W> = words(&moduli, n, batch, |q| rng.below(q));
    let mut unreduced = a.clone();
    let last = unreduced.len() - 1;
    unreduced[last] = W::from_u64(moduli[moduli.len() - 1]);
    match plan.polymul(&unreduced, &a) {
        Err(Error::CoefficientOutOfRange { index, .. }) if index == last => passed += 1,
        other => {
            return Err(fail("a word equal to q", format!("{other:?} instead of CoefficientOutOfRange")));
        }
    }
    match plan.polymul(&a, &a[..a.len() - n]) {
        Err(Error::LengthMismatch { .. } | Error::NotAMultipleOfN { .. }) => passed += 1,
        other => return Err(fail("operands of different lengths", format!("{other:?}"))),
    }
    match plan.polymul(&a[1..], &a[1..]) {
        Err(Error::NotAMultipleOfN { .. }) => passed += 1,
        other => return Err(fail("a length that is no multiple of towers · N", format!("{other:?}"))),
    }
    let mut out = vec![W::from_u64(1); a.len()];
    match plan.polymul_into(&unreduced[..], &a[..], &mut out[..]) {
        Err(Error::CoefficientOutOfRange { .. }) if out.iter().all(|w| w.as_u64() == 1) => passed += 1,
        other => return Err(fail("polymul_into of an unreduced word", format!("{other:?}, or out written"))),
    }
    Ok(passed)
}

/// [`check_product`], then `plan`'s NTT on host slices: the round trip
/// `inverse(forward(x)) = x` (random and edge words) and the product
/// through the transform domain, `inverse(forward(a) ⊙ forward(b))`,
/// against the naive reference. Returns the number of checks passed.
///
/// # Errors
/// The first [`Mismatch`].
pub fn check_transform<W: Coeff, P: Transform<W, [W]> + ?Sized>(
    plan: &P,
    batch: usize,
    seed: u64,
) -> Result<usize, Mismatch> {
    let mut passed = check_product(plan, batch, seed)?;
    let (n, moduli) = (plan.n(), plan.moduli());
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    for (case, x) in [
        ("random words", words::<W>(&moduli, n, batch, |q| rng.below(q))),
        ("q − 1", words(&moduli, n, batch, |q| q - 1)),
        ("0", words(&moduli, n, batch, |_| 0)),
    ] {
        let check = format!("inverse(forward(x)) = x, {case}");
        let mut y = x.clone();
        ok(&check, plan.forward(&mut y[..]))?;
        ok(&check, plan.inverse(&mut y[..]))?;
        same(&check, &y, &x)?;
        passed += 1;
    }
    let a: Vec<W> = words(&moduli, n, batch, |q| rng.below(q));
    let b: Vec<W> = words(&moduli, n, batch, |q| rng.below(q));
    let check = "inverse(forward(a) ⊙ forward(b)) = a ⊗ b";
    let (mut fa, mut fb) = (a.clone(), b.clone());
    ok(check, plan.forward(&mut fa[..]))?;
    ok(check, plan.forward(&mut fb[..]))?;
    ok(check, plan.pointwise_mul(&mut fa[..], &fb[..]))?;
    ok(check, plan.inverse(&mut fa[..]))?;
    same(check, &fa, &naive(&moduli, n, &a, &b)?)?;
    Ok(passed + 1)
}
