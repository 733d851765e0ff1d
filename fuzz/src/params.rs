//! Target `params`: structured numbers into every public parameter
//! constructor and validator.
//!
//! Input layout (little-endian, zeros past the end of the input):
//!
//! | field | type | use |
//! |---|---|---|
//! | `flags` | u8 | bits 0–1: how N is made from `n_raw`; bits 2–3: how q is made from `q_raw`; bit 4: a huge prime count where the search is short; bit 5: small DGT configuration fields; bits 6–7: unused |
//! | `n_raw` | u64 | N: `2^(n_raw mod 64)`, `n_raw` itself, `2^(n_raw mod 13)` or `n_raw mod 70000` |
//! | `q_raw` | u64 | q: `q_raw`, `k·2N + 1`, `k·N − 1` (`k` from `q_raw`) or `q_raw >> (q_raw mod 64)` |
//! | `bits` | u8 | prime width (taken mod 80) |
//! | `count` | u8 | primes wanted (mod 17, or `usize::MAX − count`) |
//! | `stages1`, `log_cluster1`, `log_cluster2`, `log_m` | u32 ×4 | a `DgtConfig` and its `log2 M`; also the tile geometry's `log_n` and `log_max_tile` |
//! | `batch` | u64 | batch sizes and `log2 Q` |
//! | `pick` | u8 | the reduction (mod 6), the RNS tower count (`pick >> 4`, mod 5) |
//! | then | u8 + u64 per tower | each RNS prime: a generated NTT prime, q, a raw u64 or the previous one again |
//!
//! Every call must return `Ok` or a typed error; the checks below also
//! compute, with [`crate::oracle`]'s independent arithmetic, which answer
//! the documentation promises, and compare:
//!
//! * `check_n`; `NttParams::<u32/u64>::new` (the exact error kind, or Ok
//!   with q prime, `q ≡ 1 (mod 2N)`, ψ of order exactly 2N, ψ·ψ⁻¹ = 1,
//!   N·N⁻¹ = 1, twiddles the bit-reversed powers, `max_batch` and
//!   `check_batch_size`); `NttParams::with_prime_bits` (the largest such
//!   prime of exactly that width); `ntt_primes`, `ntt_prime_below`,
//!   `primitive_root_2n`;
//! * `DgtParams::<u32/u64>::new` / `with_prime_bits` (p prime,
//!   `p ≡ −1 (mod N)`, `ξ^(N/2) = i`, `ξ^N = −1`, `g = ξ^4` of order
//!   exactly M, weights times inverse weights = 1/M); `dgt_primes`;
//! * `RnsBasis::<u32/u64>::from_primes` / `new` / `with_modulus_bits`
//!   (primes, `Q` their product, CRT round trip, fewest primes for the
//!   asked width); `DgtConfig::passes` / `default_for` / `all`;
//!   `tile_geometry` / `geometry_2d` / `TiledConfig::geometry`;
//!   `Reduction` names and widths, `Multiplicands::new`; the planner's
//!   `batch_bucket`, `decide` (without wisdom), `auto_kernel`,
//!   `auto_radix`, `is_batched`.

use crate::input::Input;
use crate::oracle::{self, bit_reverse, bits as bit_len, gmul, gpow, is_prime, mul_mod, pow_mod};
use num_bigint::BigUint;
use polymul::dgt::{DgtConfig, DgtParams, dgt_primes};
use polymul::expert::emulation::TiledConfig;
use polymul::expert::{Multiplicands, NttKernel, Reduction};
use polymul::expert::{geometry_2d, tile_geometry};
use polymul::params::{
    MAX_N, MAX_PRIME_COUNT, MIN_N, MIN_PRIME_BITS, check_n, ntt_prime_below, ntt_primes, primitive_root_2n,
};
use polymul::planner::{Choice, Modulus, WisdomKey, batch_bucket, decide};
use polymul::rns::RnsBasis;
use polymul::{Coeff, Error, NttParams};

/// Largest N for which constructors that build tables are run (their cost
/// grows with N; the range checks are exercised with any N).
const MAX_TABLE_N: usize = 1 << 12;
/// Largest N for RNS bases (one table per tower, CRT per coefficient).
const MAX_RNS_N: usize = 1 << 6;
/// A prime search with at most this many candidates is cheap enough to run
/// with any count and to be checked exhaustively.
const SHORT_SEARCH: u128 = 1 << 10;
/// Algorithm 4's widest modulus on 32- and 64-bit words.
const fn max_bits(word_bits: u32) -> u32 {
    if word_bits == 32 { 30 } else { 62 }
}

