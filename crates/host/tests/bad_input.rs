//! Bad input to every public function of `polymul` that runs without a GPU:
//! one test per (function, bad input), each asserting the exact typed
//! error (variant and the fields that matter) — or, where the documentation
//! defines a result for an input that used to panic, that result.
//! `docs/bad-input.md` lists them all with the GPU checks
//! (`polymul-bench check --only errors`) and the CLI tests.
//!
//! The test profile keeps overflow checks on: an arithmetic overflow or
//! out-of-bounds index fails these tests as a panic.

use num_bigint::BigUint;
use polymul::cpu;
use polymul::dgt::{self, DgtConfig, DgtParams};
use polymul::expert::Multiplicands;
use polymul::expert::Reduction;
use polymul::expert::SplitMix64;
use polymul::expert::emulation::dgt::{self as emudgt, DgtTables};
use polymul::expert::emulation::{self, TiledConfig};
use polymul::expert::kernels::dgt::layout::PassGeometry;
use polymul::params::{self, MAX_N, MAX_PRIME_COUNT, NttParams, arith};
use polymul::planner::{self, Choice, Modulus, Wisdom, WisdomKey, tune::TuneSpec};
use polymul::rns::RnsBasis;
use polymul::{Error, Gpu};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

const N: usize = 16;

/// The largest 30-bit NTT prime for N = 16.
fn q30() -> u64 {
    params::ntt_primes(30, N, 1).unwrap()[0]
}

fn p64() -> NttParams<u64> {
    NttParams::new(N, q30()).unwrap()
}

fn p62() -> NttParams<u64> {
    NttParams::with_prime_bits(N, 62).unwrap()
}

/// The largest 30-bit DGT prime for N = 16.
fn dgt30() -> DgtParams<u64> {
    DgtParams::with_prime_bits(N, 30).unwrap()
}

fn dgt_cfg() -> DgtConfig {
    DgtConfig::default_for(N.trailing_zeros() - 1)
}

fn basis2() -> RnsBasis<u64> {
    RnsBasis::new(N, 30, 2).unwrap()
}

fn ones(len: usize) -> Vec<u64> {
    vec![1; len]
}

/// `len` ones with `value` at `at`.
fn with_at(len: usize, at: usize, value: u64) -> Vec<u64> {
    let mut v = ones(len);
    v[at] = value;
    v
}

fn tiled(log_max_tile: u32, log_radix: u32, two_d: bool) -> TiledConfig {
    TiledConfig { log_max_tile, threads: 4, log_radix, direct: false, two_d, truncated: false }
}

/// A fresh, empty folder for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("polymul-bad-input").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

// ---------------------------------------------------------------------------
// No GPU
// ---------------------------------------------------------------------------

/// Every GPU entry point (`NttPlan`, `RnsPlan`, `DgtPlan`, `Multiplier`,
/// `ModMulBench`, `planner::tune::tune`) takes a `&Gpu`, and a `Gpu` comes
/// only from these three constructors: without a GPU each is
/// `Error::NoGpu`, so no plan can be reached (checked by the compiler).
#[test]
fn gpu_constructors_without_a_gpu_are_no_gpu() {
    if Gpu::device_count().is_ok() {
        eprintln!("a GPU is present: the no-GPU errors cannot be checked here");
        return;
    }
    assert!(matches!(Gpu::device_count(), Err(Error::NoGpu { ref detail }) if !detail.is_empty()));
    assert!(matches!(Gpu::new(), Err(Error::NoGpu { .. })));
    assert!(matches!(Gpu::with_device(0), Err(Error::NoGpu { .. })));
    assert!(matches!(Gpu::with_device(u32::MAX), Err(Error::NoGpu { .. })));
}

// ---------------------------------------------------------------------------
// params: N, q, primes
// ---------------------------------------------------------------------------

#[test]
fn check_n_not_a_power_of_two() {
    assert!(matches!(params::check_n(12), Err(Error::InvalidN { n: 12, min: 2, max: MAX_N })));
}

#[test]
fn check_n_too_small_or_too_large() {
    for n in [0, 1, MAX_N * 2, usize::MAX] {
        assert!(matches!(params::check_n(n), Err(Error::InvalidN { n: got, .. }) if got == n), "{n}");
    }
}

#[test]
fn ntt_params_new_bad_n() {
    let q = q30();
    for n in [0usize, 1, 12, MAX_N * 2, usize::MAX] {
        assert!(
            matches!(NttParams::<u64>::new(n, q), Err(Error::InvalidN { n: got, .. }) if got == n),
            "{n}"
        );
    }
}

#[test]
fn ntt_params_new_q_not_prime() {
    // 1,000,001 = 101 · 9901; 2^61 − 1 + 2 is odd and composite.
    assert!(matches!(NttParams::<u64>::new(N, 1_000_001), Err(Error::NotPrime { q: 1_000_001 })));
    let q = (1u64 << 61) + 1;
    assert!(matches!(NttParams::<u64>::new(N, q), Err(Error::NotPrime { q: got }) if got == q));
}

#[test]
fn ntt_params_new_q_not_ntt_friendly() {
    // 2^31 − 1 is prime but ≡ 2^31 − 2 (mod 32): no 32nd root of unity.
    let q = (1u64 << 31) - 1;
    assert!(
        matches!(NttParams::<u64>::new(N, q), Err(Error::NotNttFriendly { q: got, n: N, two_n: 32 }) if got == q)
    );
}

#[test]
fn ntt_params_new_q_too_wide_for_the_word() {
    let q62 = params::ntt_primes(62, N, 1).unwrap()[0];
    assert!(matches!(
        NttParams::<u32>::new(N, q62),
        Err(Error::ModulusTooWide { bits: 62, max_bits: 30, word: 32, .. })
    ));
    let q31 = params::ntt_primes(31, N, 1).unwrap()[0];
    assert!(matches!(
        NttParams::<u32>::new(N, q31),
        Err(Error::ModulusTooWide { bits: 31, max_bits: 30, .. })
    ));
    assert!(matches!(
        NttParams::<u64>::new(N, u64::MAX),
        Err(Error::ModulusTooWide { bits: 64, max_bits: 62, word: 64, .. })
    ));
}

#[test]
fn ntt_params_new_q_even_or_too_small() {
    for q in [0u64, 2, 4, 1 << 40] {
        assert!(
            matches!(NttParams::<u64>::new(N, q), Err(Error::BadModulus { q: got, .. }) if got == q),
            "{q}"
        );
    }
    assert!(matches!(NttParams::<u64>::new(N, 3), Err(Error::BadModulus { q: 3, .. })));
    assert!(matches!(NttParams::<u64>::new(N, 1), Err(Error::BadModulus { q: 1, .. })));
}

