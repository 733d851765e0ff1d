//! DGT parameters: primes `p ≡ 3 (mod 4)` with `N | p + 1`, the Gaussian
//! weight root `ξ` (order `2N`, `ξ^(N/2) = i`), the transform root
//! `g = ξ^4` (order `M = N/2`), weights and their inverses.

use crate::params::arith::{inv, is_prime, mul};
use crate::params::{MAX_PRIME_BITS, MIN_PRIME_BITS};
use crate::{Coeff, Error, Result};
use polymul_kernels::arith::{Barrett4, ModMul};

/// Smallest N a DGT plan takes (`M = 2` Gaussians).
pub const MIN_N: usize = 4;
/// Largest N: two passes of at most 10 stages (1024 threads per block).
pub const MAX_N: usize = 1 << 21;

/// A Gaussian integer `(re, im)` modulo `p`, for parameter work on the host.
pub type G = (u64, u64);

/// `a · b` in `Z_p[i]` (components of any size; they are reduced).
///
/// # Errors
/// [`Error::BadModulus`] if `p = 0`.
pub fn gmul(a: G, b: G, p: u64) -> Result<G> {
    nonzero(p)?;
    Ok(gm(a, b, p))
}

/// `a^e` in `Z_p[i]`.
///
/// # Errors
/// [`Error::BadModulus`] if `p = 0`.
pub fn gpow(a: G, e: u128, p: u64) -> Result<G> {
    nonzero(p)?;
    Ok(gp(a, e, p))
}

/// `a^−1` in `GF(p²)`: `conj(a) / norm(a)`.
///
/// # Errors
/// [`Error::BadModulus`] if `p < 2`; [`Error::NotInvertible`] if the norm
/// `re² + im²` has no inverse modulo `p` (`a = 0` included).
pub fn ginv(a: G, p: u64) -> Result<G> {
    if p < 2 {
        return Err(Error::BadModulus { q: p, why: "an inverse needs a modulus of at least 2" });
    }
    let norm = (mul(a.0, a.0, p) as u128 + mul(a.1, a.1, p) as u128) % p as u128;
    gi(a, p).ok_or(Error::NotInvertible { value: norm as u64, q: p })
}

fn nonzero(p: u64) -> Result<()> {
    if p == 0 {
        return Err(Error::BadModulus { q: p, why: "it is zero (a modulus must be at least 1)" });
    }
    Ok(())
}

/// [`gmul`] for `p > 0`.
fn gm(a: G, b: G, p: u64) -> G {
    let p128 = p as u128;
    let re = (mul(a.0, b.0, p) as u128 + p128 - mul(a.1, b.1, p) as u128) % p128;
    let im = (mul(a.0, b.1, p) as u128 + mul(a.1, b.0, p) as u128) % p128;
    (re as u64, im as u64)
}

/// [`gpow`] for `p > 0`.
fn gp(mut a: G, mut e: u128, p: u64) -> G {
    let mut r = (1 % p, 0);
    while e > 0 {
        if e & 1 == 1 {
            r = gm(r, a, p);
        }
        a = gm(a, a, p);
        e >>= 1;
    }
    r
}

/// [`ginv`] for `p ≥ 2`; `None` if the norm is not invertible.
fn gi(a: G, p: u64) -> Option<G> {
    let norm = ((mul(a.0, a.0, p) as u128 + mul(a.1, a.1, p) as u128) % p as u128) as u64;
    let ni = inv(norm, p)?;
    Some((mul(a.0, ni, p), mul(p - a.1 % p, ni, p)))
}

/// The `count` largest primes of exactly `bits` bits with `p ≡ −1 (mod N)`
/// (hence `p ≡ 3 mod 4` for `N ≥ 4`, and `2N | p² − 1`), largest first
/// (`count = 0`: none, an empty list).
///
/// # Errors
/// [`Error::UnsupportedPrimeWidth`], [`Error::InvalidN`] (N not a power of
/// two in `[MIN_N, MAX_N]`), [`Error::TooManyPrimes`] above
/// [`crate::params::MAX_PRIME_COUNT`], [`Error::NotEnoughPrimes`] if fewer
/// exist (none at all when `N > 2^bits`).
///
/// ```
/// let ps = polymul::dgt::dgt_primes(30, 1 << 16, 2).unwrap();
/// assert!(ps.iter().all(|&p| (p + 1) % (1 << 16) == 0 && p % 4 == 3 && p >> 29 == 1));
/// ```
pub fn dgt_primes(bits: u32, n: usize, count: usize) -> Result<Vec<u64>> {
    if !(MIN_PRIME_BITS..=MAX_PRIME_BITS).contains(&bits) {
        return Err(Error::UnsupportedPrimeWidth { bits, min: MIN_PRIME_BITS, max: MAX_PRIME_BITS });
    }
    check_n(n)?;
    crate::params::check_count(count)?;
    let step = n as u64;
    let (hi, lo) = (1u64 << bits, 1u64 << (bits - 1));
    // Largest c < 2^bits with c ≡ −1 (mod N); none if N > 2^bits.
    let mut c = (hi - hi % step).saturating_sub(1);
    let mut out = Vec::with_capacity(count);
    while out.len() < count && c >= lo {
        if is_prime(c) {
            out.push(c);
        }
        c = c.saturating_sub(step);
    }
    if out.len() == count {
        Ok(out)
    } else {
        Err(Error::NotEnoughPrimes { bits, n, wanted: count, found: out.len() })
    }
}