/// The decoded input.
#[derive(Debug, Clone)]
struct Case {
    n: usize,
    q: u64,
    bits: u32,
    count: usize,
    config: DgtConfig,
    log_m: u32,
    batch: u64,
    pick: u8,
    towers: Vec<(u8, u64)>,
}

fn decode(data: &[u8]) -> Case {
    let mut i = Input::new(data);
    let flags = i.u8();
    let n_raw = i.u64();
    let q_raw = i.u64();
    let n = match flags & 3 {
        0 => 1usize << (n_raw % 64),
        1 => n_raw as usize,
        2 => 1usize << (n_raw % 13),
        _ => (n_raw % 70_000) as usize,
    };
    let width = 2 + (q_raw % 62) as u32;
    let k = (q_raw >> 6) & ((1u64 << width) - 1);
    let q = match (flags >> 2) & 3 {
        0 => q_raw,
        1 => (n as u64)
            .checked_mul(2)
            .and_then(|t| k.checked_mul(t))
            .and_then(|x| x.checked_add(1))
            .unwrap_or(q_raw),
        2 => k.checked_mul(n as u64).and_then(|x| x.checked_sub(1)).unwrap_or(q_raw),
        _ => q_raw >> (q_raw % 64),
    };
    let bits = u32::from(i.u8() % 80);
    let count_raw = i.u8();
    let huge_count = flags & 16 != 0;
    let count = if huge_count { usize::MAX - usize::from(count_raw) } else { usize::from(count_raw % 17) };
    let small = flags & 32 != 0;
    let field = |i: &mut Input| if small { i.u32() % 24 } else { i.u32() };
    let config = DgtConfig {
        stages1: field(&mut i),
        log_cluster1: field(&mut i),
        log_cluster2: field(&mut i),
        log_unit: 0,
    };
    let log_m = field(&mut i);
    let batch = i.u64();
    let pick = i.u8();
    let towers = (0..(pick >> 4) % 5).map(|_| (i.u8(), i.u64())).collect();
    Case { n, q, bits, count, config, log_m, batch, pick, towers }
}

/// Runs the checks on one input.
pub fn check(data: &[u8]) {
    oracle::self_check();
    let c = decode(data);
    check_n_range(c.n);
    ntt_params::<u32>(&c);
    ntt_params::<u64>(&c);
    prime_search(&c);
    dgt_params::<u32>(&c);
    dgt_params::<u64>(&c);
    rns::<u32>(&c);
    rns::<u64>(&c);
    dgt_config(&c);
    tiles(&c);
    reductions::<u32>(&c);
    reductions::<u64>(&c);
    planner(&c);
}

fn valid_n(n: usize) -> bool {
    n.is_power_of_two() && (MIN_N..=MAX_N).contains(&n)
}

fn check_n_range(n: usize) {
    match check_n(n) {
        Ok(log) => assert!(valid_n(n) && 1usize << log == n),
        Err(e) => {
            assert!(!valid_n(n));
            assert!(matches!(e, Error::InvalidN { n: m, .. } if m == n), "{e:?}");
        }
    }
}

/// What `NttParams::new(n, q)` must answer.
#[derive(Debug, PartialEq, Eq)]
enum Want {
    InvalidN,
    TooWide,
    BadModulus,
    NotPrime,
    NotFriendly,
    Ok,
}

fn ntt_want(n: usize, q: u64, word_bits: u32) -> Want {
    if !valid_n(n) {
        Want::InvalidN
    } else if bit_len(q) > max_bits(word_bits) {
        Want::TooWide
    } else if q.is_multiple_of(2) || q < 5 {
        Want::BadModulus
    } else if !is_prime(q) {
        Want::NotPrime
    } else if !(q - 1).is_multiple_of(2 * n as u64) {
        Want::NotFriendly
    } else {
        Want::Ok
    }
}

fn kind(e: &Error) -> Want {
    match e {
        Error::InvalidN { .. } => Want::InvalidN,
        Error::ModulusTooWide { .. } => Want::TooWide,
        Error::BadModulus { .. } => Want::BadModulus,
        Error::NotPrime { .. } => Want::NotPrime,
        Error::NotNttFriendly { .. } | Error::NotDgtFriendly { .. } => Want::NotFriendly,
        other => panic!("unexpected error kind: {other:?}"),
    }
}

