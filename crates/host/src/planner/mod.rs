//! The planner: one entry point that picks the transform (an NTT kernel or
//! the DGT) and its configuration for N, a modulus (or RNS towers), a batch
//! size and the device — from measured wisdom when the caller passes what
//! `polymul tune` measured on this device, else by a documented rule.
//!
//! ```no_run
//! use polymul::{DevicePlan, Gpu, planner::{Modulus, Multiplier, Wisdom}};
//! let gpu = Gpu::new()?;
//! // 30-bit moduli on u32 words, N = 2^14, 64 products per call, with the
//! // wisdom `polymul tune` left in the user's cache (if any).
//! let wisdom = Wisdom::load_default()?;
//! let m = Multiplier::<u32>::with_wisdom(&gpu, 1 << 14, Modulus::Bits(30), 64, wisdom.as_ref())?;
//! println!("{} ({})", m.decision().summary(), if m.decision().from_wisdom { "wisdom" } else { "rule" });
//! let q = m.primes()[0] as u32;
//! let a = vec![1u32; 64 << 14];
//! let c = m.polymul(&a, &a)?;
//! # Ok::<(), polymul::Error>(())
//! ```

pub mod tune;
mod wisdom;

pub use wisdom::{WISDOM_VERSION, Winner, Wisdom, WisdomEntry, WisdomKey, batch_bucket, default_wisdom_path};

use crate::dgt::{DgtConfig, DgtParams, DgtPlan, dgt_primes};
use crate::gpu::{DeviceVec, Gpu, GpuStream};
use crate::params::ntt_primes;
use crate::rns::{RnsBasis, RnsPlan};
use crate::{Coeff, DevicePlan, NttKernel, NttParams, NttPlan, PlanOptions, Result};

/// The modulus of a multiplication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modulus {
    /// Any prime of this many bits the chosen transform can use (the NTT
    /// needs `q ≡ 1 mod 2N`, the DGT `p ≡ −1 mod N`): the planner picks
    /// both the transform and the prime.
    Bits(u32),
    /// This prime: only a transform that accepts it is considered.
    Prime(u64),
    /// RNS: `towers` primes of `bits` bits (tower-major data).
    Rns {
        /// Bits per prime.
        bits: u32,
        /// Number of towers.
        towers: usize,
    },
}

impl Modulus {
    fn towers(&self) -> usize {
        match self {
            Modulus::Rns { towers, .. } => *towers,
            _ => 1,
        }
    }
}

/// What the planner chose, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The transform and its configuration.
    pub winner: Winner,
    /// True when a wisdom entry for this device decided.
    pub from_wisdom: bool,
    /// The measured time of the wisdom entry, µs per polynomial.
    pub measured_us: Option<f64>,
}

impl Decision {
    /// One line: `NTT auto`, `NTT 2d radix 8` or `DGT k1=… λ1=… λ2=…`.
    pub fn summary(&self) -> String {
        match self.winner {
            Winner::Ntt { kernel, radix: Some(r) } => format!("NTT {} radix {r}", kernel.name()),
            winner => winner.to_string(),
        }
    }
}

/// The rule without wisdom: the NTT with the automatic kernel choice. On
/// the H100 measurement (docs/dgt.md) the NTT was as fast or faster than the
/// best DGT configuration at every N, tower count and batch.
pub fn rule() -> Winner {
    Winner::Ntt { kernel: NttKernel::Auto, radix: None }
}

