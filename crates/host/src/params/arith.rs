//! Exact 64-bit modular arithmetic on the host (through `u128`), used for
//! parameter generation and by the CPU reference. Independent of the kernels'
//! Barrett code on purpose.
//!
//! The public functions take any operands (they are reduced first) and any
//! modulus: a modulus of 0 is [`Error::BadModulus`], a value without an
//! inverse [`Error::NotInvertible`]; nothing panics. The crate's own callers,
//! which have validated the modulus, use the unchecked forms.

use crate::{Error, Result};

/// Refuses a zero modulus (there is no arithmetic modulo 0 on words).
fn nonzero(q: u64) -> Result<()> {
    if q == 0 {
        return Err(Error::BadModulus { q, why: "it is zero (a modulus must be at least 1)" });
    }
    Ok(())
}

/// `a · b mod q` for any `a`, `b`.
///
/// # Errors
/// [`Error::BadModulus`] if `q = 0`.
pub fn mul_mod(a: u64, b: u64, q: u64) -> Result<u64> {
    nonzero(q)?;
    Ok(mul(a, b, q))
}

/// `a + b mod q` for any `a`, `b`.
///
/// # Errors
/// [`Error::BadModulus`] if `q = 0`.
pub fn add_mod(a: u64, b: u64, q: u64) -> Result<u64> {
    nonzero(q)?;
    Ok(add(a, b, q))
}

/// `a − b mod q` for any `a`, `b` (reduced first).
///
/// # Errors
/// [`Error::BadModulus`] if `q = 0`.
pub fn sub_mod(a: u64, b: u64, q: u64) -> Result<u64> {
    nonzero(q)?;
    Ok(sub(a % q, b % q, q))
}

/// `b^e mod q` by square-and-multiply (`b^0 = 1 mod q`).
///
/// # Errors
/// [`Error::BadModulus`] if `q = 0`.
pub fn pow_mod(b: u64, e: u64, q: u64) -> Result<u64> {
    nonzero(q)?;
    Ok(pow(b, e, q))
}

/// `a⁻¹ mod q` (extended Euclid: any `q ≥ 2`, any `a` coprime to `q`).
///
/// # Errors
/// [`Error::BadModulus`] if `q < 2`; [`Error::NotInvertible`] if `a` and `q`
/// share a factor (`a ≡ 0` included).
pub fn inv_mod(a: u64, q: u64) -> Result<u64> {
    if q < 2 {
        return Err(Error::BadModulus { q, why: "an inverse needs a modulus of at least 2" });
    }
    inv(a, q).ok_or(Error::NotInvertible { value: a % q, q })
}

/// `a · b mod q`; `q > 0`.
#[inline]
pub(crate) fn mul(a: u64, b: u64, q: u64) -> u64 {
    ((a as u128 * b as u128) % q as u128) as u64
}

/// `a + b mod q`; `q > 0`.
#[inline]
pub(crate) fn add(a: u64, b: u64, q: u64) -> u64 {
    ((a as u128 + b as u128) % q as u128) as u64
}

/// `a − b mod q` for `a, b < q`.
#[inline]
pub(crate) fn sub(a: u64, b: u64, q: u64) -> u64 {
    if a >= b { a - b } else { (q - b) + a }
}

/// `b^e mod q`; `q > 0`.
pub(crate) fn pow(mut b: u64, mut e: u64, q: u64) -> u64 {
    let mut r = 1 % q;
    b %= q;
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, b, q);
        }
        b = mul(b, b, q);
        e >>= 1;
    }
    r
}

/// `a⁻¹ mod q` for `q ≥ 2`, `None` if `gcd(a, q) ≠ 1`.
pub(crate) fn inv(a: u64, q: u64) -> Option<u64> {
    // Invariant: r_i ≡ t_i · a (mod q), with signed t in i128.
    let (mut r0, mut r1) = (q as i128, (a % q) as i128);
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let k = r0 / r1;
        (r0, r1) = (r1, r0 - k * r1);
        (t0, t1) = (t1, t0 - k * t1);
    }
    if r0 != 1 {
        return None;
    }
    u64::try_from(t0.rem_euclid(q as i128)).ok()
}

/// Deterministic Miller–Rabin for all `u64` (bases of Jim Sinclair).
pub fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    for p in [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for a in [2u64, 325, 9375, 28178, 450775, 9780504, 1795265022] {
        let a = a % n;
        if a == 0 {
            continue;
        }
        let mut x = pow(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// Reverses the low `bits` bits of `i` (higher bits of `i` are ignored).
/// For `bits > usize::BITS` the reversed field does not fit a `usize`: the
/// result is its low `usize::BITS` bits (0 from `2 · usize::BITS` on).
#[inline]
pub fn bit_reverse(i: usize, bits: u32) -> usize {
    match bits {
        0 => 0,
        b if b <= usize::BITS => i.reverse_bits() >> (usize::BITS - b),
        b => i.reverse_bits().checked_shl(b - usize::BITS).unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial_division(n: u64) -> bool {
        n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
    }

    #[test]
    fn miller_rabin_matches_trial_division() {
        for n in 0..20_000u64 {
            assert_eq!(is_prime(n), trial_division(n), "n = {n}");
        }
        // Large known primes and composites.
        assert!(is_prime(4611686018427387847)); // 2^62 - 57
        assert!(is_prime(18446744073709551557)); // 2^64 - 59
        assert!(!is_prime(4611686018427387847 + 2));
        assert!(!is_prime(3215031751)); // strong pseudoprime to bases 2, 3, 5, 7
        assert!(!is_prime(3825123056546413051)); // strong pseudoprime to the first 9 prime bases
        assert!(!is_prime(1_000_000_007u64 * 998_244_353));
    }

    #[test]
    fn pow_and_inverse() {
        let q = 998_244_353u64;
        assert_eq!(pow_mod(3, q - 1, q).unwrap(), 1);
        for a in [1u64, 2, 12345, q - 1] {
            assert_eq!(mul_mod(a, inv_mod(a, q).unwrap(), q).unwrap(), 1);
        }
        assert_eq!(pow_mod(5, 0, 1).unwrap(), 0);
        // Euclid agrees with Fermat on a prime, and works for composites.
        for a in [2u64, 3, 12345, q - 2] {
            assert_eq!(inv(a, q), Some(pow(a, q - 2, q)));
        }
        assert_eq!(inv(7, 15).map(|x| mul(x, 7, 15)), Some(1));
        assert_eq!(inv(6, 15), None);
        assert_eq!(inv(7, u64::MAX).map(|x| mul(x, 7, u64::MAX)), Some(1));
        assert_eq!(inv(5, u64::MAX), None); // 2^64 − 1 = 3 · 5 · 17 · …
    }

    #[test]
    fn bit_reversal() {
        assert_eq!(bit_reverse(1, 3), 4);
        assert_eq!(bit_reverse(6, 3), 3);
        assert_eq!(bit_reverse(0, 0), 0);
        for i in 0..1024 {
            assert_eq!(bit_reverse(bit_reverse(i, 10), 10), i);
        }
    }
}