fn ntt_params<W: Coeff>(c: &Case) {
    let cheap = c.n <= MAX_TABLE_N || !valid_n(c.n);
    if cheap {
        let want = ntt_want(c.n, c.q, W::BITS);
        match NttParams::<W>::new(c.n, c.q) {
            Ok(p) => {
                assert_eq!(want, Want::Ok, "NttParams::new({}, {}) accepted", c.n, c.q);
                check_ntt(&p, c.batch);
            }
            Err(e) => {
                let _ = e.to_string();
                assert_eq!(kind(&e), want, "NttParams::new({}, {}): {e}", c.n, c.q);
            }
        }
        match NttParams::<W>::with_prime_bits(c.n, c.bits) {
            Ok(p) => {
                let q = p.q().as_u64();
                assert_eq!(bit_len(q), c.bits);
                check_ntt(&p, c.batch);
                assert_no_prime_between(q, 1u64 << c.bits, 2 * c.n as u128, 1);
            }
            Err(Error::InvalidN { .. }) => assert!(!valid_n(c.n)),
            Err(Error::UnsupportedPrimeWidth { bits, .. }) => {
                assert!(valid_n(c.n) && !(MIN_PRIME_BITS..=max_bits(W::BITS)).contains(&bits))
            }
            Err(Error::NotEnoughPrimes { found: 0, .. }) => {
                assert_no_prime_between(1u64 << (c.bits - 1), 1u64 << c.bits, 2 * c.n as u128, 1)
            }
            Err(e) => panic!("with_prime_bits({}, {}): {e:?}", c.n, c.bits),
        }
    }
}

/// ψ of order exactly 2N, its inverse, N⁻¹, the twiddle tables (sampled),
/// the batch limits.
fn check_ntt<W: Coeff>(p: &NttParams<W>, batch: u64) {
    let (n, q) = (p.n(), p.q().as_u64());
    assert!(valid_n(n) && 1usize << p.log_n() == n);
    assert!(is_prime(q) && q % (2 * n as u64) == 1 && bit_len(q) <= max_bits(W::BITS));
    let psi = p.psi().as_u64();
    // 2N is a power of two: ψ^N = −1 ⇔ ψ has order exactly 2N.
    assert_eq!(pow_mod(psi, n as u128, q), q - 1, "ψ = {psi} has not order 2N");
    assert_eq!(mul_mod(psi, p.psi_inv().as_u64(), q), 1);
    assert_eq!(mul_mod(n as u64 % q, p.n_inv().as_u64(), q), 1);
    assert_eq!((p.twiddles().len(), p.inv_twiddles().len()), (n, n));
    let log_n = p.log_n();
    for i in [0, 1, n / 2, n - 1, (batch as usize) % n] {
        let e = bit_reverse(i, log_n) as u128;
        assert_eq!(p.twiddles()[i].as_u64(), pow_mod(psi, e, q), "twiddle {i}");
        assert_eq!(p.inv_twiddles()[i].as_u64(), pow_mod(p.psi_inv().as_u64(), e, q), "inverse twiddle {i}");
    }
    let max = u32::MAX as usize / n;
    assert_eq!(p.max_batch(), max);
    let b = batch as usize;
    match p.check_batch_size(b) {
        Ok(()) => assert!((1..=max).contains(&b)),
        Err(Error::NotAMultipleOfN { .. }) => assert_eq!(b, 0),
        Err(Error::BatchTooLarge { .. }) => assert!(b > max),
        Err(e) => panic!("check_batch_size({b}): {e:?}"),
    }
}

/// Candidates `c ≡ r (mod step)` with `lo ≤ c < hi`: the first and how many.
fn candidates(lo: u128, hi: u128, step: u128, r: u128) -> (u128, u128) {
    if step == 0 || hi <= lo {
        return (lo, 0);
    }
    let first = lo + (step + r % step - lo % step) % step;
    (first, if first >= hi { 0 } else { (hi - first).div_ceil(step) })
}

