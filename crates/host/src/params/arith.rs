//! Exact 64-bit modular arithmetic on the host (through `u128`), used for
//! parameter generation and by the CPU reference. Independent of the kernels'
//! Barrett code on purpose.

/// `a · b mod q`.
#[inline]
pub fn mul_mod(a: u64, b: u64, q: u64) -> u64 {
    ((a as u128 * b as u128) % q as u128) as u64
}

/// `a + b mod q` for `a, b < q`.
#[inline]
pub fn add_mod(a: u64, b: u64, q: u64) -> u64 {
    ((a as u128 + b as u128) % q as u128) as u64
}

/// `a − b mod q` for `a, b < q`.
#[inline]
pub fn sub_mod(a: u64, b: u64, q: u64) -> u64 {
    if a >= b { a - b } else { (q - b) + a }
}

/// `b^e mod q` by square-and-multiply.
pub fn pow_mod(mut b: u64, mut e: u64, q: u64) -> u64 {
    let mut r = 1 % q;
    b %= q;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, b, q);
        }
        b = mul_mod(b, b, q);
        e >>= 1;
    }
    r
}

/// `a⁻¹ mod q` for prime `q` and `a ≢ 0` (Fermat).
pub fn inv_mod(a: u64, q: u64) -> u64 {
    pow_mod(a, q - 2, q)
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
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// Reverses the low `bits` bits of `i`.
#[inline]
pub fn bit_reverse(i: usize, bits: u32) -> usize {
    if bits == 0 { 0 } else { i.reverse_bits() >> (usize::BITS - bits) }
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
        assert_eq!(pow_mod(3, q - 1, q), 1);
        for a in [1u64, 2, 12345, q - 1] {
            assert_eq!(mul_mod(a, inv_mod(a, q), q), 1);
        }
        assert_eq!(pow_mod(5, 0, 1), 0);
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