/// The decision for a key: the wisdom entry if there is one (and its
/// transform accepts the modulus), else [`rule`].
///
/// Total: any `n` and prime give a decision (in `u128`, no overflow); the
/// plan built from it validates them ([`Multiplier::with_decision`]).
pub fn decide(key: &WisdomKey, modulus: Modulus, n: usize, wisdom: Option<&Wisdom>) -> Decision {
    let n128 = n as u128;
    // q ≡ 1 (mod 2N) and p ≡ −1 (mod N); neither holds for N = 0.
    let ntt_prime = |q: u64| (q as u128).checked_rem(2 * n128) == Some(1);
    let dgt_prime = |p: u64| (p as u128 + 1).checked_rem(n128) == Some(0);
    let accepts = |w: &Winner| match (w, modulus) {
        (Winner::Ntt { .. }, Modulus::Prime(q)) => ntt_prime(q),
        (Winner::Dgt { .. }, Modulus::Prime(p)) => dgt_prime(p),
        _ => true,
    };
    if let Some(e) = wisdom.and_then(|w| w.lookup(key)).filter(|e| accepts(&e.winner)) {
        return Decision { winner: e.winner, from_wisdom: true, measured_us: Some(e.us_per_poly) };
    }
    let winner = match modulus {
        Modulus::Prime(p) if !ntt_prime(p) && dgt_prime(p) => {
            Winner::Dgt { config: DgtConfig::default_for(n.trailing_zeros().saturating_sub(1)) }
        }
        _ => rule(),
    };
    Decision { winner, from_wisdom: false, measured_us: None }
}

/// Negacyclic multiplication planned for a device: the transform chosen by
/// [`decide`], its plan built and kept behind [`DevicePlan`] (so a
/// `Multiplier` is used exactly as the plan it chose).
///
/// Wisdom is never read behind the caller's back: [`Multiplier::new`]
/// follows the [`rule`]; pass what `polymul tune` measured to
/// [`Multiplier::with_wisdom`] (e.g. [`Wisdom::load_default`]).
pub struct Multiplier<W: Coeff> {
    plan: Box<dyn DevicePlan<W>>,
    decision: Decision,
    primes: Vec<u64>,
}

impl<W: Coeff> std::fmt::Debug for Multiplier<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Multiplier")
            .field("plan", &self.plan)
            .field("decision", &self.decision)
            .finish_non_exhaustive()
    }
}

impl<W: Coeff> Multiplier<W> {
    /// Plans by the [`rule`] (no wisdom).
    pub fn new(gpu: &Gpu, n: usize, modulus: Modulus, batch: usize) -> Result<Self> {
        Self::with_wisdom(gpu, n, modulus, batch, None)
    }

    /// Plans with the given wisdom (`None`: the rule).
    pub fn with_wisdom(
        gpu: &Gpu,
        n: usize,
        modulus: Modulus,
        batch: usize,
        wisdom: Option<&Wisdom>,
    ) -> Result<Self> {
        crate::params::check_n(n)?;
        let key = WisdomKey {
            device: gpu.info().name.clone(),
            log_n: n.trailing_zeros(),
            word_bits: W::BITS,
            towers: modulus.towers(),
            batch_bucket: batch_bucket(batch),
        };
        let decision = decide(&key, modulus, n, wisdom);
        Self::with_decision(gpu, n, modulus, decision)
    }

    /// Plans a given decision (what `polymul tune` times, and what a caller
    /// that wants one transform forces).
    pub fn with_decision(gpu: &Gpu, n: usize, modulus: Modulus, decision: Decision) -> Result<Self> {
        let (plan, primes): (Box<dyn DevicePlan<W>>, Vec<u64>) = match decision.winner {
            Winner::Ntt { kernel, radix } => {
                let options = PlanOptions { kernel, radix, ..PlanOptions::default() };
                let one = |q: u64| -> Result<(Box<dyn DevicePlan<W>>, Vec<u64>)> {
                    Ok((Box::new(NttPlan::with_options(gpu, NttParams::new(n, q)?, options)?), vec![q]))
                };
                match modulus {
                    Modulus::Rns { bits, towers } => {
                        let basis = RnsBasis::<W>::new(n, bits, towers)?;
                        (Box::new(RnsPlan::with_options(gpu, &basis, options)?), basis.primes())
                    }
                    Modulus::Prime(q) => one(q)?,
                    Modulus::Bits(b) => one(ntt_primes(b, n, 1)?[0])?,
                }
            }
            Winner::Dgt { config } => {
                let primes = match modulus {
                    Modulus::Prime(p) => vec![p],
                    Modulus::Bits(b) => dgt_primes(b, n, 1)?,
                    Modulus::Rns { bits, towers } => dgt_primes(bits, n, towers)?,
                };
                let params = primes.iter().map(|&p| DgtParams::new(n, p)).collect::<Result<Vec<_>>>()?;
                (Box::new(DgtPlan::with_towers(gpu, &params, config)?), primes)
            }
        };
        Ok(Self { plan, decision, primes })
    }

