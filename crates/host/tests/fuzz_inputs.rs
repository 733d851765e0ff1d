//! Deterministic fuzz-style tests of the readers and validators that take
//! untrusted input: the wisdom file and parameter constructors. Each case
//! must return `Ok` or a typed `Err` — never panic (a panic fails the test).

use polymul::NttParams;
use polymul::dgt::{DgtConfig, DgtParams};
use polymul::expert::NttKernel;
use polymul::expert::SplitMix64;
use polymul::planner::{Choice, Wisdom, WisdomEntry, WisdomKey};
use polymul::rns::RnsBasis;
use std::path::Path;

fn valid_wisdom() -> String {
    let mut w = Wisdom::new();
    for (i, winner) in [
        Choice::Ntt { kernel: NttKernel::TwoD, radix: Some(8) },
        Choice::Ntt { kernel: NttKernel::Auto, radix: None },
        Choice::Dgt { config: DgtConfig { stages1: 6, log_cluster1: 2, log_cluster2: 1, log_unit: 0 } },
    ]
    .into_iter()
    .enumerate()
    {
        let key = WisdomKey {
            device: "GPU".into(),
            log_n: 10 + i as u32,
            word_bits: 64,
            towers: 1,
            batch_bucket: 0,
        };
        w.insert(WisdomEntry { key, winner, us_per_poly: 1.5, candidates: 3 });
    }
    w.to_json()
}

#[test]
fn wisdom_reader_survives_truncations_and_mutations() {
    let text = valid_wisdom();
    let origin = Path::new("fuzz.json");
    assert!(Wisdom::from_json(&text, origin).is_ok());
    for cut in 0..text.len() {
        if text.is_char_boundary(cut) {
            let _ = Wisdom::from_json(&text[..cut], origin);
        }
    }
    let bytes = text.as_bytes();
    let mut rng = SplitMix64::new(11);
    let alphabet = b"{}[]\":,0123456789-.eE truefalsnul\\x\n";
    for _ in 0..20_000 {
        let mut b = bytes.to_vec();
        for _ in 0..1 + rng.next_u64() % 4 {
            let i = (rng.next_u64() % b.len() as u64) as usize;
            b[i] = alphabet[(rng.next_u64() % alphabet.len() as u64) as usize];
        }
        if let Ok(s) = std::str::from_utf8(&b) {
            // Accepted mutations must still be well-formed wisdom.
            if let Ok(w) = Wisdom::from_json(s, origin) {
                assert_eq!(w.version, polymul::planner::WISDOM_VERSION);
            }
        }
    }
}

#[test]
fn parameter_constructors_never_panic() {
    let mut rng = SplitMix64::new(5);
    let interesting =
        [0u64, 1, 2, 3, 4, 5, 7, 17, 97, 65_537, (1 << 31) - 1, (1 << 62) - 57, u64::MAX, u64::MAX - 58];
    for _ in 0..3_000 {
        let n = match rng.next_u64() % 4 {
            0 => (rng.next_u64() % 70_000) as usize,
            1 => 1usize << (rng.next_u64() % 40),
            2 => usize::MAX >> (rng.next_u64() % 8),
            _ => 0,
        };
        let q = if rng.next_u64().is_multiple_of(3) {
            interesting[(rng.next_u64() % interesting.len() as u64) as usize]
        } else {
            rng.next_u64() >> (rng.next_u64() % 64)
        };
        if n <= 1 << 17 {
            let _ = NttParams::<u64>::new(n, q);
            let _ = NttParams::<u32>::new(n, q);
            let _ = DgtParams::<u32>::new(n, q);
            let _ = DgtParams::<u64>::new(n, q);
        }
        let _ = NttParams::<u64>::with_prime_bits(n.min(1 << 17), (q % 70) as u32);
        let _ = polymul::params::ntt_primes((q % 70) as u32, n.min(1 << 17), (q % 5) as usize);
        let _ = polymul::dgt::dgt_primes((q % 70) as u32, n.min(1 << 17), (q % 5) as usize);
        if n <= 1 << 12 {
            let _ = RnsBasis::<u64>::from_primes(n, &[q, q / 3, q]);
            let _ = DgtConfig {
                stages1: (q % 12) as u32,
                log_cluster1: (q % 7) as u32,
                log_cluster2: 3,
                log_unit: 0,
            }
            .passes((n.max(1)).trailing_zeros());
        }
    }
}