/// The primes `c ≡ r (mod step)` with `lo ≤ c < hi`, counted; `None` when
/// there are too many candidates to test.
fn count_primes(lo: u128, hi: u128, step: u128, r: u128) -> Option<usize> {
    let (first, len) = candidates(lo, hi, step, r);
    if len > SHORT_SEARCH {
        return None;
    }
    Some(
        (0..len)
            .map(|k| first + k * step)
            .filter(|&c| c <= u128::from(u64::MAX) && is_prime(c as u64))
            .count(),
    )
}

/// No prime `c ≡ r (mod step)` with `lo < c < hi` (checked when there are
/// few candidates).
fn assert_no_prime_between(lo: u64, hi: u64, step: u128, r: u64) {
    let found = count_primes(u128::from(lo) + 1, u128::from(hi), step, u128::from(r));
    assert!(matches!(found, None | Some(0)), "a prime ≡ {r} (mod {step}) between {lo} and {hi} was skipped");
}

/// Candidates of exactly `bits` bits, `≡ r (mod step)`.
fn span(bits: u32, step: u128, r: u128) -> u128 {
    if (1..=64).contains(&bits) { candidates(1 << (bits - 1), 1 << bits, step, r).1 } else { 0 }
}

fn prime_search(c: &Case) {
    // ntt_primes(bits, n, count): any n, a huge count only where the search is short.
    let two_n = 2 * c.n as u128;
    let short = span(c.bits, two_n, 1) <= SHORT_SEARCH;
    if c.count <= 16 || short {
        match ntt_primes(c.bits, c.n, c.count) {
            Ok(qs) => {
                assert!(valid_n(c.n) && c.count <= MAX_PRIME_COUNT);
                assert_eq!(qs.len(), c.count);
                for (i, &q) in qs.iter().enumerate() {
                    assert!(is_prime(q) && u128::from(q) % two_n == 1 && bit_len(q) == c.bits, "{q}");
                    let above = if i == 0 { 1u64 << c.bits } else { qs[i - 1] };
                    assert!(q < above);
                    assert_no_prime_between(q, above, two_n, 1);
                }
            }
            Err(Error::UnsupportedPrimeWidth { .. }) => assert!(!(20..=62).contains(&c.bits)),
            Err(Error::NotEnoughPrimes { wanted, found, .. }) => {
                assert_eq!(wanted, c.count);
                assert!(found < wanted, "found {found} of {wanted}");
                if c.n > 0
                    && let Some(all) = count_primes(1 << (c.bits - 1), 1 << c.bits, two_n, 1)
                {
                    assert_eq!(all, found, "ntt_primes({}, {}, {}) found", c.bits, c.n, c.count);
                }
            }
            Err(Error::InvalidN { .. }) => assert!(!valid_n(c.n)),
            Err(Error::TooManyPrimes { .. }) => assert!(c.count > MAX_PRIME_COUNT),
            Err(e) => panic!("ntt_primes({}, {}, {}): {e:?}", c.bits, c.n, c.count),
        }
    }
    // ntt_prime_below(bound, n).
    match ntt_prime_below(c.q, c.n) {
        Ok(q) => {
            assert!(q < c.q && is_prime(q) && u128::from(q) % two_n == 1, "{q}");
            assert_no_prime_between(q, c.q, two_n, 1);
        }
        Err(Error::NotEnoughPrimes { .. }) => assert_no_prime_between(1, c.q, two_n, 1),
        Err(Error::InvalidN { .. }) => assert!(!valid_n(c.n)),
        Err(e) => panic!("ntt_prime_below({}, {}): {e:?}", c.q, c.n),
    }
    // primitive_root_2n(q, n).
    match primitive_root_2n(c.q, c.n) {
        Ok(psi) => {
            assert!(valid_n(c.n) && is_prime(c.q) && two_n > 0 && (u128::from(c.q) - 1) % two_n == 0);
            assert_eq!(pow_mod(psi, c.n as u128, c.q), c.q - 1);
            assert_eq!(pow_mod(psi, two_n, c.q), 1);
        }
        Err(Error::InvalidN { .. }) => assert!(!valid_n(c.n)),
        Err(Error::NotPrime { .. }) => assert!(valid_n(c.n) && !is_prime(c.q)),
        Err(Error::NotNttFriendly { .. }) => {
            assert!(!is_prime(c.q) || two_n == 0 || (u128::from(c.q) - 1) % two_n != 0)
        }
        Err(e) => panic!("primitive_root_2n({}, {}): {e:?}", c.q, c.n),
    }
    // dgt_primes(bits, n, count).
    let dgt_r = (c.n as u128).saturating_sub(1);
    if c.count <= 16 || span(c.bits, c.n as u128, dgt_r) <= SHORT_SEARCH {
        match dgt_primes(c.bits, c.n, c.count) {
            Ok(ps) => {
                assert_eq!(ps.len(), c.count);
                for (i, &p) in ps.iter().enumerate() {
                    assert!(is_prime(p) && (u128::from(p) + 1) % c.n as u128 == 0 && bit_len(p) == c.bits);
                    let above = if i == 0 { 1u64 << c.bits } else { ps[i - 1] };
                    assert!(p < above);
                    assert_no_prime_between(p, above, c.n as u128, (c.n as u64).wrapping_sub(1));
                }
            }
            Err(Error::UnsupportedPrimeWidth { .. }) => assert!(!(20..=62).contains(&c.bits)),
            Err(Error::InvalidN { .. }) => assert!(!(c.n.is_power_of_two() && (4..=1 << 21).contains(&c.n))),
            Err(Error::NotEnoughPrimes { wanted, found, .. }) => {
                assert!(found < wanted);
                if let Some(all) = count_primes(1 << (c.bits - 1), 1 << c.bits, c.n as u128, dgt_r) {
                    assert_eq!(all, found, "dgt_primes({}, {}, {}) found", c.bits, c.n, c.count);
                }
            }
            Err(Error::TooManyPrimes { .. }) => assert!(c.count > MAX_PRIME_COUNT),
            Err(e) => panic!("dgt_primes({}, {}, {}): {e:?}", c.bits, c.n, c.count),
        }
    }
}

