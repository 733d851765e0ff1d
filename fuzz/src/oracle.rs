//! Arithmetic the checks judge polymul by, written here from scratch (in
//! `u128`) so that a bug in polymul's own `params::arith` cannot hide
//! itself.

/// `a · b mod m` (`m ≥ 1`).
pub fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(m)) as u64
}

/// `b^e mod m` (`m ≥ 1`; `0^0 = 1 mod m`).
pub fn pow_mod(b: u64, mut e: u128, m: u64) -> u64 {
    let mut base = b % m;
    let mut acc = 1 % m;
    while e > 0 {
        if e & 1 == 1 {
            acc = mul_mod(acc, base, m);
        }
        base = mul_mod(base, base, m);
        e >>= 1;
    }
    acc
}

/// Deterministic Miller–Rabin: exact for every `u64` with the first twelve
/// primes as bases.
pub fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    for p in BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for a in BASES {
        let mut x = pow_mod(a, u128::from(d), n);
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

/// Checks [`is_prime`] against trial division below 10,000 and on known
/// large primes and strong pseudoprimes, once per process: the `params` and
/// `cpu_polymul` targets call it before their first input, so a broken
/// oracle fails the fuzz run instead of judging polymul wrongly.
pub fn self_check() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let trial = |n: u64| n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d));
        for n in 0..10_000 {
            assert_eq!(is_prime(n), trial(n), "oracle::is_prime({n})");
        }
        assert!(is_prime((1 << 61) - 1) && is_prime(u64::MAX - 58) && is_prime((1 << 62) - 57));
        // Strong pseudoprimes to several small bases.
        for n in [3_215_031_751, 2_152_302_898_747, 3_825_123_056_546_413_051] {
            assert!(!is_prime(n), "oracle::is_prime({n})");
        }
    });
}

/// Bits of `x` (0 for 0).
pub fn bits(x: u64) -> u32 {
    u64::BITS - x.leading_zeros()
}

/// The schoolbook product `a · b mod (X^N + 1, q)` of two polynomials of
/// the same length `N ≥ 1` (`q ≥ 1`): every term accumulated in `u128`,
/// positive and wrapped (negative) parts apart, reduced once at the end.
pub fn negacyclic(a: &[u64], b: &[u64], q: u64) -> Vec<u64> {
    let n = a.len();
    assert_eq!(n, b.len());
    let q128 = u128::from(q);
    let mut pos = vec![0u128; n];
    let mut neg = vec![0u128; n];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let t = u128::from(x % q) * u128::from(y % q) % q128;
            if i + j < n {
                pos[i + j] = (pos[i + j] + t) % q128;
            } else {
                neg[i + j - n] = (neg[i + j - n] + t) % q128;
            }
        }
    }
    pos.iter().zip(&neg).map(|(&p, &m)| ((p + q128 - m) % q128) as u64).collect()
}

/// `i` with its low `bits` bits reversed.
pub fn bit_reverse(i: usize, bits: u32) -> usize {
    if bits == 0 { 0 } else { i.reverse_bits() >> (usize::BITS - bits) }
}

/// A Gaussian integer `re + i·im` modulo a prime `p ≡ 3 (mod 4)`.
pub type Gauss = (u64, u64);

/// `x · y` in `Z_p[i]`.
pub fn gmul(x: Gauss, y: Gauss, p: u64) -> Gauss {
    let p128 = u128::from(p);
    let (a, b, c, d) = (u128::from(x.0), u128::from(x.1), u128::from(y.0), u128::from(y.1));
    let re = (a * c % p128 + p128 * p128 - b * d % p128) % p128;
    let im = (a * d % p128 + b * c % p128) % p128;
    (re as u64, im as u64)
}

/// `x^e` in `Z_p[i]`.
pub fn gpow(mut x: Gauss, mut e: u128, p: u64) -> Gauss {
    let mut acc = (1 % p, 0);
    while e > 0 {
        if e & 1 == 1 {
            acc = gmul(acc, x, p);
        }
        x = gmul(x, x, p);
        e >>= 1;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn miller_rabin_agrees_with_trial_division() {
        self_check();
    }

    #[test]
    fn negacyclic_wraps_with_a_minus_sign() {
        // (1 + X)(X) = X + X^2 = X − 1 mod X^2 + 1.
        assert_eq!(negacyclic(&[1, 1], &[0, 1], 17), [16, 1]);
        assert_eq!(bit_reverse(1, 3), 4);
        assert_eq!(gpow((0, 1), 2, 7), (6, 0));
    }
}
