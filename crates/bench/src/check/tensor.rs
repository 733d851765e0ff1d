//! The ciphertext tensor product on the GPU (issue 54) against the CPU
//! backend, bit for bit: `RnsPlan` and `NttPlan` (one prime), both words,
//! every entry point (`Plan::tensor` on host words, `Tensor::tensor_into`
//! on host slices and on device views, the inherent `tensor_in_place`, the
//! planner's `Multiplier`), one and three ciphertexts, random words with 0
//! and q − 1 mixed in and all-(q − 1) operands; and the typed errors of bad
//! shapes and of a fused-polymul plan. The CPU backend itself is checked
//! against a `u128` schoolbook product in CI (`crates/host/tests/tensor.rs`).

use super::{Tally, eq, s};
use polymul::cpu::CpuRnsPlan;
use polymul::expert::{PlanOptions, SplitMix64};
use polymul::planner::{Modulus, Multiplier};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, DeviceView, Error, Gpu, NttPlan};

/// Tower-major words of `polys` polynomials per tower (`edge`: 0 random
/// with 0 and q − 1 mixed in, 1 all q − 1).
fn words<W: Coeff>(basis: &RnsBasis<W>, polys: usize, seed: u64, edge: u8) -> Vec<W> {
    let mut rng = SplitMix64::new(seed);
    let mut v = Vec::with_capacity(basis.len() * polys * basis.n());
    for p in basis.towers() {
        let q = p.q().as_u64();
        for _ in 0..polys * basis.n() {
            let r = rng.next_u64();
            v.push(W::from_u64(match (edge, r % 8) {
                (1, _) | (0, 0) => q - 1,
                (0, 1) => 0,
                _ => r % q,
            }));
        }
    }
    v
}

/// Every entry point of one basis against the CPU backend.
fn entry_points<W: Coeff>(gpu: &Gpu, basis: &RnsBasis<W>, m: usize, seed: u64) -> Result<(), String> {
    let cpu = CpuRnsPlan::new(basis).map_err(s)?;
    let plan = RnsPlan::with_options(gpu, basis, crate::env_options::plan_options()).map_err(s)?;
    for edge in 0..2u8 {
        let (x, y) = (words(basis, 2 * m, seed ^ u64::from(edge), edge), words(basis, 2 * m, seed ^ 7, 0));
        let want = cpu.tensor(&x, &y).map_err(s)?;
        eq("RnsPlan::tensor (host words)", &plan.tensor(&x, &y).map_err(s)?, &want)?;
        let mut out = vec![W::default(); want.len()];
        Tensor::<W, [W]>::tensor_into(&plan, &x[..], &y[..], &mut out[..]).map_err(s)?;
        eq("RnsPlan::tensor_into (host slices)", &out, &want)?;
        let (a, b) = (plan.upload(&x).map_err(s)?, plan.upload(&y).map_err(s)?);
        let mut d = plan.zeros(3 * m).map_err(s)?;
        plan.tensor_into(&*a, &*b, &mut *d).map_err(s)?;
        eq("RnsPlan::tensor_into (device views)", &plan.download(&d).map_err(s)?, &want)?;
        eq("tensor_into left a intact", &plan.download(&a).map_err(s)?, &x)?;
        eq("tensor_into left b intact", &plan.download(&b).map_err(s)?, &y)?;
        let (mut a, mut b) = (a, b);
        let mut d = plan.zeros(3 * m).map_err(s)?;
        plan.tensor_in_place(&mut a, &mut b, &mut d).map_err(s)?;
        eq("RnsPlan::tensor_in_place", &plan.download(&d).map_err(s)?, &want)?;
        let mut fx = x.clone();
        cpu.forward(&mut fx[..]).map_err(s)?;
        eq("tensor_in_place leaves a in the NTT domain", &plan.download(&a).map_err(s)?, &fx)?;
    }
    // The planner's Multiplier on the same primes, device views.
    let mul = Multiplier::<W>::new(gpu, basis.n(), Modulus::Primes(basis.primes()), 2 * m).map_err(s)?;
    if mul.rns_plan().is_some() || basis.len() == 1 {
        let (x, y) = (words(basis, 2 * m, seed ^ 11, 0), words(basis, 2 * m, seed ^ 12, 0));
        let want = cpu.tensor(&x, &y).map_err(s)?;
        let (a, b) = (mul.upload(&x).map_err(s)?, mul.upload(&y).map_err(s)?);
        let mut d = mul.zeros(3 * m).map_err(s)?;
        match Tensor::<W, DeviceView<W>>::tensor_into(&mul, &a, &b, &mut d) {
            Ok(()) => eq("Multiplier::tensor_into (device views)", &mul.download(&d).map_err(s)?, &want)?,
            // The planner may choose the DGT, which has no device tensor.
            Err(Error::NotNttDomain) => {}
            Err(e) => return Err(format!("Multiplier::tensor_into: {e}")),
        }
        eq("Multiplier::tensor (host words)", &mul.tensor(&x, &y).map_err(s)?, &want)?;
    }
    Ok(())
}

