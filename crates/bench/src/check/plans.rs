//! All six plan kinds through the same traits, on a GPU: the host crate's
//! conformance checks (`polymul::expert::conformance`, the naive reference,
//! edge operands 0 and q − 1, in- and out-of-place products, round trips,
//! the product through the transform domain, typed errors) on `NttPlan`,
//! `RnsPlan`, `DgtPlan` and a GPU `Multiplier` — the same checks the host
//! crate's tests run on `CpuPlan`, `CpuRnsPlan` and a CPU `Multiplier` in
//! CI, run here on those too.

use super::Tally;
use polymul::dgt::DgtConfig;
use polymul::expert::conformance::{check_product, check_transform};
use polymul::{
    Coeff, CpuPlan, CpuRnsPlan, DgtParams, DgtPlan, Gpu, Modulus, Multiplier, NttParams, NttPlan, RnsBasis,
    RnsPlan,
};

/// The conformance checks of every plan kind for words `W` (`bits`-bit
/// primes for the NTT, `dgt_bits` for the DGT), N = 2^`log_n` for each
/// `log_n` of `sizes`.
fn kinds<W: Coeff>(gpu: &Gpu, bits: u32, dgt_bits: u32, sizes: &[u32], seed: u64, t: &mut Tally) {
    let s = |m: polymul::expert::conformance::Mismatch| m.to_string();
    for &log_n in sizes {
        let n = 1usize << log_n;
        let name = |kind: &str| format!("plans: {kind} u{} N=2^{log_n} conforms", W::BITS);
        let r = NttParams::<W>::with_prime_bits(n, bits)
            .and_then(|p| NttPlan::new(gpu, p))
            .map_err(|e| e.to_string())
            .and_then(|p| check_transform(&p, 3, seed).map_err(s).map(drop));
        t.record(&name("NttPlan"), r);
        let r = RnsBasis::<W>::new(n, bits, 3)
            .and_then(|b| RnsPlan::new(gpu, &b))
            .map_err(|e| e.to_string())
            .and_then(|p| check_transform(&p, 2, seed ^ 1).map_err(s).map(drop));
        t.record(&name("RnsPlan (3 towers)"), r);
        let r = DgtParams::<W>::with_prime_bits(n, dgt_bits)
            .and_then(|p| DgtPlan::new(gpu, p, DgtConfig::default_for(log_n - 1)))
            .map_err(|e| e.to_string())
            .and_then(|p| check_product(&p, 2, seed ^ 2).map_err(s).map(drop));
        t.record(&name("DgtPlan"), r);
        let r = Multiplier::<W>::new(gpu, n, Modulus::Rns { bits, towers: 2 }, 2)
            .map_err(|e| e.to_string())
            .and_then(|m| check_transform(&m, 2, seed ^ 3).map_err(s).map(drop));
        t.record(&name("Multiplier (GPU)"), r);
        let r = NttParams::<W>::with_prime_bits(n, bits)
            .and_then(CpuPlan::new)
            .map_err(|e| e.to_string())
            .and_then(|p| check_transform(&p, 3, seed ^ 4).map_err(s).map(drop));
        t.record(&name("CpuPlan"), r);
        let r = RnsBasis::<W>::new(n, bits, 3)
            .and_then(|b| CpuRnsPlan::new(&b))
            .map_err(|e| e.to_string())
            .and_then(|p| check_transform(&p, 2, seed ^ 5).map_err(s).map(drop));
        t.record(&name("CpuRnsPlan (3 towers)"), r);
    }
}

/// The suite: both words, N = 2^4 (one-pass kernels), 2^10 and 2^12 (two
/// passes for `u64`), the largest primes of each word.
pub fn plans_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    kinds::<u64>(gpu, 62, 62, &[4, 10, 12], seed, t);
    kinds::<u32>(gpu, 30, 30, &[4, 10, 12], seed ^ 0x32, t);
}