#[test]
fn ntt_params_with_prime_bits_bad_width() {
    assert!(matches!(
        NttParams::<u32>::with_prime_bits(N, 31),
        Err(Error::UnsupportedPrimeWidth { bits: 31, max: 30, .. })
    ));
    assert!(matches!(
        NttParams::<u64>::with_prime_bits(N, 63),
        Err(Error::UnsupportedPrimeWidth { bits: 63, max: 62, .. })
    ));
    assert!(matches!(
        NttParams::<u64>::with_prime_bits(N, 19),
        Err(Error::UnsupportedPrimeWidth { bits: 19, .. })
    ));
    assert!(matches!(
        NttParams::<u64>::with_prime_bits(N, 0),
        Err(Error::UnsupportedPrimeWidth { bits: 0, .. })
    ));
}

#[test]
fn ntt_params_with_prime_bits_bad_n_and_no_prime() {
    assert!(matches!(NttParams::<u64>::with_prime_bits(12, 30), Err(Error::InvalidN { n: 12, .. })));
    // 20-bit primes ≡ 1 (mod 2^21) cannot exist.
    assert!(matches!(
        NttParams::<u64>::with_prime_bits(1 << 20, 20),
        Err(Error::NotEnoughPrimes { bits: 20, found: 0, wanted: 1, .. })
    ));
}

#[test]
fn ntt_primes_bad_width() {
    for bits in [0u32, 19, 63, u32::MAX] {
        assert!(
            matches!(params::ntt_primes(bits, N, 1), Err(Error::UnsupportedPrimeWidth { bits: b, .. }) if b == bits)
        );
    }
}

#[test]
fn ntt_primes_bad_n() {
    for n in [0usize, 3, 12, MAX_N * 2, usize::MAX] {
        assert!(
            matches!(params::ntt_primes(30, n, 1), Err(Error::InvalidN { n: got, .. }) if got == n),
            "{n}"
        );
    }
}

#[test]
fn ntt_primes_too_many() {
    for count in [MAX_PRIME_COUNT + 1, usize::MAX] {
        assert!(matches!(
            params::ntt_primes(30, N, count),
            Err(Error::TooManyPrimes { wanted, max: MAX_PRIME_COUNT }) if wanted == count
        ));
    }
}

#[test]
fn ntt_primes_not_enough() {
    assert!(matches!(
        params::ntt_primes(20, 1 << 12, 1000),
        Err(Error::NotEnoughPrimes { bits: 20, wanted: 1000, found, .. }) if found < 1000
    ));
}

/// Zero primes asked for: documented as the empty list, not an error.
#[test]
fn ntt_primes_count_zero_is_empty() {
    assert_eq!(params::ntt_primes(30, N, 0).unwrap(), Vec::<u64>::new());
}

#[test]
fn ntt_prime_below_bad_n_and_no_prime() {
    assert!(matches!(params::ntt_prime_below(1 << 40, 0), Err(Error::InvalidN { n: 0, .. })));
    assert!(matches!(params::ntt_prime_below(1 << 40, 1 << 63), Err(Error::InvalidN { .. })));
    for bound in [0u64, 1, 10, 2 * N as u64 + 1] {
        assert!(
            matches!(params::ntt_prime_below(bound, N), Err(Error::NotEnoughPrimes { found: 0, .. })),
            "{bound}"
        );
    }
}

#[test]
fn primitive_root_2n_bad_n() {
    // 7 − 1 = 6 = 2·3: N = 3 is not a power of two, and N = 2^63 overflows 2N.
    assert!(matches!(params::primitive_root_2n(7, 3), Err(Error::InvalidN { n: 3, .. })));
    assert!(matches!(params::primitive_root_2n(7, 1 << 63), Err(Error::InvalidN { .. })));
    assert!(matches!(params::primitive_root_2n(7, 0), Err(Error::InvalidN { n: 0, .. })));
}

#[test]
fn primitive_root_2n_q_not_prime_or_not_friendly() {
    for q in [0u64, 1, 4, 1_000_001, u64::MAX] {
        assert!(
            matches!(params::primitive_root_2n(q, N), Err(Error::NotPrime { q: got }) if got == q),
            "{q}"
        );
    }
    let q = (1u64 << 31) - 1;
    assert!(matches!(params::primitive_root_2n(q, N), Err(Error::NotNttFriendly { n: N, .. })));
}

#[test]
fn bit_reversed_powers_bad_n() {
    for n in [0usize, 12, MAX_N * 2, usize::MAX] {
        assert!(
            matches!(params::bit_reversed_powers(3, n, q30()), Err(Error::InvalidN { n: got, .. }) if got == n)
        );
    }
}

#[test]
fn bit_reversed_powers_zero_modulus() {
    assert!(matches!(params::bit_reversed_powers(3, N, 0), Err(Error::BadModulus { q: 0, .. })));
}

// ---------------------------------------------------------------------------
// params: batches and coefficients
// ---------------------------------------------------------------------------

#[test]
fn check_batch_empty() {
    assert!(matches!(p64().check_batch("a", &[]), Err(Error::NotAMultipleOfN { what: "a", got: 0, n: N })));
}

#[test]
fn check_batch_not_a_multiple_of_n() {
    for len in [1, N - 1, N + 1, 3 * N + 5] {
        assert!(matches!(
            p64().check_batch("a", &ones(len)),
            Err(Error::NotAMultipleOfN { what: "a", got, n: N }) if got == len
        ));
    }
}

#[test]
fn check_batch_coefficient_not_reduced() {
    let (p, q) = (p64(), q30());
    for (at, value) in [(0, q), (N + 3, q + 1), (2 * N - 1, u64::MAX)] {
        let err = p.check_batch("a", &with_at(2 * N, at, value));
        assert!(
            matches!(err, Err(Error::CoefficientOutOfRange { what: "a", index, value: v, q: m })
                if index == at && v == value && m == q),
            "{err:?}"
        );
    }
    // The first bad coefficient is reported.
    let mut v = with_at(N, 9, q + 5);
    v[4] = q;
    assert!(matches!(p.check_batch("a", &v), Err(Error::CoefficientOutOfRange { index: 4, .. })));
}

#[test]
fn check_batch_size_zero_and_too_large() {
    let p = p64();
    assert!(matches!(p.check_batch_size(0), Err(Error::NotAMultipleOfN { what: "batch", got: 0, .. })));
    let max = p.max_batch();
    assert_eq!(max, u32::MAX as usize / N);
    assert!(p.check_batch_size(max).is_ok());
    for batch in [max + 1, usize::MAX] {
        assert!(
            matches!(p.check_batch_size(batch), Err(Error::BatchTooLarge { batch: b, n: N, max: m }) if b == batch && m == max)
        );
    }
}

// ---------------------------------------------------------------------------
// params::arith
// ---------------------------------------------------------------------------

