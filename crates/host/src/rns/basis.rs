//! The RNS basis: primes, `Q`, CRT constants, conversions.

use crate::params::{NttParams, ntt_primes};
use crate::{Coeff, Error, Result};
use num_bigint::BigUint;

/// `k` distinct NTT-friendly primes for one `N`, their product `Q` and the
/// constants of CRT reconstruction.
///
/// ```
/// use polymul::rns::RnsBasis;
/// // HEAAN's default size: N = 2^16, log2 Q = 1240, from 62-bit primes.
/// let basis = RnsBasis::<u64>::with_modulus_bits(1 << 16, 62, 1240)?;
/// assert_eq!(basis.len(), 20);
/// assert!(basis.modulus().bits() >= 1240);
/// # Ok::<(), polymul::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct RnsBasis<W: Coeff> {
    towers: Vec<NttParams<W>>,
    modulus: BigUint,
    /// `Q / q_i`.
    q_hat: Vec<BigUint>,
    /// `(Q / q_i)^{-1} mod q_i`.
    q_hat_inv: Vec<u64>,
    /// The conversion kernels' tables (limbs in and out).
    pub(super) conv: std::sync::Arc<super::convert::Tables>,
}

impl<W: Coeff> RnsBasis<W> {
    /// A basis from explicit primes. Errors: no prime
    /// ([`Error::EmptyBasis`]), more than [`crate::params::MAX_PRIME_COUNT`]
    /// ([`Error::TooManyPrimes`]), a prime twice ([`Error::DuplicatePrime`]),
    /// and those of [`NttParams::new`] for any prime (N, not prime,
    /// `q ≢ 1 (mod 2N)`, too wide for `W`).
    pub fn from_primes(n: usize, primes: &[u64]) -> Result<Self> {
        if primes.is_empty() {
            return Err(Error::EmptyBasis);
        }
        crate::params::check_count(primes.len())?;
        let mut seen = std::collections::HashSet::with_capacity(primes.len());
        if let Some(&q) = primes.iter().find(|&&q| !seen.insert(q)) {
            return Err(Error::DuplicatePrime { q });
        }
        let towers = primes.iter().map(|&q| NttParams::new(n, q)).collect::<Result<Vec<_>>>()?;
        let modulus: BigUint = primes.iter().map(|&q| BigUint::from(q)).product();
        let q_hat: Vec<BigUint> = primes.iter().map(|&q| &modulus / q).collect();
        let q_hat_inv = primes
            .iter()
            .zip(&q_hat)
            .map(|(&q, h)| {
                // Distinct primes: Q / q_i is invertible modulo q_i.
                let r = u64::try_from(h % q).unwrap_or(0);
                crate::params::arith::inv(r, q).ok_or(Error::NotInvertible { value: r, q })
            })
            .collect::<Result<Vec<u64>>>()?;
        let conv =
            std::sync::Arc::new(super::convert::Tables::new::<W>(primes, &modulus, &q_hat, &q_hat_inv));
        Ok(Self { towers, modulus, q_hat, q_hat_inv, conv })
    }

    /// The `count` largest `bits`-bit NTT-friendly primes for `n`. Errors:
    /// `count = 0` ([`Error::EmptyBasis`]) and those of
    /// [`crate::params::ntt_primes`].
    pub fn new(n: usize, bits: u32, count: usize) -> Result<Self> {
        if count == 0 {
            return Err(Error::EmptyBasis);
        }
        Self::from_primes(n, &ntt_primes(bits, n, count)?)
    }

    /// The fewest `bits`-bit primes (largest first) whose product `Q` has
    /// at least `log_q` bits. Errors: those of [`crate::params::ntt_primes`]
    /// ([`Error::TooManyPrimes`] when `log_q` needs more than
    /// [`crate::params::MAX_PRIME_COUNT`] primes).
    pub fn with_modulus_bits(n: usize, bits: u32, log_q: u64) -> Result<Self> {
        // Each prime has exactly `bits` bits, so Q has more than
        // count·(bits − 1) bits: this count always suffices.
        let most = usize::try_from(log_q.max(1).div_ceil(u64::from(bits.max(2) - 1))).unwrap_or(usize::MAX);
        let primes = ntt_primes(bits, n, most)?;
        let mut q = BigUint::from(1u32);
        let mut count = 0;
        for &p in &primes {
            q *= p;
            count += 1;
            if q.bits() >= log_q {
                break;
            }
        }
        Self::from_primes(n, &primes[..count])
    }

    /// Number of towers `k`.
    pub fn len(&self) -> usize {
        self.towers.len()
    }

    /// Always false: a basis has at least one tower.
    pub fn is_empty(&self) -> bool {
        self.towers.is_empty()
    }

    /// Transform size N.
    pub fn n(&self) -> usize {
        self.towers[0].n()
    }

    /// The per-tower parameters.
    pub fn towers(&self) -> &[NttParams<W>] {
        &self.towers
    }

    /// The primes, in tower order.
    pub fn primes(&self) -> Vec<u64> {
        self.towers.iter().map(|t| t.q().as_u64()).collect()
    }

    /// `Q`, the product of the primes.
    pub fn modulus(&self) -> &BigUint {
        &self.modulus
    }

    /// The residues of `coeffs` (any number of whole polynomials, every
    /// coefficient below `Q`), tower-major: tower `i` holds
    /// `coeffs[j] mod q_i` at `i · len + j`.
    pub fn to_residues(&self, coeffs: &[BigUint]) -> Result<Vec<W>> {
        let n = self.n();
        if coeffs.is_empty() || !coeffs.len().is_multiple_of(n) {
            return Err(Error::NotAMultipleOfN { what: "coeffs", got: coeffs.len(), n });
        }
        if let Some(index) = coeffs.iter().position(|c| c >= &self.modulus) {
            let bits = coeffs[index].bits();
            return Err(Error::BigCoefficientOutOfRange {
                what: "coeffs",
                index,
                bits,
                q_bits: self.modulus.bits(),
            });
        }
        let mut out = Vec::with_capacity(coeffs.len() * self.len());
        for t in &self.towers {
            let q = t.q().as_u64();
            out.extend(coeffs.iter().map(|c| W::from_u64(u64::try_from(c % q).unwrap_or(0))));
        }
        Ok(out)
    }

    /// CRT reconstruction: the coefficients in `[0, Q)` whose residues are
    /// `residues` (tower-major, as [`RnsBasis::to_residues`] writes them).
    pub fn from_residues(&self, residues: &[W]) -> Result<Vec<BigUint>> {
        let (k, n) = (self.len(), self.n());
        if residues.is_empty() || !residues.len().is_multiple_of(k * n) {
            return Err(Error::NotAMultipleOfN { what: "residues", got: residues.len(), n: k * n });
        }
        let len = residues.len() / k;
        for (i, t) in self.towers.iter().enumerate() {
            t.check_batch("residues", &residues[i * len..(i + 1) * len])
                .map_err(|e| super::in_whole(e, i * len))?;
        }
        let out = (0..len)
            .map(|j| {
                let mut acc = BigUint::from(0u32);
                for (i, t) in self.towers.iter().enumerate() {
                    let q = t.q().as_u64();
                    let r = residues[i * len + j].as_u64();
                    // r · ((Q/q_i)^{-1} mod q_i) mod q_i, times Q/q_i.
                    let c = crate::params::arith::mul(r, self.q_hat_inv[i], q);
                    acc += &self.q_hat[i] * c;
                }
                acc % &self.modulus
            })
            .collect();
        Ok(out)
    }
}
