//! Parameters of a negacyclic NTT over `Z_q[X]/(X^N + 1)`: NTT-friendly
//! primes, primitive 2N-th roots ψ, bit-reversed twiddle tables and the
//! reduction constants, all validated.

pub mod arith;
pub(crate) mod geometry;
mod primes;

pub(crate) use geometry::{geometry_2d, tile_geometry};
pub(crate) use primes::check_count;
pub use primes::{MAX_PRIME_BITS, MAX_PRIME_COUNT, MIN_PRIME_BITS, ntt_prime_below, ntt_primes};

use crate::{Coeff, Error, Result};
use arith::{bit_reverse, inv, is_prime, mul, pow};
use polymul_kernels::arith::{Barrett4, ModMul};

/// Smallest supported transform size.
pub const MIN_N: usize = 2;
/// Largest supported transform size.
pub const MAX_N: usize = 1 << 24;

/// Checks that `n` is a power of two in `[MIN_N, MAX_N]`; returns `log2 n`.
pub fn check_n(n: usize) -> Result<u32> {
    if n.is_power_of_two() && (MIN_N..=MAX_N).contains(&n) {
        Ok(n.trailing_zeros())
    } else {
        Err(Error::InvalidN { n, min: MIN_N, max: MAX_N })
    }
}

/// A primitive 2N-th root of unity modulo the prime `q ≡ 1 (mod 2N)`.
///
/// Deterministic: the first `g = 2, 3, …` whose `g^((q−1)/2N)` has order 2N.
///
/// # Errors
/// [`Error::InvalidN`] unless `n` is a power of two in `[MIN_N, MAX_N]`,
/// [`Error::NotPrime`], [`Error::NotNttFriendly`].
pub fn primitive_root_2n(q: u64, n: usize) -> Result<u64> {
    check_n(n)?;
    let two_n = 2 * n as u64;
    if !is_prime(q) {
        return Err(Error::NotPrime { q });
    }
    if !(q - 1).is_multiple_of(two_n) {
        return Err(Error::NotNttFriendly { q, n, two_n });
    }
    let e = (q - 1) / two_n;
    // 2N is a power of two, so ψ has order exactly 2N iff ψ^N = −1.
    (2..q).map(|g| pow(g, e, q)).find(|&psi| pow(psi, n as u64, q) == q - 1).ok_or(Error::NotNttFriendly {
        q,
        n,
        two_n,
    })
}

/// `Ψ_br[i] = root^br(i) mod q` for `i < n` (bit reversal on `log2 n` bits).
///
/// # Errors
/// [`Error::InvalidN`] unless `n` is a power of two in `[MIN_N, MAX_N]`;
/// [`Error::BadModulus`] if `q = 0`.
pub fn bit_reversed_powers(root: u64, n: usize, q: u64) -> Result<Vec<u64>> {
    let log_n = check_n(n)?;
    if q == 0 {
        return Err(Error::BadModulus { q, why: "it is zero (a modulus must be at least 1)" });
    }
    Ok(powers_br(root, n, log_n, q))
}

/// [`bit_reversed_powers`] for a validated `n = 2^log_n` and `q > 0`.
fn powers_br(root: u64, n: usize, log_n: u32, q: u64) -> Vec<u64> {
    let mut powers = vec![0u64; n];
    let mut x = 1 % q;
    for p in powers.iter_mut() {
        *p = x;
        x = mul(x, root, q);
    }
    (0..n).map(|i| powers[bit_reverse(i, log_n)]).collect()
}

/// Everything a transform of size `N` modulo `q` needs, on words `W`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NttParams<W> {
    n: usize,
    log_n: u32,
    q: W,
    psi: W,
    psi_inv: W,
    n_inv: W,
    twiddles: Vec<W>,
    inv_twiddles: Vec<W>,
    barrett: Barrett4<W>,
}

