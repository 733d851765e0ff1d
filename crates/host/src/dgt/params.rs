//! DGT parameters: primes `p ≡ 3 (mod 4)` with `N | p + 1`, the Gaussian
//! weight root `ξ` (order `2N`, `ξ^(N/2) = i`), the transform root
//! `g = ξ^4` (order `M = N/2`), weights and their inverses.

use crate::params::arith::{inv_mod, is_prime, mul_mod};
use crate::params::{MAX_PRIME_BITS, MIN_PRIME_BITS};
use crate::{Coeff, Error, Result};
use polymul_kernels::arith::{Barrett4, ModMul};

/// Smallest N a DGT plan takes (`M = 2` Gaussians).
pub const MIN_N: usize = 4;
/// Largest N: two passes of at most 10 stages (1024 threads per block).
pub const MAX_N: usize = 1 << 21;

/// A Gaussian integer `(re, im)` modulo `p`, for parameter work on the host.
pub type G = (u64, u64);

/// `a · b` in `Z_p[i]`.
pub fn gmul(a: G, b: G, p: u64) -> G {
    let re = (mul_mod(a.0, b.0, p) + p - mul_mod(a.1, b.1, p)) % p;
    let im = (mul_mod(a.0, b.1, p) + mul_mod(a.1, b.0, p)) % p;
    (re, im)
}

/// `a^e` in `Z_p[i]`.
pub fn gpow(mut a: G, mut e: u128, p: u64) -> G {
    let mut r = (1, 0);
    while e > 0 {
        if e & 1 == 1 {
            r = gmul(r, a, p);
        }
        a = gmul(a, a, p);
        e >>= 1;
    }
    r
}

/// `a^−1` in `GF(p²)`: `conj(a) / norm(a)`.
pub fn ginv(a: G, p: u64) -> G {
    let norm = (mul_mod(a.0, a.0, p) + mul_mod(a.1, a.1, p)) % p;
    let ni = inv_mod(norm, p);
    (mul_mod(a.0, ni, p), mul_mod((p - a.1) % p, ni, p))
}

/// The `count` largest primes of exactly `bits` bits with `p ≡ −1 (mod N)`
/// (hence `p ≡ 3 mod 4` for `N ≥ 4`, and `2N | p² − 1`), largest first.
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
    let step = n as u64;
    let (hi, lo) = (1u64 << bits, 1u64 << (bits - 1));
    // Largest c < 2^bits with c ≡ −1 (mod N) (none if N > 2^bits); a huge
    // `count` is not allocated up front.
    let mut c = (hi - hi % step).saturating_sub(1);
    let mut out = Vec::new();
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
        let g = gpow(xi, 4, p);
        Ok(Self { n, log_m: log_n - 1, p: W::from_u64(p), xi, g, barrett })
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
        let p = self.p.as_u64();
        let m_inv = inv_mod((1u64 << self.log_m) % p, p);
        powers(ginv(self.xi, p), 1 << self.log_m, (m_inv, 0), p)
    }

    /// Powers `g^e` (forward) or `g^−e` (inverse), `e < M/2` (at least one).
    pub fn roots(&self, inverse: bool) -> Vec<G> {
        let p = self.p.as_u64();
        let g = if inverse { ginv(self.g, p) } else { self.g };
        powers(g, (1usize << self.log_m).div_ceil(2), (1, 0), p)
    }
}

fn powers(x: G, len: usize, start: G, p: u64) -> Vec<G> {
    let mut out = Vec::with_capacity(len);
    let mut cur = start;
    for _ in 0..len {
        out.push(cur);
        cur = gmul(cur, x, p);
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
        let w = gpow(z, order / two_n, p);
        // Order exactly 2N (a power of two) ⇔ w^N ≠ 1.
        if gpow(w, n as u128, p) == (1, 0) {
            continue;
        }
        let quarter = gpow(w, (n / 2) as u128, p);
        if quarter == (0, 1) {
            return Some(w);
        }
        if quarter == (0, p - 1) {
            return Some(ginv(w, p));
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
            assert_eq!(gpow(xi, (n / 2) as u128, p), (0, 1));
            assert_eq!(gpow(xi, n as u128, p), (p - 1, 0));
            assert_eq!(gpow(xi, 2 * n as u128, p), (1, 0));
            // g has order exactly M.
            let m = (n / 2) as u128;
            assert_eq!(gpow(prm.g(), m, p), (1, 0));
            if m > 1 {
                assert_ne!(gpow(prm.g(), m / 2, p), (1, 0));
            }
            assert_eq!(gmul(prm.g(), ginv(prm.g(), p), p), (1, 0));
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