fn dgt_valid_n(n: usize) -> bool {
    n.is_power_of_two() && (polymul::dgt::MIN_N..=polymul::dgt::MAX_N).contains(&n)
}

fn dgt_want(n: usize, p: u64, word_bits: u32) -> Want {
    if !dgt_valid_n(n) {
        Want::InvalidN
    } else if bit_len(p) > max_bits(word_bits) {
        Want::TooWide
    } else if !is_prime(p) {
        Want::NotPrime
    } else if !(p + 1).is_multiple_of(n as u64) {
        Want::NotFriendly
    } else if p < 5 {
        Want::BadModulus
    } else {
        Want::Ok
    }
}

fn dgt_params<W: Coeff>(c: &Case) {
    if c.n > MAX_TABLE_N && dgt_valid_n(c.n) {
        return;
    }
    let want = dgt_want(c.n, c.q, W::BITS);
    match DgtParams::<W>::new(c.n, c.q) {
        Ok(p) => {
            assert_eq!(want, Want::Ok, "DgtParams::new({}, {}) accepted", c.n, c.q);
            check_dgt(&p);
        }
        Err(e) => {
            let _ = e.to_string();
            assert_eq!(kind(&e), want, "DgtParams::new({}, {}): {e}", c.n, c.q);
        }
    }
    match DgtParams::<W>::with_prime_bits(c.n, c.bits) {
        Ok(p) => {
            let q = p.p().as_u64();
            assert_eq!(bit_len(q), c.bits);
            check_dgt(&p);
            assert_no_prime_between(q, 1u64 << c.bits, c.n as u128, c.n as u64 - 1);
        }
        Err(Error::InvalidN { .. }) => assert!(!dgt_valid_n(c.n)),
        Err(Error::UnsupportedPrimeWidth { bits, .. }) => {
            assert!(dgt_valid_n(c.n) && !(MIN_PRIME_BITS..=max_bits(W::BITS)).contains(&bits))
        }
        Err(Error::NotEnoughPrimes { found: 0, .. }) => {
            assert_no_prime_between(1u64 << (c.bits - 1), 1u64 << c.bits, c.n as u128, c.n as u64 - 1)
        }
        Err(e) => panic!("DgtParams::with_prime_bits({}, {}): {e:?}", c.n, c.bits),
    }
}