#[test]
fn arith_zero_modulus() {
    assert!(matches!(arith::mul_mod(3, 4, 0), Err(Error::BadModulus { q: 0, .. })));
    assert!(matches!(arith::add_mod(3, 4, 0), Err(Error::BadModulus { q: 0, .. })));
    assert!(matches!(arith::sub_mod(3, 4, 0), Err(Error::BadModulus { q: 0, .. })));
    assert!(matches!(arith::pow_mod(3, 4, 0), Err(Error::BadModulus { q: 0, .. })));
}

/// Unreduced operands are reduced first (documented), not an overflow.
#[test]
fn arith_unreduced_operands_are_reduced() {
    assert_eq!(arith::sub_mod(1, 20, 7).unwrap(), 2); // 1 − 6
    assert_eq!(arith::sub_mod(u64::MAX, 0, 7).unwrap(), u64::MAX % 7);
    assert_eq!(arith::add_mod(u64::MAX, u64::MAX, u64::MAX).unwrap(), 0);
    assert_eq!(arith::mul_mod(u64::MAX, u64::MAX, 1).unwrap(), 0);
    assert_eq!(arith::pow_mod(u64::MAX, u64::MAX, 1).unwrap(), 0);
}

#[test]
fn inv_mod_modulus_below_two() {
    for q in [0u64, 1] {
        assert!(matches!(arith::inv_mod(1, q), Err(Error::BadModulus { q: got, .. }) if got == q));
    }
}

#[test]
fn inv_mod_not_invertible() {
    assert!(matches!(arith::inv_mod(0, 17), Err(Error::NotInvertible { value: 0, q: 17 })));
    assert!(matches!(arith::inv_mod(34, 17), Err(Error::NotInvertible { value: 0, q: 17 })));
    // A composite modulus: 6 shares the factor 3 with 15.
    assert!(matches!(arith::inv_mod(6, 15), Err(Error::NotInvertible { value: 6, q: 15 })));
    // ... and 7 does not (no primality needed).
    assert_eq!(arith::mul_mod(arith::inv_mod(7, 15).unwrap(), 7, 15).unwrap(), 1);
}

/// `bits` beyond the word: documented as the low bits of the reversal.
#[test]
fn bit_reverse_more_bits_than_the_word() {
    assert_eq!(arith::bit_reverse(1, usize::BITS), 1 << (usize::BITS - 1));
    assert_eq!(arith::bit_reverse(1, usize::BITS + 1), 0);
    assert_eq!(arith::bit_reverse(2, usize::BITS + 1), 1 << (usize::BITS - 1));
    assert_eq!(arith::bit_reverse(usize::MAX, u32::MAX), 0);
}

// ---------------------------------------------------------------------------
// cpu: the naive references
// ---------------------------------------------------------------------------

#[test]
fn negacyclic_naive_length_mismatch() {
    assert!(matches!(
        cpu::negacyclic_naive(&[1, 2], &[1], 17),
        Err(Error::LengthMismatch { what: "b", got: 1, expected: 2 })
    ));
}

#[test]
fn negacyclic_naive_empty() {
    assert!(matches!(
        cpu::negacyclic_naive(&[], &[], 17),
        Err(Error::NotAMultipleOfN { what: "a", got: 0, .. })
    ));
}

#[test]
fn negacyclic_naive_modulus_below_two() {
    for q in [0u64, 1] {
        assert!(
            matches!(cpu::negacyclic_naive(&[1], &[1], q), Err(Error::BadModulus { q: got, .. }) if got == q)
        );
    }
}

fn big(v: &[u32]) -> Vec<BigUint> {
    v.iter().map(|&x| BigUint::from(x)).collect()
}

#[test]
fn negacyclic_naive_big_length_mismatch_and_bad_n() {
    let q = BigUint::from(17u32);
    assert!(matches!(
        cpu::negacyclic_naive_big(&big(&[1, 2]), &big(&[1]), &q),
        Err(Error::LengthMismatch { what: "b", got: 1, expected: 2 })
    ));
    assert!(matches!(
        cpu::negacyclic_naive_big(&big(&[1, 2, 3]), &big(&[1, 2, 3]), &q),
        Err(Error::InvalidN { n: 3, .. })
    ));
    assert!(matches!(cpu::negacyclic_naive_big(&[], &[], &q), Err(Error::InvalidN { n: 0, .. })));
}

#[test]
fn negacyclic_naive_big_modulus_below_two() {
    for q in [0u32, 1] {
        let err = cpu::negacyclic_naive_big(&big(&[1, 1]), &big(&[1, 1]), &BigUint::from(q));
        assert!(matches!(err, Err(Error::BadModulus { q: got, .. }) if got == u64::from(q)));
    }
}

// ---------------------------------------------------------------------------
// cpu: transforms and products
// ---------------------------------------------------------------------------

type Transform = fn(&NttParams<u64>, &mut [u64]) -> polymul::Result<()>;