fn check_n(n: usize) -> Result<u32> {
    if !n.is_power_of_two() || !(MIN_N..=MAX_N).contains(&n) {
        return Err(Error::InvalidN { n, min: MIN_N, max: MAX_N });
    }
    Ok(n.trailing_zeros())
}

/// Everything a DGT polymul of size N modulo p needs, for words `W`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DgtParams<W> {
    n: usize,
    log_m: u32,
    p: W,
    xi: G,
    g: G,
    xi_inv: G,
    g_inv: G,
    /// `M⁻¹ mod p`.
    m_inv: u64,
    barrett: Barrett4<W>,
}

impl<W: Coeff> DgtParams<W> {
    /// Validates `(n, p)`: N a power of two in `4..=2^21`, p prime,
    /// `p ≡ −1 (mod N)` (so `p ≡ 3 mod 4` and `GF(p²)` holds a `2N`-th root
    /// of unity), and p at most 30 bits on `u32` / 62 on `u64` (Algorithm 4
    /// for the data products).
    pub fn new(n: usize, p: u64) -> Result<Self> {
        let log_n = check_n(n)?;
        let max_bits = Barrett4::<W>::MAX_BITS;
        let bits = 64 - p.leading_zeros();
        if bits > max_bits {
            return Err(Error::ModulusTooWide { q: p, bits, max_bits, word: W::BITS });
        }
        if !is_prime(p) {
            return Err(Error::NotPrime { q: p });
        }
        if !(p + 1).is_multiple_of(n as u64) {
            return Err(Error::NotDgtFriendly { p, n });
        }
        let barrett = Barrett4::new(W::from_u64(p)).map_err(|e| Error::from_modulus(p, W::BITS, e))?;
        let xi = find_xi(p, n).ok_or(Error::NotDgtFriendly { p, n })?;
        let g = gp(xi, 4, p);
        // ξ has order 2N, so ξ, g and M = N/2 < p are invertible.
        let not_invertible = || Error::NotDgtFriendly { p, n };
        let xi_inv = gi(xi, p).ok_or_else(not_invertible)?;
        let g_inv = gi(g, p).ok_or_else(not_invertible)?;
        let m_inv = inv((n as u64 / 2) % p, p).ok_or_else(not_invertible)?;
        Ok(Self { n, log_m: log_n - 1, p: W::from_u64(p), xi, g, xi_inv, g_inv, m_inv, barrett })
    }

    /// Parameters with the largest `bits`-bit DGT prime for `n`.
    pub fn with_prime_bits(n: usize, bits: u32) -> Result<Self> {
        check_n(n)?;
        let max_bits = Barrett4::<W>::MAX_BITS;
        if bits > max_bits {
            return Err(Error::UnsupportedPrimeWidth { bits, min: MIN_PRIME_BITS, max: max_bits });
        }
        Self::new(n, dgt_primes(bits, n, 1)?[0])
    }

    /// Polynomial length N.
    pub fn n(&self) -> usize {
        self.n
    }

    /// `log2 M`, `M = N/2` Gaussians.
    pub fn log_m(&self) -> u32 {
        self.log_m
    }

    /// The prime.
    pub fn p(&self) -> W {
        self.p
    }

    /// `ξ`: order `2N`, `ξ^(N/2) = i`.
    pub fn xi(&self) -> G {
        self.xi
    }

    /// `g = ξ^4`: order `M`, the root of the cyclic transform.
    pub fn g(&self) -> G {
        self.g
    }

    /// Algorithm-4 constants of p.
    pub fn barrett(&self) -> &Barrett4<W> {
        &self.barrett
    }

