//! All six plan kinds through the same traits ([`Product`] on host slices
//! for every kind, [`Transform`] for those whose domain is the NTT), held
//! to the naive reference by `polymul::expert::conformance`. The CPU plans
//! run everywhere (CI); the GPU plans run where a GPU is present (the GPU
//! check suite runs the same checks: `polymul-bench check --only plans`).

use polymul::expert::conformance::{check_product, check_transform};
use polymul::prelude::*;
use polymul::{
    CpuPlan, CpuRnsPlan, DgtParams, DgtPlan, Gpu, Modulus, Multiplier, NttParams, NttPlan, RnsBasis, RnsPlan,
};

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// The largest allowed primes of each word (62 and 30 bits) and a small one (the smallest width polymul accepts is 20 bits).
fn widths<W: polymul::Coeff>() -> [u32; 2] {
    if W::BITS == 64 { [62, 21] } else { [30, 20] }
}

fn cpu_kinds<W: polymul::Coeff>() {
    for log_n in [1u32, 4, 8] {
        let n = 1 << log_n;
        for bits in widths::<W>() {
            let cpu = CpuPlan::<W>::new(NttParams::with_prime_bits(n, bits).unwrap()).unwrap();
            check_transform(&cpu, 3, SEED).unwrap_or_else(|m| panic!("CpuPlan N={n} {bits}-bit: {m}"));
            let basis = RnsBasis::<W>::new(n, bits, 3).unwrap();
            let rns = CpuRnsPlan::new(&basis).unwrap();
            check_transform(&rns, 2, SEED).unwrap_or_else(|m| panic!("CpuRnsPlan N={n} {bits}-bit: {m}"));
            let m = Multiplier::<W>::cpu(n, Modulus::Rns { bits, towers: 2 }).unwrap();
            check_transform(&m, 2, SEED).unwrap_or_else(|e| panic!("Multiplier (CPU) N={n} {bits}-bit: {e}"));
        }
    }
}

#[test]
fn cpu_plan_kinds_conform_u64() {
    cpu_kinds::<u64>();
}

#[test]
fn cpu_plan_kinds_conform_u32() {
    cpu_kinds::<u32>();
}

/// A generic function over the trait objects: every plan kind is usable as
/// `&dyn Product<W, [W]>` (what an application stores).
#[test]
fn plan_kinds_are_trait_objects() {
    let n = 1 << 6;
    let cpu = CpuPlan::<u64>::new(NttParams::with_prime_bits(n, 62).unwrap()).unwrap();
    let m = Multiplier::<u64>::cpu(n, Modulus::Bits(62)).unwrap();
    let plans: [&dyn Product<u64, [u64]>; 2] = [&cpu, &m];
    for p in plans {
        assert_eq!(p.n(), n);
        check_product(p, 1, SEED).unwrap();
    }
}

fn gpu_kinds<W: polymul::Coeff>(gpu: &Gpu) {
    for log_n in [4u32, 10] {
        let n = 1 << log_n;
        let bits = widths::<W>()[0];
        let ntt = NttPlan::new(gpu, NttParams::<W>::with_prime_bits(n, bits).unwrap()).unwrap();
        check_transform(&ntt, 3, SEED).unwrap_or_else(|m| panic!("NttPlan N={n}: {m}"));
        let rns = RnsPlan::new(gpu, &RnsBasis::<W>::new(n, bits, 3).unwrap()).unwrap();
        check_transform(&rns, 2, SEED).unwrap_or_else(|m| panic!("RnsPlan N={n}: {m}"));
        let dgt_bits = if W::BITS == 64 { 62 } else { 30 };
        let p = DgtParams::<W>::with_prime_bits(n, dgt_bits).unwrap();
        let dgt = DgtPlan::new(gpu, p, polymul::dgt::DgtConfig::default_for(log_n - 1)).unwrap();
        check_product(&dgt, 2, SEED).unwrap_or_else(|m| panic!("DgtPlan N={n}: {m}"));
        let m = Multiplier::<W>::new(gpu, n, Modulus::Bits(bits), 2).unwrap();
        check_transform(&m, 2, SEED).unwrap_or_else(|e| panic!("Multiplier (GPU) N={n}: {e}"));
    }
}

#[test]
fn gpu_plan_kinds_conform() {
    let Ok(gpu) = Gpu::new() else {
        eprintln!("no GPU: the GPU plan kinds are checked by polymul-bench check --only plans");
        return;
    };
    gpu_kinds::<u64>(&gpu);
    gpu_kinds::<u32>(&gpu);
}