// ---------------------------------------------------------------------------
// Regressions from the cargo-fuzz targets (fuzz/, docs/fuzzing.md): each of
// these inputs made a public function panic (overflow, capacity overflow)
// or answer inconsistently before it was fixed.
// ---------------------------------------------------------------------------

/// `ntt_primes` / `dgt_primes` with a huge count (capacity overflow), a
/// huge N (`2N` overflowing u64), N above `2^bits` (DGT: subtraction
/// overflow) and a count of zero: typed errors (after the merge with the
/// bad-input work: `TooManyPrimes` above `MAX_PRIME_COUNT`, `InvalidN` for
/// an N that is not a power of two in `[MIN_N, MAX_N]`).
#[test]
fn prime_searches_take_any_count_and_n() {
    use polymul::Error;
    use polymul::dgt::dgt_primes;
    use polymul::params::{MAX_PRIME_COUNT, ntt_prime_below, ntt_primes, primitive_root_2n};
    let too_many = |r: polymul::Result<Vec<u64>>| {
        matches!(r, Err(Error::TooManyPrimes { wanted: usize::MAX, max: MAX_PRIME_COUNT }))
    };
    assert!(too_many(ntt_primes(20, 1 << 17, usize::MAX)));
    assert!(too_many(dgt_primes(20, 1 << 17, usize::MAX)));
    // 20-bit primes ≡ 1 mod 2^18: only a few exist; asking for the most allowed finds them all.
    match ntt_primes(20, 1 << 17, MAX_PRIME_COUNT) {
        Err(Error::NotEnoughPrimes { wanted: MAX_PRIME_COUNT, found, .. }) => assert!(found < 4),
        other => panic!("{other:?}"),
    }
    match dgt_primes(20, 1 << 17, MAX_PRIME_COUNT) {
        Err(Error::NotEnoughPrimes { found, .. }) => assert!(found < 8),
        other => panic!("{other:?}"),
    }
    assert!(matches!(ntt_primes(40, usize::MAX, 1), Err(Error::InvalidN { .. })));
    assert!(matches!(ntt_primes(40, 1 << 63, 2), Err(Error::InvalidN { .. })));
    assert!(matches!(ntt_prime_below(u64::MAX, usize::MAX), Err(Error::InvalidN { .. })));
    // Zero primes are always enough, whether or not any candidate exists.
    assert_eq!(ntt_primes(20, 1 << 24, 0).unwrap(), Vec::<u64>::new());
    assert_eq!(ntt_primes(40, 1 << 10, 0).unwrap(), Vec::<u64>::new());
    assert!(matches!(primitive_root_2n(65_537, usize::MAX), Err(Error::InvalidN { .. })));
    assert!(matches!(primitive_root_2n(65_537, 0), Err(Error::InvalidN { .. })));
    assert!(matches!(primitive_root_2n(65_537, 1 << 16), Err(Error::NotNttFriendly { .. })));
    assert!(matches!(dgt_primes(20, 1 << 21, 1), Err(Error::NotEnoughPrimes { found: 0, .. })));
}