/// One prime: `NttPlan` against `CpuRnsPlan` on a one-tower basis.
fn one_prime<W: Coeff>(gpu: &Gpu, basis: &RnsBasis<W>, seed: u64) -> Result<(), String> {
    let cpu = CpuRnsPlan::new(basis).map_err(s)?;
    let p = basis.towers()[0].clone();
    let plan = NttPlan::with_options(gpu, p, crate::env_options::plan_options()).map_err(s)?;
    let (x, y) = (words(basis, 4, seed, 0), words(basis, 4, seed ^ 3, 1));
    let want = cpu.tensor(&x, &y).map_err(s)?;
    eq("NttPlan::tensor (host words)", &plan.tensor(&x, &y).map_err(s)?, &want)?;
    let (a, b) = (plan.upload(&x).map_err(s)?, plan.upload(&y).map_err(s)?);
    let mut d = plan.zeros(6).map_err(s)?;
    plan.tensor_into(&*a, &*b, &mut *d).map_err(s)?;
    eq("NttPlan::tensor_into (device views)", &plan.download(&d).map_err(s)?, &want)
}

/// Bad shapes and a fused-polymul plan give typed errors before any work.
fn errors(gpu: &Gpu) -> Result<(), String> {
    let basis = RnsBasis::<u32>::new(1 << 12, 30, 3).map_err(s)?;
    let plan = RnsPlan::new(gpu, &basis).map_err(s)?;
    let (a, b) = (plan.zeros(3).map_err(s)?, plan.zeros(3).map_err(s)?);
    let mut out = plan.zeros(6).map_err(s)?;
    match plan.tensor_into(&*a, &*b, &mut *out) {
        Err(Error::NotCiphertexts { polys: 3, .. }) => {}
        r => return Err(format!("three polynomials per tower: expected NotCiphertexts, got {r:?}")),
    }
    let (a, b) = (plan.zeros(2).map_err(s)?, plan.zeros(2).map_err(s)?);
    match plan.tensor_into(&*a, &*b, &mut *out) {
        Err(Error::LengthMismatch { what: "out", .. }) => {}
        r => return Err(format!("out of 6 polynomials per tower: expected LengthMismatch, got {r:?}")),
    }
    let fused =
        RnsPlan::with_options(gpu, &basis, PlanOptions { fused_polymul: true, ..PlanOptions::default() })
            .map_err(s)?;
    let (mut a, mut b, mut out) =
        (fused.zeros(2).map_err(s)?, fused.zeros(2).map_err(s)?, fused.zeros(3).map_err(s)?);
    match fused.tensor_in_place(&mut a, &mut b, &mut out) {
        Err(Error::FusedPlanTransform) => Ok(()),
        r => Err(format!("a fused-polymul plan: expected FusedPlanTransform, got {r:?}")),
    }
}

/// The suite.
pub fn tensor_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let shapes: [(usize, usize, usize); 3] = [(1 << 12, 3, 1), (1 << 12, 3, 3), (1 << 16, 32, 1)];
    for (n, towers, m) in shapes {
        let r = RnsBasis::<u32>::new(n, 30, towers).map_err(s).and_then(|b| entry_points(gpu, &b, m, seed));
        t.record(&format!("tensor: u32 30-bit N={n} L={towers} × {m} ciphertext(s)"), r);
    }
    for (n, towers, m) in [(1 << 12, 3, 2), (1 << 16, 20, 1)] {
        let r =
            RnsBasis::<u64>::new(n, 62, towers).map_err(s).and_then(|b| entry_points(gpu, &b, m, seed ^ 5));
        t.record(&format!("tensor: u64 62-bit N={n} L={towers} × {m} ciphertext(s)"), r);
    }
    let r = RnsBasis::<u32>::new(1 << 14, 30, 1).map_err(s).and_then(|b| one_prime(gpu, &b, seed ^ 9));
    t.record("tensor: u32 NttPlan N=2^14, two ciphertexts", r);
    let r = RnsBasis::<u64>::new(1 << 10, 62, 1).map_err(s).and_then(|b| one_prime(gpu, &b, seed ^ 10));
    t.record("tensor: u64 NttPlan N=2^10, two ciphertexts", r);
    t.record("tensor: bad shapes and a fused plan are typed errors", errors(gpu));
}
