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
/// passes for `u64`), the largest primes of each word; and plans made
/// earlier still right after later plans of the same kernels.
pub fn plans_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    kinds::<u64>(gpu, 62, 62, &[4, 10, 12], seed, t);
    kinds::<u32>(gpu, 30, 30, &[4, 10, 12], seed ^ 0x32, t);
    earlier_plans::<u64>(gpu, 62, 62, seed ^ 0x64, t);
    earlier_plans::<u32>(gpu, 30, 30, seed ^ 0x33, t);
}

/// A tiled plan (radix 16) of `kib` KiB tiles: plans of one kernel that
/// differ only in the shared memory they set for it, as `earlier_plans`
/// and the concurrency suite's `plans_made_during_launches` make them.
pub(super) fn tiled_plan<W: Coeff>(gpu: &Gpu, p: &NttParams<W>, kib: usize) -> Result<NttPlan<W>, String> {
    let opts = polymul::expert::PlanOptions {
        kernel: polymul::expert::NttKernel::Tiled,
        radix: Some(16),
        tile_bytes: Some(kib * 1024),
        ..crate::env_options::plan_options()
    };
    NttPlan::with_options(gpu, p.clone(), opts).map_err(|e| e.to_string())
}

/// One random polynomial pair of `p` (from `seed`) and what the CPU
/// emulation makes of it: `a`'s forward transform and `a ⊗ b`.
pub(super) struct Expected<W> {
    pub(super) a: Vec<W>,
    pub(super) b: Vec<W>,
    pub(super) forward: Vec<W>,
    pub(super) product: Vec<W>,
}

impl<W: Coeff> Expected<W> {
    /// Draws the pair and computes both expectations on the CPU.
    pub(super) fn new(p: &NttParams<W>, seed: u64) -> Result<Self, String> {
        use polymul::expert::{SplitMix64, emulation};
        let s = |e: polymul::Error| e.to_string();
        let mut rng = SplitMix64::new(seed);
        let (a, b) = (rng.coeffs(p.n(), p.q()), rng.coeffs(p.n(), p.q()));
        let mut forward = a.clone();
        emulation::forward(p, &mut forward).map_err(s)?;
        let product = emulation::polymul(p, &a, &b).map_err(s)?;
        Ok(Self { a, b, forward, product })
    }
}

/// Plans made earlier keep working after later plans of the same kernels
/// are made. A kernel's shared-memory limit belongs to the module's
/// function, which every plan of the GPU shares, and a later plan of a
/// smaller size must not lower it (`raise_max_dynamic_smem`,
/// crates/host/src/gpu/launch.rs): tiled plans of 128 KiB tiles, then of
/// 64 KiB; DGT plans at N = 2^16 (one tower: its passes held to one block
/// per SM), then 2^11 (the `u64` polymul pass's 64 KiB). Each plan is
/// checked against the CPU emulation after the last one is made.
fn earlier_plans<W: Coeff>(gpu: &Gpu, bits: u32, dgt_bits: u32, seed: u64, t: &mut Tally) {
    use crate::host_ext::{dgt_forward_host, forward_host};
    use polymul::expert::{SplitMix64, emulation};
    use polymul::prelude::*;
    let s = |e: polymul::Error| e.to_string();
    let eq = super::eq;
    let name = |what: &str| format!("plans: {what} u{} made earlier == CPU after later plans", W::BITS);
    let n = 1usize << 17;
    if 128 * 1024 <= gpu.info().max_shared_per_block {
        let r = (|| -> Result<(), String> {
            let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
            let plans = [tiled_plan(gpu, &p, 128)?, tiled_plan(gpu, &p, 64)?];
            let Expected { a, b, forward: want, product: want_mul } = Expected::new(&p, seed)?;
            for (plan, kib) in plans.iter().zip([128, 64]) {
                let what = format!("N=2^17 {kib} KiB tiles");
                eq(&what, &forward_host(plan, &a).map_err(s)?, &want)?;
                eq(&what, &plan.polymul(&a, &b).map_err(s)?, &want_mul)?;
            }
            Ok(())
        })();
        t.record(&name("tiled plans of 128 then 64 KiB tiles"), r);
    }
    let r = (|| -> Result<(), String> {
        let mut plans = Vec::new();
        for log_n in [16u32, 11] {
            let p = DgtParams::<W>::with_prime_bits(1 << log_n, dgt_bits).map_err(s)?;
            let cfg = DgtConfig::default_for(log_n - 1);
            plans.push((DgtPlan::new(gpu, p.clone(), cfg).map_err(s)?, p, cfg, log_n));
        }
        for (plan, p, cfg, log_n) in &plans {
            let n = 1usize << log_n;
            let mut rng = SplitMix64::new(seed ^ n as u64);
            let (a, b) = (rng.coeffs(n, p.p()), rng.coeffs(n, p.p()));
            let want = emulation::dgt::polymul(p, cfg, &a, &b).map_err(s)?;
            let mut want_fwd = a.clone();
            emulation::dgt::forward(p, cfg, &mut want_fwd).map_err(s)?;
            let what = format!("DGT N=2^{log_n}");
            eq(&what, &plan.polymul(&a, &b).map_err(s)?, &want)?;
            eq(&what, &dgt_forward_host(plan, &a).map_err(s)?, &want_fwd)?;
        }
        Ok(())
    })();
    t.record(&name("DGT plans at N = 2^16 then 2^11"), r);
}