/// `DgtConfig`'s `Display` and `passes` with cluster and stage exponents no
/// valid configuration has (a wisdom file can carry them): shift overflows.
#[test]
fn dgt_configs_out_of_range_are_printed_and_refused() {
    let c = DgtConfig { stages1: 1, log_cluster1: 40, log_cluster2: u32::MAX, log_unit: 0 };
    assert_eq!(c.to_string(), format!("k1=1 λ1={} λ2=2^{}", 1u64 << 40, u32::MAX));
    for (cfg, log_m) in [
        (c, 64),
        (DgtConfig { stages1: 0, log_cluster1: 0, log_cluster2: 0, log_unit: 0 }, u32::MAX),
        // λ · 2^k of the first pass overflows u32 before the second pass's stage count is checked.
        (DgtConfig { stages1: 5, log_cluster1: 40, log_cluster2: 0, log_unit: 0 }, 60),
    ] {
        assert!(matches!(cfg.passes(log_m), Err(polymul::Error::BadDgtConfig { .. })), "{cfg} {log_m}");
    }
    let json = valid_wisdom().replace("\"log_cluster1\": 2", "\"log_cluster1\": 40");
    let w = Wisdom::from_json(&json, Path::new("fuzz.json")).unwrap();
    assert!(w.markdown_table().contains(&format!("λ1={}", 1u64 << 40)));
}

/// Planner helpers on any number: `batch_bucket` above 2^63, `decide` with
/// N = 0 (division by zero) or a huge N (`2N` overflowing).
#[test]
fn planner_helpers_take_any_number() {
    use polymul::planner::{Modulus, batch_bucket, decide, rule};
    assert_eq!(batch_bucket(usize::MAX), 64);
    assert_eq!(batch_bucket((1 << 63) + 1), 64);
    assert_eq!(batch_bucket(1 << 63), 63);
    assert_eq!((batch_bucket(0), batch_bucket(1), batch_bucket(3), batch_bucket(512)), (0, 0, 2, 9));
    let key = WisdomKey { device: "GPU".into(), log_n: 0, word_bits: 64, towers: 1, batch_bucket: 0 };
    for (q, n) in [(7, 0), (u64::MAX, usize::MAX), (1 << 40, 1 << 62), ((1 << 62) + 1, 1 << 63)] {
        assert_eq!(decide(&key, &Modulus::Prime(q), n, None).choice, rule(), "q = {q}, N = {n}");
    }
    // p + 1 overflowing u64 (N = 2^i divides 2^64): the DGT's rule, as for any p ≡ −1 (mod N).
    for n in [1 << 10, 1 << 63] {
        let d = decide(&key, &Modulus::Prime(u64::MAX), n, None);
        assert!(matches!(d.choice, Choice::Dgt { .. }), "N = {n}");
    }
}

/// The tile geometries' errors for `log_n` and tile exponents no N has.
#[test]
fn tile_geometries_refuse_any_exponent() {
    use polymul::expert::{geometry_2d, tile_geometry};
    for (log_n, log_tile) in [(64, 1), (100, 20), (0, u32::MAX), (u32::MAX, 0)] {
        assert!(matches!(tile_geometry(log_n, log_tile), Err(polymul::Error::InvalidN { .. })));
        assert!(matches!(geometry_2d(log_n, log_tile), Err(polymul::Error::InvalidN { .. })));
    }
}

/// The automatic rules take any word width and size (fuzzer finding 9: a
/// word width below 8 bits divided by zero in the lazy kernels' tile size).
#[test]
fn automatic_rules_take_any_word_width() {
    use polymul::expert::{auto_kernel, auto_radix};
    for word_bits in [0u32, 1, 7, 8, 31, 32, 64, 65, u32::MAX] {
        for log_n in [0u32, 1, 3, 10, 16, 21, 22, 64, u32::MAX] {
            for (batched, inverse) in [(false, false), (true, true)] {
                let k = auto_kernel(word_bits, log_n, batched, inverse);
                let r = auto_radix(k, word_bits, log_n, batched, inverse);
                assert!((1..=4).contains(&r), "word {word_bits} log_n {log_n}: radix 2^{r}");
            }
        }
    }
}