fn check_dgt<W: Coeff>(prm: &DgtParams<W>) {
    let (n, p) = (prm.n(), prm.p().as_u64());
    assert!(dgt_valid_n(n) && 2usize << prm.log_m() == n);
    assert!(is_prime(p) && (p + 1) % n as u64 == 0 && p % 4 == 3 && bit_len(p) <= max_bits(W::BITS));
    let xi = prm.xi();
    assert_eq!(gpow(xi, (n / 2) as u128, p), (0, 1), "ξ^(N/2) ≠ i");
    assert_eq!(gpow(xi, n as u128, p), (p - 1, 0), "ξ^N ≠ −1");
    assert_eq!(prm.g(), gpow(xi, 4, p), "g ≠ ξ^4");
    let m = (n / 2) as u128;
    assert_eq!(gpow(prm.g(), m, p), (1, 0), "g^M ≠ 1");
    if m > 1 {
        assert_ne!(gpow(prm.g(), m / 2, p), (1, 0), "g has order below M");
    }
    if n <= 1 << 12 {
        let (w, iw) = (prm.weights(), prm.inv_weights());
        assert_eq!((w.len(), iw.len()), (n / 2, n / 2));
        let m_inv = pow_mod((n / 2) as u64 % p, u128::from(p - 2), p);
        for (j, (&a, &b)) in w.iter().zip(&iw).enumerate() {
            assert_eq!(gmul(a, b, p), (m_inv, 0), "weight {j} times its inverse ≠ 1/M");
        }
        let (f, i) = (prm.roots(false), prm.roots(true));
        assert_eq!(f.len(), (n / 2).div_ceil(2).max(1));
        for (e, (&a, &b)) in f.iter().zip(&i).enumerate() {
            assert_eq!(a, gpow(prm.g(), e as u128, p));
            assert_eq!(gmul(a, b, p), (1, 0));
        }
    }
}

fn rns<W: Coeff>(c: &Case) {
    if c.n > MAX_RNS_N && valid_n(c.n) {
        return;
    }
    // The primes: generated NTT primes, q, raw values, repeats.
    let mut primes: Vec<u64> = Vec::new();
    for &(sel, raw) in &c.towers {
        let q = match sel % 4 {
            0 => {
                let bits = 20 + u32::from(sel / 4) % (max_bits(W::BITS) - 19);
                ntt_primes(bits, c.n.max(1), 3).map_or(raw, |v| v[raw as usize % 3])
            }
            1 => c.q,
            2 => raw,
            _ => primes.last().copied().unwrap_or(raw),
        };
        primes.push(q);
    }
    let want = if primes.is_empty() {
        Err("empty")
    } else if primes.iter().enumerate().any(|(i, q)| primes[..i].contains(q)) {
        Err("dup")
    } else {
        match primes.iter().map(|&q| ntt_want(c.n, q, W::BITS)).find(|w| *w != Want::Ok) {
            Some(_) => Err("param"),
            None => Ok(()),
        }
    };
    match RnsBasis::<W>::from_primes(c.n, &primes) {
        Ok(b) => {
            assert_eq!(want, Ok(()), "from_primes({}, {primes:?}) accepted", c.n);
            check_basis(&b, &primes, c.batch);
        }
        Err(Error::EmptyBasis) => assert_eq!(want, Err("empty")),
        Err(Error::DuplicatePrime { q }) => {
            assert_eq!(want, Err("dup"));
            assert!(primes.iter().filter(|&&x| x == q).count() >= 2);
        }
        Err(e) => {
            assert_eq!(want, Err("param"), "from_primes({}, {primes:?}): {e}", c.n);
            // The first prime that fails, with the error NttParams::new gives it.
            let first = primes.iter().map(|&q| ntt_want(c.n, q, W::BITS)).find(|w| *w != Want::Ok);
            assert_eq!(Some(kind(&e)), first, "{e}");
        }
    }
    let count = c.count.min(4);
    match RnsBasis::<W>::new(c.n, c.bits, count) {
        Ok(b) => {
            assert_eq!(b.primes(), ntt_primes(c.bits, c.n, count).expect("the same primes"));
            check_basis(&b, &b.primes(), c.batch);
        }
        Err(Error::EmptyBasis) => assert_eq!(count, 0),
        // The error of the prime search, else of the first tower.
        Err(e) => match ntt_primes(c.bits, c.n, count) {
            Err(e2) => assert_eq!(e.to_string(), e2.to_string()),
            Ok(ps) => {
                let first = ps.iter().map(|&q| ntt_want(c.n, q, W::BITS)).find(|w| *w != Want::Ok);
                assert_eq!(Some(kind(&e)), first, "{e}");
            }
        },
    }
    let short = span(c.bits, 2 * c.n as u128, 1) <= SHORT_SEARCH;
    let log_q = if short { c.batch } else { c.batch % 256 };
    match RnsBasis::<W>::with_modulus_bits(c.n, c.bits, log_q) {
        Ok(b) => {
            assert!(b.modulus().bits() >= log_q);
            let ps = b.primes();
            let without_last: BigUint = ps[..ps.len() - 1].iter().map(|&q| BigUint::from(q)).product();
            assert!(ps.len() == 1 || without_last.bits() < log_q, "more primes than needed");
            check_basis(&b, &ps, c.batch);
        }
        Err(e) => {
            let _ = e.to_string();
            assert!(
                matches!(
                    e,
                    Error::UnsupportedPrimeWidth { .. }
                        | Error::NotEnoughPrimes { .. }
                        | Error::InvalidN { .. }
                        | Error::ModulusTooWide { .. }
                ),
                "with_modulus_bits({}, {}, {log_q}): {e:?}",
                c.n,
                c.bits
            );
        }
    }
}

