//! The planner: one entry point that picks the transform (an NTT kernel or
//! the DGT) and its configuration for N, a modulus (or RNS towers), a batch
//! size and the device — from measured wisdom when the caller passes what
//! `polymul tune` measured on this device, else by a documented rule.
//!
//! ```no_run
//! use polymul::prelude::*;
//! use polymul::{Gpu, planner::{Modulus, Multiplier, Wisdom}};
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

mod multiplier;
pub mod tune;
mod wisdom;

pub use multiplier::Multiplier;

pub use wisdom::{Choice, WISDOM_VERSION, Wisdom, WisdomEntry, WisdomKey, batch_bucket, default_wisdom_path};

use crate::Coeff;
use crate::dgt::DgtConfig;
use crate::gpu::Gpu;
use crate::plan::NttKernel;

/// The modulus of a multiplication.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// These primes, one tower each (tower-major data; one prime is the
    /// same as [`Modulus::Prime`]): only a transform that accepts every one
    /// of them is considered. The NTT builds them into an
    /// [`crate::RnsBasis::from_primes`] (its errors: no prime, too many, one twice,
    /// one not NTT-friendly), the DGT into one [`crate::DgtParams`] per prime.
    Primes(Vec<u64>),
}

impl Modulus {
    /// The number of towers (RNS primes) this modulus has: 1 for
    /// [`Modulus::Bits`] and [`Modulus::Prime`].
    pub fn towers(&self) -> usize {
        match self {
            Modulus::Rns { towers, .. } => *towers,
            Modulus::Primes(primes) => primes.len(),
            Modulus::Bits(_) | Modulus::Prime(_) => 1,
        }
    }

    /// The given primes, if the modulus names them ([`Modulus::Prime`],
    /// [`Modulus::Primes`]); `None` where the planner picks them.
    pub fn given_primes(&self) -> Option<&[u64]> {
        match self {
            Modulus::Prime(q) => Some(std::slice::from_ref(q)),
            Modulus::Primes(primes) => Some(primes),
            Modulus::Bits(_) | Modulus::Rns { .. } => None,
        }
    }
}

/// What the planner chose, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The transform and its configuration.
    pub choice: Choice,
    /// True when a wisdom entry for this device decided.
    pub from_wisdom: bool,
    /// The measured time of the wisdom entry, µs per polynomial.
    pub measured_us: Option<f64>,
}

impl Decision {
    /// One line: `NTT auto`, `NTT 2d radix 8` or `DGT k1=… λ1=… λ2=…`.
    pub fn summary(&self) -> String {
        match self.choice {
            Choice::Ntt { kernel, radix: Some(r) } => format!("NTT {} radix {r}", kernel.name()),
            winner => winner.to_string(),
        }
    }
}

/// The rule without wisdom: the NTT with the automatic kernel choice. On
/// the H100 measurement (docs/dgt.md) the NTT was as fast or faster than the
/// best DGT configuration at every N, tower count and batch.
pub fn rule() -> Choice {
    Choice::Ntt { kernel: NttKernel::Auto, radix: None }
}

/// The decision for a key: the wisdom entry if there is one (and its
/// transform accepts the modulus: every given prime), else [`rule`] — or,
/// for given primes that only the DGT accepts, the DGT's default
/// configuration.
///
/// Total: any `n` and prime give a decision (in `u128`, no overflow); the
/// plan built from it validates them ([`Multiplier::with_decision`]).
pub fn decide(key: &WisdomKey, modulus: &Modulus, n: usize, wisdom: Option<&Wisdom>) -> Decision {
    let n128 = n as u128;
    // q ≡ 1 (mod 2N) and p ≡ −1 (mod N); neither holds for N = 0.
    let ntt_prime = |q: &u64| (*q as u128).checked_rem(2 * n128) == Some(1);
    let dgt_prime = |p: &u64| (*p as u128 + 1).checked_rem(n128) == Some(0);
    let given = modulus.given_primes();
    let accepts = |w: &Choice| match (w, given) {
        (Choice::Ntt { .. }, Some(primes)) => primes.iter().all(ntt_prime),
        (Choice::Dgt { .. }, Some(primes)) => primes.iter().all(dgt_prime),
        (_, None) => true,
    };
    if let Some(e) = wisdom.and_then(|w| w.lookup(key)).filter(|e| accepts(&e.winner)) {
        return Decision { choice: e.winner, from_wisdom: true, measured_us: Some(e.us_per_poly) };
    }
    let choice = match given {
        Some(primes) if !primes.iter().all(ntt_prime) && primes.iter().all(dgt_prime) => {
            Choice::Dgt { config: DgtConfig::default_for(n.trailing_zeros().saturating_sub(1)) }
        }
        _ => rule(),
    };
    Decision { choice, from_wisdom: false, measured_us: None }
}

/// [`decide`] without wisdom, where there is no key (no device: the CPU
/// backend): the [`rule`], or for given primes that only the DGT accepts,
/// the DGT's default configuration. What [`Multiplier::auto`] plans on the
/// CPU ([`Multiplier::cpu_with_decision`]).
pub fn decide_without_wisdom(modulus: &Modulus, n: usize) -> Decision {
    let key = WisdomKey { device: String::new(), log_n: 0, word_bits: 0, towers: 0, batch_bucket: 0 };
    decide(&key, modulus, n, None)
}