fn transforms() -> [(&'static str, Transform); 4] {
    [
        ("forward", |p, d| emulation::forward(p, d)),
        ("inverse", |p, d| emulation::inverse(p, d)),
        ("forward_with", |p, d| emulation::forward_with(p, Reduction::Barrett4, d)),
        ("inverse_with", |p, d| emulation::inverse_with(p, Reduction::Montgomery, d)),
    ]
}

#[test]
fn cpu_transforms_empty() {
    for (name, f) in transforms() {
        assert!(
            matches!(f(&p64(), &mut []), Err(Error::NotAMultipleOfN { what: "data", got: 0, n: N })),
            "{name}"
        );
    }
}

#[test]
fn cpu_transforms_not_a_multiple_of_n() {
    for (name, f) in transforms() {
        let mut d = ones(N + 1);
        assert!(
            matches!(f(&p64(), &mut d), Err(Error::NotAMultipleOfN { got, .. }) if got == N + 1),
            "{name}"
        );
        assert_eq!(d, ones(N + 1), "{name}: data changed");
    }
}

#[test]
fn cpu_transforms_coefficient_not_reduced() {
    let q = q30();
    for (name, f) in transforms() {
        let mut d = with_at(2 * N, N + 2, q);
        let err = f(&p64(), &mut d);
        assert!(
            matches!(err, Err(Error::CoefficientOutOfRange { what: "data", index, value, .. }) if index == N + 2 && value == q),
            "{name}"
        );
    }
}

#[test]
fn cpu_transforms_modulus_too_wide_for_the_reduction() {
    // A 62-bit prime: Dhem–Quisquater takes at most 60 bits on u64.
    let p = p62();
    let mut d = vec![0u64; N];
    assert!(matches!(
        emulation::forward_with(&p, Reduction::DhemQuisquater, &mut d),
        Err(Error::ModulusTooWide { bits: 62, max_bits: 60, word: 64, .. })
    ));
    assert!(matches!(
        emulation::inverse_with(&p, Reduction::DhemQuisquater, &mut d),
        Err(Error::ModulusTooWide { max_bits: 60, .. })
    ));
    assert!(matches!(
        emulation::polymul_with(&p, Reduction::DhemQuisquater, &d, &d),
        Err(Error::ModulusTooWide { max_bits: 60, .. })
    ));
}

#[test]
fn cpu_pointwise_mul_bad_buffers() {
    let (p, q) = (p64(), q30());
    assert!(matches!(
        emulation::pointwise_mul(&p, &mut [], &ones(N)),
        Err(Error::NotAMultipleOfN { what: "acc", got: 0, .. })
    ));
    assert!(matches!(
        emulation::pointwise_mul(&p, &mut ones(N), &ones(N - 1)),
        Err(Error::NotAMultipleOfN { what: "other", .. })
    ));
    assert!(matches!(
        emulation::pointwise_mul(&p, &mut ones(N), &ones(2 * N)),
        Err(Error::LengthMismatch { what: "other", got, expected: N }) if got == 2 * N
    ));
    assert!(matches!(
        emulation::pointwise_mul(&p, &mut ones(N), &with_at(N, 7, q)),
        Err(Error::CoefficientOutOfRange { what: "other", index: 7, .. })
    ));
}

#[test]
fn cpu_polymul_bad_buffers() {
    let (p, q) = (p64(), q30());
    for mul in [emulation::polymul::<u64>, |p: &NttParams<u64>, a: &[u64], b: &[u64]| {
        emulation::polymul_with(p, Reduction::Builtin, a, b)
    }] {
        assert!(matches!(mul(&p, &[], &[]), Err(Error::NotAMultipleOfN { what: "a", got: 0, .. })));
        assert!(matches!(mul(&p, &ones(N), &ones(N + 2)), Err(Error::NotAMultipleOfN { what: "b", .. })));
        assert!(matches!(
            mul(&p, &ones(N), &ones(2 * N)),
            Err(Error::LengthMismatch { what: "b", expected: N, .. })
        ));
        assert!(matches!(
            mul(&p, &ones(N), &with_at(N, 3, q)),
            Err(Error::CoefficientOutOfRange { what: "b", index: 3, .. })
        ));
        assert!(matches!(
            mul(&p, &with_at(N, 0, u64::MAX), &ones(N)),
            Err(Error::CoefficientOutOfRange { what: "a", index: 0, .. })
        ));
    }
}

#[test]
fn cpu_polymul_fused_n_below_four() {
    let p = NttParams::<u64>::with_prime_bits(2, 30).unwrap();
    assert!(matches!(
        emulation::polymul_fused(&p, Reduction::Shoup, &[1, 1], &[1, 1]),
        Err(Error::InvalidN { n: 2, min: 4, max: MAX_N })
    ));
    assert!(matches!(
        emulation::polymul_fused_tiled(&p, Reduction::Shoup, &[1, 1], &[1, 1], tiled(4, 2, false)),
        Err(Error::InvalidN { n: 2, min: 4, .. })
    ));
}

#[test]
fn cpu_polymul_fused_bad_buffers() {
    let (p, q) = (p64(), q30());
    assert!(matches!(
        emulation::polymul_fused(&p, Reduction::Shoup, &[], &[]),
        Err(Error::NotAMultipleOfN { got: 0, .. })
    ));
    assert!(matches!(
        emulation::polymul_fused(&p, Reduction::Shoup, &ones(N), &ones(2 * N)),
        Err(Error::LengthMismatch { what: "b", .. })
    ));
    assert!(matches!(
        emulation::polymul_fused_tiled(&p, Reduction::Shoup, &ones(N), &with_at(N, 1, q), tiled(4, 2, false)),
        Err(Error::CoefficientOutOfRange { what: "b", index: 1, .. })
    ));
}

#[test]
fn cpu_tiled_bad_radix() {
    let p = p64();
    for (log_radix, radix) in [(0u32, 1usize), (5, 32), (64, 0), (u32::MAX, 0)] {
        let mut d = ones(N);
        assert!(
            matches!(
                emulation::forward_tiled(&p, Reduction::Shoup, &mut d, tiled(4, log_radix, false)),
                Err(Error::BadRadix { radix: r }) if r == radix
            ),
            "{log_radix}"
        );
        assert!(matches!(
            emulation::inverse_tiled(&p, Reduction::Shoup, &mut d, tiled(4, log_radix, false)),
            Err(Error::BadRadix { .. })
        ));
        assert!(matches!(
            emulation::polymul_fused_tiled(&p, Reduction::Shoup, &d, &d, tiled(4, log_radix, false)),
            Err(Error::BadRadix { .. })
        ));
    }
}

#[test]
fn cpu_tiled_tile_too_small_for_n() {
    // N = 2^8 needs tiles of at least 2^4 words; a 2^3-word tile cannot.
    let p = NttParams::<u64>::with_prime_bits(256, 30).unwrap();
    let mut d = vec![1u64; 256];
    for two_d in [false, true] {
        assert!(matches!(
            emulation::forward_tiled(&p, Reduction::Shoup, &mut d, tiled(3, 2, two_d)),
            Err(Error::InvalidN { n: 256, max: 64, .. })
        ));
        assert!(matches!(
            emulation::inverse_tiled(&p, Reduction::Shoup, &mut d, tiled(0, 2, two_d)),
            Err(Error::InvalidN { .. })
        ));
    }
    assert_eq!(d, vec![1u64; 256]);
    // The 2D split needs N >= 4.
    let p2 = NttParams::<u64>::with_prime_bits(2, 30).unwrap();
    assert!(matches!(
        emulation::forward_tiled(&p2, Reduction::Shoup, &mut [1, 1], tiled(4, 2, true)),
        Err(Error::InvalidN { n: 2, min: 4, .. })
    ));
}

#[test]
fn cpu_tiled_bad_data() {
    let (p, q) = (p64(), q30());
    assert!(matches!(
        emulation::forward_tiled(&p, Reduction::Shoup, &mut [], tiled(4, 2, false)),
        Err(Error::NotAMultipleOfN { got: 0, .. })
    ));
    assert!(matches!(
        emulation::inverse_tiled(&p, Reduction::Shoup, &mut with_at(N, 2, q), tiled(4, 2, false)),
        Err(Error::CoefficientOutOfRange { index: 2, .. })
    ));
}

/// Shift counts of any size: a typed error (saturated sizes), never a shift overflow.
#[test]
fn tile_geometry_and_geometry_2d_huge_shifts() {
    for (log_n, log_tile) in [(100u32, 40u32), (64, 31), (u32::MAX, u32::MAX / 2), (40, 0)] {
        assert!(
            matches!(polymul::expert::tile_geometry(log_n, log_tile), Err(Error::InvalidN { .. })),
            "{log_n} {log_tile}"
        );
        assert!(
            matches!(polymul::expert::geometry_2d(log_n, log_tile), Err(Error::InvalidN { .. })),
            "{log_n} {log_tile}"
        );
        assert!(matches!(tiled(log_tile, 2, false).geometry(log_n), Err(Error::InvalidN { .. })));
    }
    assert!(matches!(
        polymul::expert::tile_geometry(100, 40),
        Err(Error::InvalidN { n: usize::MAX, max: usize::MAX, .. })
    ));
    assert!(matches!(polymul::expert::geometry_2d(1, 4), Err(Error::InvalidN { n: 2, min: 4, .. })));
    assert!(matches!(polymul::expert::geometry_2d(0, 4), Err(Error::InvalidN { n: 1, .. })));
}

// ---------------------------------------------------------------------------
// rns
// ---------------------------------------------------------------------------

#[test]
fn rns_basis_from_primes_empty() {
    assert!(matches!(RnsBasis::<u64>::from_primes(N, &[]), Err(Error::EmptyBasis)));
}

#[test]
fn rns_basis_from_primes_duplicate() {
    let qs = params::ntt_primes(30, N, 2).unwrap();
    assert!(matches!(
        RnsBasis::<u64>::from_primes(N, &[qs[0], qs[1], qs[0]]),
        Err(Error::DuplicatePrime { q }) if q == qs[0]
    ));
}

#[test]
fn rns_basis_from_primes_bad_prime() {
    let q = q30();
    assert!(matches!(
        RnsBasis::<u64>::from_primes(N, &[q, 1_000_001]),
        Err(Error::NotPrime { q: 1_000_001 })
    ));
    assert!(matches!(
        RnsBasis::<u64>::from_primes(N, &[q, (1 << 31) - 1]),
        Err(Error::NotNttFriendly { .. })
    ));
    let q62 = params::ntt_primes(62, N, 1).unwrap()[0];
    assert!(matches!(RnsBasis::<u32>::from_primes(N, &[q62]), Err(Error::ModulusTooWide { word: 32, .. })));
    assert!(matches!(RnsBasis::<u64>::from_primes(12, &[q]), Err(Error::InvalidN { n: 12, .. })));
}

#[test]
fn rns_basis_from_primes_too_many() {
    let many = vec![q30(); MAX_PRIME_COUNT + 1];
    assert!(matches!(
        RnsBasis::<u64>::from_primes(N, &many),
        Err(Error::TooManyPrimes { wanted, max: MAX_PRIME_COUNT }) if wanted == MAX_PRIME_COUNT + 1
    ));
}

#[test]
fn rns_basis_new_bad_count_and_width() {
    assert!(matches!(RnsBasis::<u64>::new(N, 30, 0), Err(Error::EmptyBasis)));
    assert!(matches!(RnsBasis::<u64>::new(N, 30, usize::MAX), Err(Error::TooManyPrimes { .. })));
    assert!(matches!(RnsBasis::<u64>::new(N, 63, 2), Err(Error::UnsupportedPrimeWidth { bits: 63, .. })));
    assert!(matches!(RnsBasis::<u64>::new(1 << 20, 20, 1), Err(Error::NotEnoughPrimes { found: 0, .. })));
    assert!(matches!(RnsBasis::<u64>::new(0, 30, 1), Err(Error::InvalidN { n: 0, .. })));
}

#[test]
fn rns_basis_with_modulus_bits_too_wide_a_q() {
    assert!(matches!(RnsBasis::<u64>::with_modulus_bits(N, 30, u64::MAX), Err(Error::TooManyPrimes { .. })));
    assert!(matches!(
        RnsBasis::<u64>::with_modulus_bits(N, 1, 100),
        Err(Error::UnsupportedPrimeWidth { bits: 1, .. })
    ));
}

#[test]
fn rns_to_residues_bad_coefficients() {
    let b = basis2();
    assert!(matches!(b.to_residues(&[]), Err(Error::NotAMultipleOfN { what: "coeffs", got: 0, n: N })));
    assert!(
        matches!(b.to_residues(&big(&[1; N + 1])), Err(Error::NotAMultipleOfN { got, .. }) if got == N + 1)
    );
    let mut c = big(&[1; 2 * N]);
    c[N + 4] = b.modulus().clone();
    let q_bits = b.modulus().bits();
    assert!(matches!(
        b.to_residues(&c),
        Err(Error::BigCoefficientOutOfRange { what: "coeffs", index, bits, q_bits: qb }) if index == N + 4 && bits == q_bits && qb == q_bits
    ));
}

#[test]
fn rns_from_residues_bad_residues() {
    let b = basis2();
    let qs = b.primes();
    assert!(matches!(b.from_residues(&[]), Err(Error::NotAMultipleOfN { what: "residues", got: 0, .. })));
    // Residues for one tower, given to a basis of two.
    assert!(matches!(b.from_residues(&ones(N)), Err(Error::NotAMultipleOfN { got: N, n, .. }) if n == 2 * N));
    // A residue of tower 1 not below q_1: the index is into the whole buffer.
    let r = with_at(2 * N, N + 5, qs[1]);
    assert!(matches!(
        b.from_residues(&r),
        Err(Error::CoefficientOutOfRange { what: "residues", index, q, .. }) if index == N + 5 && q == qs[1]
    ));
}

#[test]
fn cpu_rns_polymul_bad_layouts() {
    let b = basis2();
    let qs = b.primes();
    assert!(matches!(
        emulation::rns_polymul(&b, &[], &[]),
        Err(Error::NotAMultipleOfN { what: "a", got: 0, .. })
    ));
    // One tower's worth of data for a two-tower basis (wrong tower count).
    assert!(
        matches!(emulation::rns_polymul(&b, &ones(N), &ones(N)), Err(Error::NotAMultipleOfN { got: N, n, .. }) if n == 2 * N)
    );
    // A three-tower layout (3·N words) is not a whole number of 2-tower batches either.
    assert!(matches!(
        emulation::rns_polymul(&b, &ones(3 * N), &ones(3 * N)),
        Err(Error::NotAMultipleOfN { .. })
    ));
    assert!(matches!(
        emulation::rns_polymul(&b, &ones(2 * N), &ones(4 * N)),
        Err(Error::LengthMismatch { what: "b", expected, .. }) if expected == 2 * N
    ));
    let bad = with_at(2 * N, N + 1, qs[1]);
    assert!(matches!(
        emulation::rns_polymul(&b, &ones(2 * N), &bad),
        Err(Error::CoefficientOutOfRange { what: "b", index, q, .. }) if index == N + 1 && q == qs[1]
    ));
}

// ---------------------------------------------------------------------------
// dgt
// ---------------------------------------------------------------------------

#[test]
fn dgt_primes_bad_width_n_and_count() {
    assert!(matches!(dgt::dgt_primes(19, N, 1), Err(Error::UnsupportedPrimeWidth { bits: 19, .. })));
    assert!(matches!(dgt::dgt_primes(63, N, 1), Err(Error::UnsupportedPrimeWidth { bits: 63, .. })));
    for n in [0usize, 2, 12, dgt::MAX_N * 2] {
        assert!(
            matches!(dgt::dgt_primes(30, n, 1), Err(Error::InvalidN { n: got, min: 4, .. }) if got == n),
            "{n}"
        );
    }
    assert!(matches!(dgt::dgt_primes(30, N, MAX_PRIME_COUNT + 1), Err(Error::TooManyPrimes { .. })));
}

/// N above 2^bits: no candidate at all (this used to underflow).
#[test]
fn dgt_primes_n_larger_than_the_width() {
    assert!(matches!(
        dgt::dgt_primes(20, dgt::MAX_N, 1),
        Err(Error::NotEnoughPrimes { bits: 20, found: 0, .. })
    ));
    assert!(matches!(dgt::dgt_primes(20, 1 << 20, 1), Err(Error::NotEnoughPrimes { found: 0, .. })));
}

#[test]
fn dgt_params_new_bad_n() {
    let p = dgt30().p();
    for n in [0usize, 2, 12, dgt::MAX_N * 2] {
        assert!(
            matches!(DgtParams::<u64>::new(n, p), Err(Error::InvalidN { n: got, min: 4, .. }) if got == n),
            "{n}"
        );
    }
}

#[test]
fn dgt_params_new_prime_of_the_wrong_form() {
    // An NTT prime q ≡ 1 (mod 2N) is not ≡ −1 (mod N).
    assert!(matches!(DgtParams::<u64>::new(N, q30()), Err(Error::NotDgtFriendly { n: N, .. })));
    assert!(matches!(DgtParams::<u64>::new(N, 1_000_001), Err(Error::NotPrime { q: 1_000_001 })));
    assert!(matches!(DgtParams::<u64>::new(N, 0), Err(Error::NotPrime { q: 0 })));
}

#[test]
fn dgt_params_new_too_wide() {
    let wide = dgt::dgt_primes(31, N, 1).unwrap()[0];
    assert!(matches!(
        DgtParams::<u32>::new(N, wide),
        Err(Error::ModulusTooWide { bits: 31, max_bits: 30, .. })
    ));
    assert!(matches!(DgtParams::<u64>::new(N, u64::MAX), Err(Error::ModulusTooWide { bits: 64, .. })));
    assert!(matches!(
        DgtParams::<u32>::with_prime_bits(N, 31),
        Err(Error::UnsupportedPrimeWidth { bits: 31, .. })
    ));
    assert!(matches!(DgtParams::<u64>::with_prime_bits(3, 30), Err(Error::InvalidN { n: 3, .. })));
}

#[test]
fn gaussian_arithmetic_bad_modulus() {
    assert!(matches!(emudgt::gmul((1, 2), (3, 4), 0), Err(Error::BadModulus { q: 0, .. })));
    assert!(matches!(emudgt::gpow((1, 2), 3, 0), Err(Error::BadModulus { q: 0, .. })));
    assert!(matches!(emudgt::ginv((1, 2), 1), Err(Error::BadModulus { q: 1, .. })));
    assert!(matches!(emudgt::ginv((0, 0), 7), Err(Error::NotInvertible { value: 0, q: 7 })));
    // 1 + 2i has norm 5 ≡ 0 (mod 5).
    assert!(matches!(emudgt::ginv((1, 2), 5), Err(Error::NotInvertible { value: 0, q: 5 })));
}

/// Unreduced components and a 64-bit p: reduced, no overflow.
#[test]
fn gaussian_arithmetic_unreduced_and_wide() {
    assert_eq!(emudgt::gmul((8, 9), (1, 0), 7).unwrap(), (1, 2));
    let inv = emudgt::ginv((1, 20), 7).unwrap();
    assert_eq!(emudgt::gmul(inv, (1, 6), 7).unwrap(), (1, 0));
    let p = u64::MAX - 58; // prime
    let a = (p - 1, p - 2);
    assert_eq!(emudgt::gmul(a, (1, 0), p).unwrap(), a);
    assert_eq!(emudgt::gmul(a, emudgt::ginv(a, p).unwrap(), p).unwrap(), (1, 0));
}

#[test]
fn dgt_config_passes_bad_configurations() {
    let bad = |c: DgtConfig, log_m: u32| matches!(c.passes(log_m), Err(Error::BadDgtConfig { .. }));
    let c =
        |stages1, log_cluster1, log_cluster2| DgtConfig { stages1, log_cluster1, log_cluster2, log_unit: 0 };
    assert!(bad(c(0, 0, 0), 5)); // no stage
    assert!(bad(c(6, 0, 0), 5)); // more stages than log2 M
    assert!(bad(c(1, 0, 0), 0)); // N = 2
    assert!(bad(c(11, 0, 0), 11)); // 11 stages in one kernel
    assert!(bad(c(5, 1, 0), 5)); // more sets per block than the pass has
    assert!(bad(c(8, 3, 0), 11)); // 2^11 threads per block
    let u = |log_unit| DgtConfig { log_unit, ..c(6, 2, 0) };
    assert!(bad(u(4), 15)); // units above radix 8
    assert!(bad(u(u32::MAX), 15));
    assert!(!bad(u(3), 15));
    // Register units: λ·2^k may pass 1024 elements, not 512 threads.
    let wide = |log_unit| DgtConfig { log_unit, ..c(10, 1, 0) };
    assert!(bad(wide(1), 11) && !bad(wide(2), 11));
    // A huge unit prints (it saturates, as clusters do).
    assert_eq!(u(70).to_string(), "k1=6 λ1=4 λ2=1 r=2^70");
}

/// Huge stage and cluster counts: a typed error (or an empty search), no
/// shift overflow and no endless loop.
#[test]
fn dgt_config_huge_values() {
    let c = DgtConfig { stages1: 3, log_cluster1: 40, log_cluster2: u32::MAX, log_unit: 0 };
    assert!(matches!(c.passes(3), Err(Error::BadDgtConfig { n: 16, .. })));
    assert_eq!(c.to_string(), "k1=3 λ1=1099511627776 λ2=2^4294967295");
    let c = DgtConfig { stages1: 10, log_cluster1: 30, log_cluster2: 0, log_unit: 0 };
    assert!(matches!(c.passes(40), Err(Error::BadDgtConfig { .. })));
    let c = DgtConfig { stages1: 3, log_cluster1: 0, log_cluster2: 0, log_unit: 0 };
    assert!(matches!(c.passes(62), Err(Error::BadDgtConfig { n, .. }) if n == 1 << 63));
    for log_m in [63, 64, u32::MAX] {
        assert!(matches!(c.passes(log_m), Err(Error::BadDgtConfig { n: usize::MAX, .. })), "{log_m}");
    }
    assert!(DgtConfig::all(u32::MAX, u32::MAX).is_empty());
    assert!(DgtConfig::all(0, 5).is_empty());
    assert_eq!(DgtConfig::all(6, u32::MAX), DgtConfig::all(6, 6));
    let _ = DgtConfig::default_for(u32::MAX).passes(u32::MAX);
}

#[test]
fn dgt_tables_bad_configuration() {
    let cfg = DgtConfig { stages1: 9, log_cluster1: 0, log_cluster2: 0, log_unit: 0 }; // log2 M = 3 for N = 16
    assert!(matches!(DgtTables::new(&dgt30(), &cfg), Err(Error::BadDgtConfig { n: N, .. })));
}

#[test]
fn pass_twiddles_bad_geometry_and_short_roots() {
    let roots = vec![(1u64, 0u64); 1 << 12];
    let geo = |log_m, s0, s1| PassGeometry { log_m, s0, s1, log_cluster: 0, log_unit: 0 };
    for g in [
        geo(4, 3, 2),
        geo(4, 2, 2),
        geo(4, 0, 5),
        geo(21, 0, 10),
        geo(30, 0, 12),
        geo(u32::MAX, 0, 3),
        geo(12, 0, 11),
    ] {
        assert!(matches!(emudgt::pass_twiddles(&g, &roots), Err(Error::BadDgtConfig { .. })), "{g:?}");
    }
    assert!(matches!(
        emudgt::pass_twiddles(&geo(4, 0, 4), &roots[..7]),
        Err(Error::LengthMismatch { what: "roots", got: 7, expected: 8 })
    ));
    assert!(matches!(
        emudgt::pass_twiddles(&geo(1, 0, 1), &[]),
        Err(Error::LengthMismatch { expected: 1, .. })
    ));
    assert!(emudgt::pass_twiddles(&geo(4, 0, 4), &roots[..8]).is_ok());
}

#[test]
fn dgt_cpu_bad_buffers() {
    let (p, cfg) = (dgt30(), dgt_cfg());
    let q = p.p();
    assert!(matches!(
        emulation::dgt::forward(&p, &cfg, &mut []),
        Err(Error::NotAMultipleOfN { what: "data", got: 0, n: N })
    ));
    assert!(
        matches!(emulation::dgt::inverse(&p, &cfg, &mut ones(N + 1)), Err(Error::NotAMultipleOfN { got, .. }) if got == N + 1)
    );
    assert!(matches!(
        emulation::dgt::forward(&p, &cfg, &mut with_at(N, 3, q)),
        Err(Error::CoefficientOutOfRange { what: "data", index: 3, .. })
    ));
    assert!(matches!(
        emulation::dgt::polymul(&p, &cfg, &[], &[]),
        Err(Error::NotAMultipleOfN { what: "a", .. })
    ));
    assert!(matches!(
        emulation::dgt::polymul(&p, &cfg, &ones(N), &ones(2 * N)),
        Err(Error::LengthMismatch { what: "b", .. })
    ));
    assert!(matches!(
        emulation::dgt::polymul(&p, &cfg, &ones(N), &with_at(N, 15, u64::MAX)),
        Err(Error::CoefficientOutOfRange { what: "b", index: 15, .. })
    ));
}

#[test]
fn dgt_cpu_bad_configuration() {
    let p = dgt30();
    let cfg = DgtConfig { stages1: 0, log_cluster1: 0, log_cluster2: 0, log_unit: 0 };
    assert!(matches!(emulation::dgt::forward(&p, &cfg, &mut ones(N)), Err(Error::BadDgtConfig { .. })));
    assert!(matches!(emulation::dgt::inverse(&p, &cfg, &mut ones(N)), Err(Error::BadDgtConfig { .. })));
    assert!(matches!(emulation::dgt::polymul(&p, &cfg, &ones(N), &ones(N)), Err(Error::BadDgtConfig { .. })));
}

// ---------------------------------------------------------------------------
// reduction, random
// ---------------------------------------------------------------------------

#[test]
fn prepared_bad_modulus() {
    for r in Reduction::ALL {
        assert!(matches!(Multiplicands::<u64>::new(r, 0, &[]), Err(Error::BadModulus { q: 0, .. })), "{r}");
        assert!(matches!(Multiplicands::<u64>::new(r, 1 << 20, &[]), Err(Error::BadModulus { .. })), "{r}");
        assert!(matches!(Multiplicands::<u64>::new(r, 3, &[1]), Err(Error::BadModulus { q: 3, .. })), "{r}");
        assert!(
            matches!(
                Multiplicands::<u32>::new(r, u32::MAX, &[1]),
                Err(Error::ModulusTooWide { bits: 32, word: 32, max_bits, .. }) if max_bits == r.max_bits(32)
            ),
            "{r}"
        );
    }
}

#[test]
fn prepared_value_not_reduced() {
    let q = q30() as u32;
    for r in Reduction::ALL.into_iter().filter(|r| r.max_bits(32) >= 30) {
        assert!(
            matches!(
                Multiplicands::<u32>::new(r, q, &[1, 2, q, 3]),
                Err(Error::CoefficientOutOfRange { what: "values", index: 2, value, q: m }) if value == u64::from(q) && m == u64::from(q)
            ),
            "{r}"
        );
    }
}

#[test]
fn reduction_unknown_names_and_words() {
    assert_eq!(Reduction::from_name("bogus"), None);
    assert_eq!(Reduction::from_name(""), None);
    for r in Reduction::ALL {
        for word in [0u32, 16, 31, 128, u32::MAX] {
            assert_eq!(r.max_bits(word), 0, "{r} on {word}-bit words");
        }
    }
}

/// `bound = 0` stands for `2^64` (documented): no division by zero.
#[test]
fn random_zero_bound() {
    let mut rng = SplitMix64::new(1);
    let mut same = SplitMix64::new(1);
    assert_eq!(rng.below(0), same.next_u64());
    assert_eq!(rng.coeffs::<u64>(3, 0).len(), 3);
    assert_eq!(rng.coeffs::<u32>(0, 0), Vec::<u32>::new());
}

#[test]
fn median_of_nothing_is_nan() {
    assert!(polymul::expert::median(&mut []).is_nan());
}

// ---------------------------------------------------------------------------
// planner and wisdom
// ---------------------------------------------------------------------------

fn key() -> WisdomKey {
    WisdomKey { device: "GPU".into(), log_n: 4, word_bits: 64, towers: 1, batch_bucket: 0 }
}

/// `decide` is total: any N and prime give a decision (the plan built from
/// it reports what is wrong), no division by zero or overflow.
#[test]
fn decide_bad_n_or_prime() {
    for n in [0usize, 3, 12, usize::MAX] {
        for m in [Modulus::Prime(0), Modulus::Prime(7), Modulus::Prime(u64::MAX), Modulus::Bits(999)] {
            assert_eq!(planner::decide(&key(), &m, n, None).choice, planner::rule(), "{n} {m:?}");
        }
    }
    // p = 2^64 − 1 ≡ −1 (mod 4) and ≢ 1 (mod 8): the DGT's form (p + 1 = 2^64
    // does not overflow the check).
    let d = planner::decide(&key(), &Modulus::Prime(u64::MAX), 4, None);
    assert!(matches!(d.choice, Choice::Dgt { .. }), "{d:?}");
}

#[test]
fn batch_bucket_of_any_batch() {
    assert_eq!(planner::batch_bucket(0), 0);
    assert_eq!(planner::batch_bucket(usize::MAX), usize::BITS);
    assert_eq!(planner::batch_bucket((1 << (usize::BITS - 1)) + 1), usize::BITS);
}

fn wisdom_why(r: polymul::Result<Option<Wisdom>>) -> String {
    match r {
        Err(Error::Wisdom { why, .. }) => why,
        other => panic!("expected Error::Wisdom, got {other:?}"),
    }
}

#[test]
fn wisdom_from_json_bad_text() {
    let origin = Path::new("w.json");
    for text in ["", "{", "[]", "null", "{\"version\": 1}", "{\"version\": 1, \"entries\": [{}]}"] {
        assert!(
            matches!(Wisdom::from_json(text, origin), Err(Error::Wisdom { ref path, .. }) if path == origin),
            "{text:?}"
        );
    }
    let other = "{\"version\": 99, \"entries\": []}";
    assert!(
        matches!(Wisdom::from_json(other, origin), Err(Error::Wisdom { ref why, .. }) if why.contains("99"))
    );
}

/// A well-formed file can hold a configuration no plan takes; printing it
/// (what an error message does) must not panic.
#[test]
fn wisdom_with_absurd_dgt_configuration_prints() {
    let text = r#"{"version": 1, "entries": [{"key": {"device": "GPU", "log_n": 4, "word_bits": 64, "towers": 1,
        "batch_bucket": 0}, "winner": {"transform": "dgt", "config": {"stages1": 4294967295,
        "log_cluster1": 4294967295, "log_cluster2": 64}}, "us_per_poly": 1.0, "candidates": 1}]}"#;
    let w = Wisdom::from_json(text, Path::new("w.json")).unwrap();
    let e = w.lookup(&key()).unwrap();
    assert!(e.winner.to_string().contains("2^4294967295"));
    assert!(w.markdown_table().contains("2^64"));
    let Choice::Dgt { config } = e.winner else { panic!("{:?}", e.winner) };
    assert!(matches!(config.passes(3), Err(Error::BadDgtConfig { .. })));
}