/// `Q` is the product, residues are the coefficients mod each prime, CRT
/// gives them back, and a coefficient ≥ Q is refused.
fn check_basis<W: Coeff>(b: &RnsBasis<W>, primes: &[u64], seed: u64) {
    assert_eq!(b.primes(), primes);
    assert_eq!(b.len(), primes.len());
    let q: BigUint = primes.iter().map(|&p| BigUint::from(p)).product();
    assert_eq!(b.modulus(), &q);
    let n = b.n();
    let coeffs: Vec<BigUint> = (0..n as u64)
        .map(|j| match j {
            0 => &q - 1u32,
            1 => BigUint::from(0u32),
            _ => (BigUint::from(seed ^ j.wrapping_mul(0x9e37_79b9_7f4a_7c15)) << (64 * (j % 4))) % &q,
        })
        .collect();
    let r = b.to_residues(&coeffs).expect("coefficients below Q");
    assert_eq!(r.len(), n * primes.len());
    for (i, &p) in primes.iter().enumerate() {
        for (j, cj) in coeffs.iter().enumerate() {
            assert_eq!(BigUint::from(r[i * n + j].as_u64()), cj % p);
        }
    }
    assert_eq!(b.from_residues(&r).expect("CRT"), coeffs);
    let mut big = coeffs;
    big[n - 1] = q;
    assert!(
        matches!(b.to_residues(&big), Err(Error::BigCoefficientOutOfRange { index, .. }) if index == n - 1)
    );
}

fn dgt_config(c: &Case) {
    let cfg = c.config;
    let _ = cfg.to_string();
    match cfg.passes(c.log_m) {
        Ok(passes) => {
            assert!(matches!(passes.len(), 1 | 2));
            assert_eq!(passes[0].s0, 0);
            assert_eq!(passes[0].s1, cfg.stages1);
            assert_eq!(passes[passes.len() - 1].s1, c.log_m);
            for (i, g) in passes.iter().enumerate() {
                assert_eq!(g.log_m, c.log_m);
                assert!(g.s0 < g.s1 && g.k() <= polymul::dgt::MAX_PASS_STAGES);
                assert!(g.log_cluster <= g.log_sets() && g.threads() <= polymul::dgt::MAX_THREADS);
                assert_eq!(g.log_cluster, if i == 0 { cfg.log_cluster1 } else { cfg.log_cluster2 });
                if i == 1 {
                    assert_eq!(g.s0, passes[0].s1);
                }
            }
        }
        Err(e) => {
            assert!(matches!(e, Error::BadDgtConfig { .. }), "{e:?}");
            let _ = e.to_string();
        }
    }
    let _ = DgtConfig::default_for(c.log_m);
    let log_m = 1 + c.log_m % 20;
    let d = DgtConfig::default_for(log_m);
    assert!(d.passes(log_m).is_ok(), "default_for({log_m}) = {d} does not fit");
    let max_cluster = cfg.log_cluster1 % 4;
    for x in DgtConfig::all(log_m, max_cluster) {
        assert!(x.passes(log_m).is_ok() && x.log_cluster1 <= max_cluster && x.log_cluster2 <= max_cluster);
    }
}