    /// Weights `ξ^j`, `j < M`.
    pub fn weights(&self) -> Vec<G> {
        powers(self.xi, 1 << self.log_m, (1, 0), self.p.as_u64())
    }

    /// Inverse weights `ξ^−j / M`, `j < M` (the inverse transform's `1/M`
    /// folded in).
    pub fn inv_weights(&self) -> Vec<G> {
        powers(self.xi_inv, 1 << self.log_m, (self.m_inv, 0), self.p.as_u64())
    }

    /// Powers `g^e` (forward) or `g^−e` (inverse), `e < M/2` (at least one).
    pub fn roots(&self, inverse: bool) -> Vec<G> {
        let g = if inverse { self.g_inv } else { self.g };
        powers(g, (1usize << self.log_m).div_ceil(2), (1, 0), self.p.as_u64())
    }
}

fn powers(x: G, len: usize, start: G, p: u64) -> Vec<G> {
    let mut out = Vec::with_capacity(len);
    let mut cur = start;
    for _ in 0..len {
        out.push(cur);
        cur = gm(cur, x, p);
    }
    out
}

/// An element `ξ` of `GF(p²)` with `ξ^(N/2) = i` (so of order `2N`): the
/// first `z^((p²−1)/2N)` of order exactly `2N` over `z = 1 + k·i`,
/// inverted if its `N/2`-th power is `−i`.
fn find_xi(p: u64, n: usize) -> Option<G> {
    let order = (p as u128) * (p as u128) - 1;
    let two_n = 2 * n as u128;
    if !order.is_multiple_of(two_n) {
        return None;
    }
    for k in 1..200u64 {
        let z = (1, k % p);
        let w = gp(z, order / two_n, p);
        // Order exactly 2N (a power of two) ⇔ w^N ≠ 1.
        if gp(w, n as u128, p) == (1, 0) {
            continue;
        }
        let quarter = gp(w, (n / 2) as u128, p);
        if quarter == (0, 1) {
            return Some(w);
        }
        if quarter == (0, p - 1) {
            return gi(w, p);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_have_the_orders_the_transform_needs() {
        for (bits, log_n) in [(30u32, 2u32), (30, 10), (30, 16), (30, 17), (28, 16), (62, 16), (20, 12)] {
            let n = 1usize << log_n;
            let prm = DgtParams::<u64>::with_prime_bits(n, bits).unwrap();
            let p = prm.p();
            assert_eq!(p % 4, 3);
            let xi = prm.xi();
            // ξ^(N/2) = i, ξ^N = −1, ξ^2N = 1: order exactly 2N (a power of two).
            assert_eq!(gp(xi, (n / 2) as u128, p), (0, 1));
            assert_eq!(gp(xi, n as u128, p), (p - 1, 0));
            assert_eq!(gp(xi, 2 * n as u128, p), (1, 0));
            // g has order exactly M.
            let m = (n / 2) as u128;
            assert_eq!(gp(prm.g(), m, p), (1, 0));
            if m > 1 {
                assert_ne!(gp(prm.g(), m / 2, p), (1, 0));
            }
            assert_eq!(gm(prm.g(), gi(prm.g(), p).unwrap(), p), (1, 0));
        }
    }

    #[test]
    fn primes_have_the_right_form_and_bad_parameters_are_refused() {
        let ps = dgt_primes(30, 1 << 17, 5).unwrap();
        assert!(ps.windows(2).all(|w| w[0] > w[1]));
        assert!(
            ps.iter().all(|&p| is_prime(p) && (p + 1) % (1 << 17) == 0 && (1 << 29..1 << 30).contains(&p))
        );
        assert!(matches!(DgtParams::<u32>::new(1 << 10, 1_000_003), Err(Error::NotDgtFriendly { .. })));
        assert!(matches!(DgtParams::<u32>::new(1000, 1023), Err(Error::InvalidN { .. })));
        assert!(matches!(DgtParams::<u32>::new(2, 7), Err(Error::InvalidN { .. })));
        assert!(matches!(DgtParams::<u32>::new(1 << 10, 9 * 1024 - 1), Err(Error::NotPrime { .. })));
        let wide = dgt_primes(31, 1 << 10, 1).unwrap()[0];
        assert!(matches!(DgtParams::<u32>::new(1 << 10, wide), Err(Error::ModulusTooWide { .. })));
        assert!(matches!(
            DgtParams::<u32>::with_prime_bits(1 << 10, 31),
            Err(Error::UnsupportedPrimeWidth { .. })
        ));
    }
}
