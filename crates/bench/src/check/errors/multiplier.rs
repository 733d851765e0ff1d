//! The `errors` suite's planner checks: moduli, N and decisions no
//! transform takes, a broken wisdom file, and a `Multiplier`'s data methods.

use super::{check, dgt_cpu, expect};
use crate::check::{Tally, eq, s};
use polymul::dgt::{self, DgtConfig, DgtParams};
use polymul::expert::{NttKernel, SplitMix64, emulation};
use polymul::planner::{Choice, Decision, Modulus, Multiplier};
use polymul::prelude::*;
use polymul::rns::RnsBasis;
use polymul::{Error, Gpu};

/// The planner: moduli, N and decisions no transform takes, a broken
/// wisdom file, and its data methods.
pub(super) fn multiplier_errors(gpu: &Gpu, t: &mut Tally) {
    let n = 1usize << 12;
    let mk = |n: usize, m: Modulus| Multiplier::<u64>::with_wisdom(gpu, n, m, 1, None);
    check(t, "Multiplier: N not a power of two", mk(1000, Modulus::Bits(62)), |e| {
        matches!(e, Error::InvalidN { n: 1000, .. })
    });
    check(t, "Multiplier: N too large", mk(1 << 25, Modulus::Bits(62)), |e| {
        matches!(e, Error::InvalidN { .. })
    });
    check(t, "Multiplier: N = 0", mk(0, Modulus::Bits(62)), |e| matches!(e, Error::InvalidN { n: 0, .. }));
    check(t, "Multiplier: q not prime", mk(n, Modulus::Prime(1_000_001)), |e| {
        matches!(e, Error::NotPrime { q: 1_000_001 })
    });
    // 1,000,003 is prime, ≢ 1 (mod 2N) and ≢ −1 (mod N): the rule's NTT refuses it.
    check(t, "Multiplier: q neither an NTT nor a DGT prime", mk(n, Modulus::Prime(1_000_003)), |e| {
        matches!(e, Error::NotNttFriendly { q: 1_000_003, .. })
    });
    check(t, "Multiplier: q too wide", mk(n, Modulus::Prime(u64::MAX)), |e| {
        matches!(e, Error::ModulusTooWide { bits: 64, .. })
    });
    check(t, "Multiplier: 63-bit primes", mk(n, Modulus::Bits(63)), |e| {
        matches!(e, Error::UnsupportedPrimeWidth { bits: 63, .. })
    });
    check(
        t,
        "Multiplier: 31-bit primes on u32",
        Multiplier::<u32>::with_wisdom(gpu, n, Modulus::Bits(31), 1, None),
        |e| matches!(e, Error::ModulusTooWide { word: 32, .. } | Error::UnsupportedPrimeWidth { .. }),
    );
    check(t, "Multiplier: RNS of no tower", mk(n, Modulus::Rns { bits: 62, towers: 0 }), |e| {
        matches!(e, Error::EmptyBasis)
    });
    check(
        t,
        "Multiplier: RNS of too many towers",
        mk(n, Modulus::Rns { bits: 62, towers: usize::MAX }),
        |e| matches!(e, Error::TooManyPrimes { .. }),
    );
    let decided = |choice: Choice, m: Modulus| {
        Multiplier::<u64>::with_decision(gpu, n, m, Decision { choice, from_wisdom: true, measured_us: None })
    };
    let q = polymul::params::ntt_primes(62, n, 1).map(|v| v[0]).unwrap_or(0);
    let p = dgt::dgt_primes(62, n, 1).map(|v| v[0]).unwrap_or(0);
    check(
        t,
        "Multiplier: the DGT given an NTT prime",
        decided(Choice::Dgt { config: DgtConfig::default_for(11) }, Modulus::Prime(q)),
        |e| matches!(e, Error::NotDgtFriendly { .. }),
    );
    check(
        t,
        "Multiplier: the NTT given a DGT prime",
        decided(Choice::Ntt { kernel: NttKernel::Auto, radix: None }, Modulus::Prime(p)),
        |e| matches!(e, Error::NotNttFriendly { .. }),
    );
    check(
        t,
        "Multiplier: a decision with radix 3",
        decided(Choice::Ntt { kernel: NttKernel::Tiled, radix: Some(3) }, Modulus::Bits(62)),
        |e| matches!(e, Error::BadRadix { radix: 3 }),
    );
    let absurd = DgtConfig { stages1: u32::MAX, log_cluster1: 40, log_cluster2: 64, log_unit: 0 };
    check(
        t,
        "Multiplier: a DGT configuration that does not fit",
        decided(Choice::Dgt { config: absurd }, Modulus::Bits(62)),
        |e| matches!(e, Error::BadDgtConfig { .. }),
    );
    // An unreadable wisdom file at the default path is an error when it is
    // loaded (`Wisdom::load_default`), not ignored; `Multiplier::new` reads
    // no wisdom at all (issue 17: wisdom is loaded explicitly).
    let dir = std::env::temp_dir().join(format!("polymul-errors-wisdom-{}", std::process::id()));
    let res = (|| -> Result<(), String> {
        std::fs::create_dir_all(&dir).map_err(s)?;
        let garbage = dir.join("garbage.json");
        std::fs::write(&garbage, b"{\"version\": 1, \"entries\": [").map_err(s)?;
        for path in [garbage.as_path(), dir.as_path()] {
            let previous = std::env::var_os("POLYMUL_WISDOM");
            // SAFETY: the check suite runs its suites one after another on
            // this thread; no other thread reads the environment now.
            unsafe { std::env::set_var("POLYMUL_WISDOM", path) };
            let r = polymul::planner::Wisdom::load_default();
            let planned =
                Multiplier::<u64>::new(gpu, n, Modulus::Bits(62), 1).map(|m| m.decision().from_wisdom);
            // SAFETY: as above.
            unsafe {
                match previous {
                    Some(v) => std::env::set_var("POLYMUL_WISDOM", v),
                    None => std::env::remove_var("POLYMUL_WISDOM"),
                }
            }
            expect(r, |e| matches!(e, Error::Wisdom { path: p, .. } if p.as_path() == path))?;
            if !matches!(planned, Ok(false)) {
                return Err(format!("Multiplier::new beside an unreadable wisdom file gave {planned:?}"));
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    t.record(
        "errors: Wisdom::load_default with an unreadable wisdom file (garbage, a folder) is an error; \
         Multiplier::new reads none",
        res,
    );

    // Data methods, through an NTT, an RNS and a DGT multiplier.
    for (tag, m) in [
        ("NTT", Modulus::Bits(62)),
        ("RNS", Modulus::Rns { bits: 62, towers: 2 }),
        ("DGT", Modulus::Prime(p)),
    ] {
        let res = (|| -> Result<(), String> {
            let mul = mk(n, m).map_err(s)?;
            let k = mul.primes().len();
            let mut rng = SplitMix64::new(5);
            let good: Vec<u64> = mul.primes().iter().flat_map(|&q| rng.coeffs(n, q)).collect();
            let mut bad = good.clone();
            bad[k * n - 1] = mul.primes()[k - 1];
            let unreduced =
                |e: &Error| matches!(e, Error::CoefficientOutOfRange { index, .. } if *index == k * n - 1);
            expect(mul.upload(&[]), |e| matches!(e, Error::NotAMultipleOfN { got: 0, .. }))?;
            expect(mul.upload(&good[..n - 1]), |e| matches!(e, Error::NotAMultipleOfN { .. }))?;
            expect(mul.upload(&bad), unreduced)?;
            expect(mul.polymul(&good, &bad), unreduced)?;
            expect(mul.polymul(&good, &good[..k * n / 2]), |e| {
                matches!(e, Error::LengthMismatch { .. } | Error::NotAMultipleOfN { .. })
            })?;
            expect(mul.zeros(0), |e| matches!(e, Error::NotAMultipleOfN { what: "batch", got: 0, .. }))?;
            expect(mul.zeros(usize::MAX), |e| matches!(e, Error::OutOfDeviceMemory { .. }))?;
            let (mut a, mut b) = (mul.zeros(1).map_err(s)?, mul.zeros(2).map_err(s)?);
            expect(mul.polymul_in_place(&mut a, &mut b), |e| matches!(e, Error::LengthMismatch { .. }))?;
            let want: Vec<u64> = match tag {
                "DGT" => dgt_cpu(&[DgtParams::<u64>::new(n, p).map_err(s)?], &mul_cfg(&mul), &good, &good)?,
                _ => {
                    let basis = RnsBasis::<u64>::from_primes(n, mul.primes()).map_err(s)?;
                    emulation::rns_polymul(&basis, &good, &good).map_err(s)?
                }
            };
            eq("product after the errors", &mul.polymul(&good, &good).map_err(s)?, &want)
        })();
        t.record(&format!("errors: Multiplier ({tag}) data methods, then still right"), res);
    }
}

/// The DGT configuration a multiplier chose.
fn mul_cfg(m: &Multiplier<u64>) -> DgtConfig {
    match m.decision().choice {
        Choice::Dgt { config } => config,
        Choice::Ntt { .. } => DgtConfig::default_for(0),
    }
}