/// The wisdom key of a multiplication of `batch` polynomials (per tower) of
/// `n` words `W` modulo `modulus` on `gpu`: what [`Multiplier::with_wisdom`]
/// looks up, for a caller that calls [`decide`] itself (to constrain the
/// decision before [`Multiplier::with_decision`]).
pub fn wisdom_key<W: Coeff>(gpu: &Gpu, n: usize, modulus: &Modulus, batch: usize) -> WisdomKey {
    WisdomKey {
        device: gpu.info().name.clone(),
        log_n: n.trailing_zeros(),
        word_bits: W::BITS,
        towers: modulus.towers(),
        batch_bucket: batch_bucket(batch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dgt::dgt_primes;
    use crate::params::ntt_primes;

    fn key(bucket: u32) -> WisdomKey {
        WisdomKey { device: "GPU".into(), log_n: 12, word_bits: 32, towers: 1, batch_bucket: bucket }
    }

    #[test]
    fn wisdom_decides_when_it_fits_the_modulus_else_the_rule() {
        let n = 1 << 12;
        let dgt = Choice::Dgt { config: DgtConfig::default_for(11) };
        let mut w = Wisdom::new();
        w.insert(WisdomEntry { key: key(6), winner: dgt, us_per_poly: 1.5, candidates: 4 });
        // No wisdom: the rule.
        assert_eq!(decide(&key(6), &Modulus::Bits(30), n, None).choice, rule());
        // Wisdom for the key (or the nearest bucket) decides.
        let d = decide(&key(5), &Modulus::Bits(30), n, Some(&w));
        assert!(d.from_wisdom && d.choice == dgt && d.measured_us == Some(1.5));
        // Another device: the rule.
        let other = WisdomKey { device: "other".into(), ..key(6) };
        assert!(!decide(&other, &Modulus::Bits(30), n, Some(&w)).from_wisdom);
        // A given NTT prime is not a DGT prime: wisdom for the DGT is ignored.
        let q = ntt_primes(30, n, 1).unwrap()[0];
        let d = decide(&key(6), &Modulus::Prime(q), n, Some(&w));
        assert!(!d.from_wisdom && d.choice == rule());
        // A DGT prime without wisdom: the DGT, the only transform that takes it.
        let p = dgt_primes(30, n, 1).unwrap()[0];
        assert!(matches!(decide(&key(0), &Modulus::Prime(p), n, None).choice, Choice::Dgt { .. }));
        assert_eq!(
            decide(&key(0), &Modulus::Prime(p), n, None).summary(),
            format!("DGT {}", DgtConfig::default_for(11))
        );
    }

    #[test]
    fn given_primes_decide_as_one_prime_does_for_every_tower() {
        let n = 1 << 12;
        let ntt = ntt_primes(30, n, 3).unwrap();
        let dgt = dgt_primes(30, n, 3).unwrap();
        assert_eq!(Modulus::Primes(ntt.clone()).towers(), 3);
        assert_eq!(Modulus::Primes(ntt.clone()).given_primes(), Some(&ntt[..]));
        assert_eq!(Modulus::Prime(7).given_primes(), Some(&[7u64][..]));
        assert_eq!(Modulus::Rns { bits: 30, towers: 2 }.given_primes(), None);
        let key3 = WisdomKey { towers: 3, ..key(6) };
        let dgt_winner =
            Choice::Dgt { config: DgtConfig { stages1: 11, log_cluster1: 0, log_cluster2: 0, log_unit: 0 } };
        let ntt_winner = Choice::Ntt { kernel: crate::plan::NttKernel::TwoD, radix: Some(8) };
        let wisdom = |winner| {
            let mut w = Wisdom::new();
            w.insert(WisdomEntry { key: key3.clone(), winner, us_per_poly: 2.0, candidates: 3 });
            w
        };
        // Without wisdom: NTT primes take the rule, DGT primes the DGT's default.
        assert_eq!(decide(&key3, &Modulus::Primes(ntt.clone()), n, None).choice, rule());
        let d = decide(&key3, &Modulus::Primes(dgt.clone()), n, None);
        assert_eq!(d.choice, Choice::Dgt { config: DgtConfig::default_for(11) });
        // Wisdom decides when its transform takes every prime.
        let d = decide(&key3, &Modulus::Primes(ntt.clone()), n, Some(&wisdom(ntt_winner)));
        assert!(d.from_wisdom && d.choice == ntt_winner);
        let d = decide(&key3, &Modulus::Primes(dgt.clone()), n, Some(&wisdom(dgt_winner)));
        assert!(d.from_wisdom && d.choice == dgt_winner);
        // ... and not otherwise (also when only some primes fit).
        let d = decide(&key3, &Modulus::Primes(ntt.clone()), n, Some(&wisdom(dgt_winner)));
        assert!(!d.from_wisdom && d.choice == rule());
        let d = decide(&key3, &Modulus::Primes(dgt.clone()), n, Some(&wisdom(ntt_winner)));
        assert!(!d.from_wisdom && matches!(d.choice, Choice::Dgt { .. }));
        let mixed = vec![ntt[0], dgt[0], ntt[1]];
        let d = decide(&key3, &Modulus::Primes(mixed.clone()), n, Some(&wisdom(dgt_winner)));
        assert!(!d.from_wisdom && d.choice == rule());
        let d = decide(&key3, &Modulus::Primes(mixed), n, Some(&wisdom(ntt_winner)));
        assert!(!d.from_wisdom && d.choice == rule());
        // No prime: the rule (the plan reports Error::EmptyBasis).
        assert_eq!(decide(&key(0), &Modulus::Primes(vec![]), n, None).choice, rule());
    }
}