impl<W: Coeff> NttParams<W> {
    /// Validates `(n, q)` and precomputes roots and twiddles.
    ///
    /// Errors: `n` not a power of two in range, `q` not prime, `q ≢ 1 (mod 2n)`,
    /// or `q` too wide for `W` with Algorithm 4 (62 bits on `u64`, 30 on `u32`).
    pub fn new(n: usize, q: u64) -> Result<Self> {
        let log_n = check_n(n)?;
        let max_bits = Barrett4::<W>::MAX_BITS;
        let bits = 64 - q.leading_zeros();
        if bits > max_bits {
            return Err(Error::ModulusTooWide { q, bits, max_bits, word: W::BITS });
        }
        let barrett = Barrett4::new(W::from_u64(q)).map_err(|e| Error::from_modulus(q, W::BITS, e))?;
        let psi = primitive_root_2n(q, n)?;
        // q is a prime above 2N, so ψ and N are invertible.
        let invert = |a: u64| inv(a, q).ok_or(Error::NotInvertible { value: a % q, q });
        let psi_inv = invert(psi)?;
        let n_inv = invert(n as u64 % q)?;
        let conv = |v: Vec<u64>| v.into_iter().map(W::from_u64).collect::<Vec<W>>();
        Ok(Self {
            n,
            log_n,
            q: W::from_u64(q),
            psi: W::from_u64(psi),
            psi_inv: W::from_u64(psi_inv),
            n_inv: W::from_u64(n_inv),
            twiddles: conv(powers_br(psi, n, log_n, q)),
            inv_twiddles: conv(powers_br(psi_inv, n, log_n, q)),
            barrett,
        })
    }

    /// Parameters with the largest `bits`-bit NTT-friendly prime for `n`.
    pub fn with_prime_bits(n: usize, bits: u32) -> Result<Self> {
        check_n(n)?;
        let max_bits = Barrett4::<W>::MAX_BITS;
        if bits > max_bits {
            return Err(Error::UnsupportedPrimeWidth { bits, min: MIN_PRIME_BITS, max: max_bits });
        }
        Self::new(n, ntt_primes(bits, n, 1)?[0])
    }

    /// Transform size N.
    pub fn n(&self) -> usize {
        self.n
    }
    /// `log2 N`.
    pub fn log_n(&self) -> u32 {
        self.log_n
    }
    /// The modulus.
    pub fn q(&self) -> W {
        self.q
    }
    /// The primitive 2N-th root of unity ψ.
    pub fn psi(&self) -> W {
        self.psi
    }
    /// ψ⁻¹.
    pub fn psi_inv(&self) -> W {
        self.psi_inv
    }
    /// N⁻¹ mod q.
    pub fn n_inv(&self) -> W {
        self.n_inv
    }
    /// `Ψ_br`: `ψ^br(i)`, the forward (merged CT) twiddles.
    pub fn twiddles(&self) -> &[W] {
        &self.twiddles
    }
    /// `Ψ⁻¹_br`: `ψ^−br(i)`, the inverse (merged GS) twiddles.
    pub fn inv_twiddles(&self) -> &[W] {
        &self.inv_twiddles
    }
    /// Algorithm-4 Barrett constants for `q`.
    pub fn barrett(&self) -> &Barrett4<W> {
        &self.barrett
    }

    /// Checks that `data` is a positive multiple of N long and fully reduced;
    /// returns the number of polynomials.
    pub fn check_batch(&self, what: &'static str, data: &[W]) -> Result<usize> {
        if data.is_empty() || !data.len().is_multiple_of(self.n) {
            return Err(Error::NotAMultipleOfN { what, got: data.len(), n: self.n });
        }
        if let Some((index, v)) = data.iter().enumerate().find(|(_, v)| **v >= self.q) {
            return Err(Error::CoefficientOutOfRange { what, index, value: v.as_u64(), q: self.q.as_u64() });
        }
        let batch = data.len() / self.n;
        self.check_batch_size(batch)?;
        Ok(batch)
    }

    /// Largest batch one launch handles: the `batch · N` coefficients must be
    /// addressable by a 32-bit thread index. The plans split larger batches
    /// into launches of at most this many polynomials (see
    /// [`crate::Product`] on any batch).
    pub fn max_batch(&self) -> usize {
        max_batch(self.n)
    }

    /// Checks a batch size against [`NttParams::max_batch`].
    pub fn check_batch_size(&self, batch: usize) -> Result<()> {
        check_batch_size(self.n, batch)
    }
}

