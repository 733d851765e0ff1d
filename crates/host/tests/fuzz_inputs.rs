//! Deterministic fuzz-style tests of the readers and validators that take
//! untrusted input: the wisdom file and parameter constructors. Each case
//! must return `Ok` or a typed `Err` — never panic (a panic fails the test).

use polymul::dgt::{DgtConfig, DgtParams};
use polymul::planner::{Winner, Wisdom, WisdomEntry, WisdomKey};
use polymul::random::SplitMix64;
use polymul::rns::RnsBasis;
use polymul::{NttKernel, NttParams};
use std::path::Path;

fn valid_wisdom() -> String {
    let mut w = Wisdom::new();
    for (i, winner) in [
        Winner::Ntt { kernel: NttKernel::TwoD, radix: Some(8) },
        Winner::Ntt { kernel: NttKernel::Auto, radix: None },
        Winner::Dgt { config: DgtConfig { stages1: 6, log_cluster1: 2, log_cluster2: 1 } },
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
            let _ = DgtConfig { stages1: (q % 12) as u32, log_cluster1: (q % 7) as u32, log_cluster2: 3 }
                .passes((n.max(1)).trailing_zeros());
        }
    }
}