#[test]
fn wisdom_load_unreadable_files() {
    let dir = fresh_dir("wisdom-load");
    // Missing: no wisdom (documented), not an error.
    assert_eq!(Wisdom::load(&dir.join("none.json")).unwrap(), None);
    // A folder, bytes that are not UTF-8, garbage, a truncated file.
    assert!(!wisdom_why(Wisdom::load(&dir)).is_empty());
    std::fs::write(dir.join("binary.json"), [0xff, 0xfe, 0x00, 0x93]).unwrap();
    assert!(!wisdom_why(Wisdom::load(&dir.join("binary.json"))).is_empty());
    std::fs::write(dir.join("garbage.json"), "not json").unwrap();
    assert!(!wisdom_why(Wisdom::load(&dir.join("garbage.json"))).is_empty());
    let good = Wisdom::new().to_json();
    std::fs::write(dir.join("cut.json"), &good[..good.len() / 2]).unwrap();
    assert!(!wisdom_why(Wisdom::load(&dir.join("cut.json"))).is_empty());
    // A path through a regular file.
    assert!(!wisdom_why(Wisdom::load(&dir.join("garbage.json").join("w.json"))).is_empty());
}

#[test]
fn wisdom_save_unwritable_paths() {
    let dir = fresh_dir("wisdom-save");
    std::fs::write(dir.join("file"), "x").unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    let w = Wisdom::new();
    // Under a regular file, and onto a folder: Io errors, nothing left.
    for path in
        [dir.join("file").join("w.json"), dir.join("file").join("sub").join("w.json"), dir.join("folder")]
    {
        assert!(matches!(w.save(&path), Err(Error::Io { .. })), "{}", path.display());
    }
    assert_eq!(listing(&dir), ["file", "folder"]);
    assert!(listing(&dir.join("folder")).is_empty());
    assert_eq!(std::fs::read_to_string(dir.join("file")).unwrap(), "x");
}