/// Largest batch of length-`n` polynomials one launch handles (`batch · n`
/// words addressable by a 32-bit thread index).
pub(crate) fn max_batch(n: usize) -> usize {
    u32::MAX as usize / n
}

/// A batch of 1 to [`max_batch`]`(n)` polynomials; the one check every plan
/// type (NTT, RNS, DGT) uses.
pub(crate) fn check_batch_size(n: usize, batch: usize) -> Result<()> {
    if batch == 0 {
        return Err(Error::NotAMultipleOfN { what: "batch", got: 0, n });
    }
    if batch > max_batch(n) {
        return Err(Error::BatchTooLarge { batch, n, max: max_batch(n) });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_have_order_2n() {
        for (bits, n) in [(30u32, 1024usize), (62, 1 << 16), (20, 2), (62, 1 << 17)] {
            let q = ntt_primes(bits, n, 1).unwrap()[0];
            let psi = primitive_root_2n(q, n).unwrap();
            assert_eq!(pow(psi, 2 * n as u64, q), 1);
            assert_eq!(pow(psi, n as u64, q), q - 1);
            // Order is exactly 2N: ψ^(2N/2^k) != 1 for every proper divisor.
            let mut d = n as u64;
            while d >= 1 {
                assert_ne!(pow(psi, d, q), 1, "ψ^{d} = 1");
                d /= 2;
            }
        }
    }

    #[test]
    fn params_validate_everything() {
        let q62 = ntt_primes(62, 1024, 1).unwrap()[0];
        assert!(NttParams::<u64>::new(1024, q62).is_ok());
        assert!(matches!(NttParams::<u32>::new(1024, q62), Err(Error::ModulusTooWide { word: 32, .. })));
        assert!(matches!(NttParams::<u64>::new(1000, q62), Err(Error::InvalidN { .. })));
        assert!(matches!(NttParams::<u64>::new(0, q62), Err(Error::InvalidN { .. })));
        assert!(matches!(NttParams::<u64>::new(1 << 25, q62), Err(Error::InvalidN { .. })));
        assert!(matches!(NttParams::<u64>::new(1024, q62 - 2), Err(Error::NotPrime { .. })));
        // 2^61 - 1 is prime but ≢ 1 (mod 2048).
        let mersenne = (1u64 << 61) - 1;
        assert!(matches!(NttParams::<u64>::new(1024, mersenne), Err(Error::NotNttFriendly { .. })));
        assert!(matches!(NttParams::<u64>::new(1024, 1u64 << 62 | 1), Err(Error::ModulusTooWide { .. })));
        assert!(matches!(NttParams::<u64>::new(1024, 4), Err(Error::BadModulus { .. })));
        assert!(matches!(
            NttParams::<u32>::with_prime_bits(1024, 31),
            Err(Error::UnsupportedPrimeWidth { .. })
        ));
    }

    #[test]
    fn twiddle_tables_are_bit_reversed_powers() {
        let p = NttParams::<u64>::with_prime_bits(16, 40).unwrap();
        let q = p.q();
        for i in 0..16 {
            let e = bit_reverse(i, 4) as u64;
            assert_eq!(p.twiddles()[i], pow(p.psi(), e, q));
            assert_eq!(p.inv_twiddles()[i], pow(p.psi_inv(), e, q));
        }
        assert_eq!(mul(p.psi(), p.psi_inv(), q), 1);
        assert_eq!(mul(p.n_inv(), 16, q), 1);
    }

    #[test]
    fn batch_checks() {
        let p = NttParams::<u32>::with_prime_bits(4, 30).unwrap();
        let q = p.q();
        assert_eq!(p.check_batch("a", &[0, 1, 2, q - 1, 0, 0, 0, 0]).unwrap(), 2);
        assert!(matches!(p.check_batch("a", &[]), Err(Error::NotAMultipleOfN { .. })));
        assert!(matches!(p.check_batch("a", &[0; 6]), Err(Error::NotAMultipleOfN { .. })));
        assert!(matches!(
            p.check_batch("a", &[0, 0, q, 0]),
            Err(Error::CoefficientOutOfRange { index: 2, .. })
        ));
    }
}