fn tiles(c: &Case) {
    let (log_n, log_max_tile) = (c.config.stages1, c.config.log_cluster1);
    match tile_geometry(log_n, log_max_tile) {
        Ok(g) => {
            assert_eq!(g.log_n, log_n);
            assert_eq!(g.log_tile, log_n.min(log_max_tile));
            assert!(g.log_tile >= 1 && g.l1 <= g.log_tile && g.l1 + g.log_tile == log_n);
        }
        Err(e) => {
            assert!(matches!(e, Error::InvalidN { .. }), "{e:?}");
            let _ = e.to_string();
        }
    }
    match geometry_2d(log_n, log_max_tile) {
        Ok(g) => {
            assert!(log_n >= 2 && g.l1 == log_n / 2 && log_n - g.l1 <= g.log_tile);
        }
        Err(e) => {
            assert!(matches!(e, Error::InvalidN { .. }), "{e:?}");
            let _ = e.to_string();
        }
    }
    let cfg = TiledConfig {
        log_max_tile,
        threads: 1,
        log_radix: 1,
        direct: false,
        two_d: c.pick & 1 == 1,
        truncated: false,
    };
    let _ = cfg.geometry(log_n);
}

fn reductions<W: Coeff>(c: &Case) {
    let r = Reduction::ALL[usize::from(c.pick) % Reduction::ALL.len()];
    assert_eq!(Reduction::from_name(r.name()), Some(r));
    let max = r.max_bits(W::BITS);
    assert!((1..=W::BITS).contains(&max));
    if c.q > W::from_u64(u64::MAX).as_u64() {
        return;
    }
    let q = W::from_u64(c.q);
    let values: Vec<W> =
        if c.q == 0 { Vec::new() } else { [0, 1, c.q - 1, c.batch % c.q].map(W::from_u64).to_vec() };
    match Multiplicands::new(r, q, &values) {
        Ok(p) => {
            assert!(c.q % 2 == 1 && c.q >= 5 && bit_len(c.q) <= max, "{} accepted q = {}", r.name(), c.q);
            assert_eq!(p.main.len(), values.len());
            assert_eq!(p.reduction, r);
        }
        Err(Error::BadModulus { .. }) => assert!(c.q.is_multiple_of(2) || c.q < 5),
        Err(Error::ModulusTooWide { .. }) => assert!(bit_len(c.q) > max),
        Err(e) => panic!("Multiplicands::new({}, {}): {e:?}", r.name(), c.q),
    }
}

fn planner(c: &Case) {
    let b = c.batch as usize;
    let want = (b.max(1) as u128).next_power_of_two().trailing_zeros();
    assert_eq!(batch_bucket(b), want, "batch_bucket({b})");
    let key = WisdomKey {
        device: "fuzz".into(),
        log_n: c.n.trailing_zeros(),
        word_bits: if c.pick & 2 == 0 { 32 } else { 64 },
        towers: c.count,
        batch_bucket: want,
    };
    for modulus in
        [Modulus::Prime(c.q), Modulus::Bits(c.bits), Modulus::Rns { bits: c.bits, towers: c.count }]
    {
        let d = decide(&key, &modulus, c.n, None);
        let _ = d.summary();
        assert!(!d.from_wisdom && d.measured_us.is_none());
        // Without wisdom: the DGT only for a prime the NTT cannot use and the DGT can.
        let dgt = match modulus {
            Modulus::Prime(p) if c.n > 0 => {
                u128::from(p) % (2 * c.n as u128) != 1 && (u128::from(p) + 1) % c.n as u128 == 0
            }
            _ => false,
        };
        match d.choice {
            Choice::Dgt { config } => {
                assert!(dgt, "decide chose the DGT for {modulus:?}, N = {}", c.n);
                let _ = config.to_string();
            }
            Choice::Ntt { kernel, radix } => {
                assert!(!dgt, "decide chose the NTT for {modulus:?}, N = {}", c.n);
                assert_eq!((kernel, radix), (NttKernel::Auto, None));
            }
        }
    }
    let log_n = c.log_m;
    let batched = polymul::expert::is_batched(c.n, b);
    assert_eq!(batched, (c.n as u128) * (b as u128) >= 1 << 20);
    for word_bits in [32, 64, c.config.log_cluster2] {
        for inverse in [false, true] {
            let k = polymul::expert::auto_kernel(word_bits, log_n, batched, inverse);
            let r = polymul::expert::auto_radix(k, word_bits, log_n, batched, inverse);
            assert!((1..=4).contains(&r), "auto_radix = {r}");
        }
    }
    let _ = oracle::bits(c.q);
}