#[test]
fn tune_spec_bad_keys() {
    let ok = TuneSpec {
        log_ns: vec![10],
        words: vec![32, 64],
        towers: vec![1, 4],
        batches: vec![1, 64],
        quick: true,
    };
    assert!(ok.check().is_ok());
    assert!(TuneSpec::new(true).check().is_ok() && TuneSpec::default().check().is_ok());
    for log_n in [0u32, 25, 64, u32::MAX] {
        let s = TuneSpec { log_ns: vec![10, log_n], ..ok.clone() };
        assert!(
            matches!(
                s.check(),
                Err(Error::ArgumentOutOfRange { what: "log2 N", value, min: 1, max: 24 }) if value == u64::from(log_n)
            ),
            "{log_n}"
        );
    }
    for bits in [0u32, 16, 128] {
        let s = TuneSpec { words: vec![bits], ..ok.clone() };
        assert!(matches!(s.check(), Err(Error::UnsupportedWord { bits: b }) if b == bits));
    }
    assert!(matches!(TuneSpec { towers: vec![0], ..ok.clone() }.check(), Err(Error::EmptyBasis)));
    assert!(matches!(
        TuneSpec { towers: vec![usize::MAX], ..ok.clone() }.check(),
        Err(Error::TooManyPrimes { .. })
    ));
    assert!(matches!(
        TuneSpec { batches: vec![0], ..ok.clone() }.check(),
        Err(Error::NotAMultipleOfN { what: "batch", got: 0, .. })
    ));
    assert!(matches!(
        TuneSpec { batches: vec![usize::MAX], ..ok.clone() }.check(),
        Err(Error::BatchTooLarge { n: 1024, .. })
    ));
}