    /// What was chosen.
    pub fn decision(&self) -> &Decision {
        &self.decision
    }

    /// The prime(s) the data must be reduced by (one per tower).
    pub fn primes(&self) -> &[u64] {
        &self.primes
    }

    /// The plan it chose.
    pub fn plan(&self) -> &dyn DevicePlan<W> {
        &*self.plan
    }

    /// The plan it chose, owned.
    pub fn into_plan(self) -> Box<dyn DevicePlan<W>> {
        self.plan
    }
}

impl<W: Coeff> DevicePlan<W> for Multiplier<W> {
    fn gpu(&self) -> &Gpu {
        self.plan.gpu()
    }
    fn n(&self) -> usize {
        self.plan.n()
    }
    fn moduli(&self) -> Vec<u64> {
        self.primes.clone()
    }
    fn upload(&self, words: &[W]) -> Result<DeviceVec<W>> {
        self.plan.upload(words)
    }
    fn zeros(&self, batch: usize) -> Result<DeviceVec<W>> {
        self.plan.zeros(batch)
    }
    fn download(&self, v: &DeviceVec<W>) -> Result<Vec<W>> {
        self.plan.download(v)
    }
    fn forward(&self, data: &mut DeviceVec<W>) -> Result<()> {
        self.plan.forward(data)
    }
    fn inverse(&self, data: &mut DeviceVec<W>) -> Result<()> {
        self.plan.inverse(data)
    }
    fn pointwise_mul(&self, acc: &mut DeviceVec<W>, other: &DeviceVec<W>) -> Result<()> {
        self.plan.pointwise_mul(acc, other)
    }
    fn polymul_in_place(&self, a: &mut DeviceVec<W>, b: &mut DeviceVec<W>) -> Result<()> {
        self.plan.polymul_in_place(a, b)
    }
    fn polymul_into(&self, a: &DeviceVec<W>, b: &DeviceVec<W>, out: &mut DeviceVec<W>) -> Result<()> {
        self.plan.polymul_into(a, b, out)
    }
    fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        self.plan.polymul(a, b)
    }
    fn set_stream(&mut self, stream: Option<&GpuStream>) {
        self.plan.set_stream(stream)
    }
    fn synchronize(&self) -> Result<()> {
        self.plan.synchronize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(bucket: u32) -> WisdomKey {
        WisdomKey { device: "GPU".into(), log_n: 12, word_bits: 32, towers: 1, batch_bucket: bucket }
    }

    #[test]
    fn wisdom_decides_when_it_fits_the_modulus_else_the_rule() {
        let n = 1 << 12;
        let dgt = Winner::Dgt { config: DgtConfig::default_for(11) };
        let mut w = Wisdom::new();
        w.insert(WisdomEntry { key: key(6), winner: dgt, us_per_poly: 1.5, candidates: 4 });
        // No wisdom: the rule.
        assert_eq!(decide(&key(6), Modulus::Bits(30), n, None).winner, rule());
        // Wisdom for the key (or the nearest bucket) decides.
        let d = decide(&key(5), Modulus::Bits(30), n, Some(&w));
        assert!(d.from_wisdom && d.winner == dgt && d.measured_us == Some(1.5));
        // Another device: the rule.
        let other = WisdomKey { device: "other".into(), ..key(6) };
        assert!(!decide(&other, Modulus::Bits(30), n, Some(&w)).from_wisdom);
        // A given NTT prime is not a DGT prime: wisdom for the DGT is ignored.
        let q = ntt_primes(30, n, 1).unwrap()[0];
        let d = decide(&key(6), Modulus::Prime(q), n, Some(&w));
        assert!(!d.from_wisdom && d.winner == rule());
        // A DGT prime without wisdom: the DGT, the only transform that takes it.
        let p = dgt_primes(30, n, 1).unwrap()[0];
        assert!(matches!(decide(&key(0), Modulus::Prime(p), n, None).winner, Winner::Dgt { .. }));
        assert_eq!(
            decide(&key(0), Modulus::Prime(p), n, None).summary(),
            format!("DGT {}", DgtConfig::default_for(11))
        );
    }
}
