//! NTT-friendly primes: `q ≡ 1 (mod 2N)`, so that `Z_q` has a primitive
//! 2N-th root of unity ψ for the negacyclic transform.

use super::arith::is_prime;
use crate::{Error, Result};

/// Narrowest prime width polymul generates.
pub const MIN_PRIME_BITS: u32 = 20;
/// Widest prime width polymul generates (Algorithm 4 on 64-bit words).
pub const MAX_PRIME_BITS: u32 = 62;
/// Most primes one search ([`ntt_primes`], [`crate::dgt::dgt_primes`])
/// returns and one RNS basis holds: a bound that keeps every request's time
/// and memory small (100,000 62-bit primes make a `Q` of 6.2 million bits).
pub const MAX_PRIME_COUNT: usize = 100_000;

/// The `count` largest primes of exactly `bits` bits with `q ≡ 1 (mod 2n)`,
/// in decreasing order (`count = 0`: none, an empty list).
///
/// # Errors
/// [`Error::UnsupportedPrimeWidth`] outside
/// `MIN_PRIME_BITS..=MAX_PRIME_BITS`, [`Error::InvalidN`] unless `n` is a
/// power of two in `[MIN_N, MAX_N]`, [`Error::TooManyPrimes`] above
/// [`MAX_PRIME_COUNT`], [`Error::NotEnoughPrimes`] if fewer exist.
///
/// ```
/// let qs = polymul::params::ntt_primes(62, 1 << 16, 3).unwrap();
/// assert!(qs.iter().all(|&q| q % (2 << 16) == 1 && q >> 61 == 1));
/// ```
pub fn ntt_primes(bits: u32, n: usize, count: usize) -> Result<Vec<u64>> {
    if !(MIN_PRIME_BITS..=MAX_PRIME_BITS).contains(&bits) {
        return Err(Error::UnsupportedPrimeWidth { bits, min: MIN_PRIME_BITS, max: MAX_PRIME_BITS });
    }
    super::check_n(n)?;
    check_count(count)?;
    ntt_primes_below(1u64 << bits, 1u64 << (bits - 1), n, count).map_err(|found| Error::NotEnoughPrimes {
        bits,
        n,
        wanted: count,
        found,
    })
}

/// Refuses a request for more than [`MAX_PRIME_COUNT`] primes.
pub(crate) fn check_count(count: usize) -> Result<()> {
    if count > MAX_PRIME_COUNT {
        return Err(Error::TooManyPrimes { wanted: count, max: MAX_PRIME_COUNT });
    }
    Ok(())
}

/// The largest prime `q < bound` with `q ≡ 1 (mod 2n)`.
///
/// # Errors
/// [`Error::InvalidN`] unless `n` is a power of two in `[MIN_N, MAX_N]`;
/// [`Error::NotEnoughPrimes`] if there is none below `bound`.
pub fn ntt_prime_below(bound: u64, n: usize) -> Result<u64> {
    super::check_n(n)?;
    let bits = 64 - bound.leading_zeros();
    ntt_primes_below(bound, 2, n, 1).map(|v| v[0]).map_err(|found| Error::NotEnoughPrimes {
        bits,
        n,
        wanted: 1,
        found,
    })
}

/// Primes `q ≡ 1 (mod 2n)` with `floor <= q < bound`, largest first;
/// `Err(found)` if fewer than `count` exist.
fn ntt_primes_below(bound: u64, floor: u64, n: usize, count: usize) -> std::result::Result<Vec<u64>, usize> {
    // No candidate (n = 0, or 2n + 1 not below the bound, 2n beyond u64
    // included): none found, which is enough only for count = 0.
    let Some(two_n) = (n as u64).checked_mul(2).filter(|&t| n > 0 && bound >= t.saturating_add(2)) else {
        return if count == 0 { Ok(Vec::new()) } else { Err(0) };
    };
    // Largest c < bound with c ≡ 1 (mod 2n).
    let mut c = (bound - 1) - ((bound - 2) % two_n);
    // A huge `count` is not allocated up front.
    let mut out = Vec::new();
    while out.len() < count && c >= floor.max(two_n + 1) {
        if is_prime(c) {
            out.push(c);
        }
        match c.checked_sub(two_n) {
            Some(next) => c = next,
            None => break,
        }
    }
    if out.len() == count { Ok(out) } else { Err(out.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primes_have_the_right_form_and_are_the_largest() {
        for (bits, n) in [(20, 1024usize), (30, 1 << 17), (31, 1 << 12), (62, 1 << 16), (62, 1 << 17)] {
            let qs = ntt_primes(bits, n, 4).unwrap();
            let two_n = 2 * n as u64;
            for w in qs.windows(2) {
                assert!(w[0] > w[1]);
                // Nothing of the right form was skipped between them.
                let mut c = w[0] - two_n;
                while c > w[1] {
                    assert!(!is_prime(c));
                    c -= two_n;
                }
            }
            for &q in &qs {
                assert!(is_prime(q));
                assert_eq!(q % two_n, 1);
                assert_eq!(64 - q.leading_zeros(), bits);
            }
            // Nothing of the right form above the first.
            let mut c = qs[0] + two_n;
            while c < 1u64 << bits {
                assert!(!is_prime(c));
                c += two_n;
            }
        }
    }

    #[test]
    fn prime_below_a_bound() {
        let q = ntt_prime_below(1_000_000_000, 1024).unwrap();
        assert!(q < 1_000_000_000 && is_prime(q) && q % 2048 == 1);
    }

    #[test]
    fn bad_requests_are_errors() {
        assert!(matches!(ntt_primes(63, 1024, 1), Err(Error::UnsupportedPrimeWidth { .. })));
        assert!(matches!(ntt_primes(19, 1024, 1), Err(Error::UnsupportedPrimeWidth { .. })));
        // 20-bit primes ≡ 1 mod 2^21 cannot exist.
        assert!(matches!(ntt_primes(20, 1 << 20, 1), Err(Error::NotEnoughPrimes { found: 0, .. })));
        assert!(matches!(ntt_prime_below(10, 1024), Err(Error::NotEnoughPrimes { .. })));
    }
}
