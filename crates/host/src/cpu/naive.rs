use crate::params::arith::{add, mul, sub};
use crate::{Error, Result};

/// `a · b mod (X^N + 1, q)` by the schoolbook method: `X^N = −1`, so the
/// product term `a_i b_j` lands at `i + j` with sign `+` if `i + j < N`
/// and at `i + j − N` with sign `−` otherwise.
///
/// `a` and `b` must have the same length `N` (any N ≥ 1); coefficients may be
/// any `u64` (they are reduced first); `q ≥ 2`. Runs in O(N²): use it for N
/// up to a few thousand.
///
/// # Errors
/// [`Error::NotAMultipleOfN`] for empty input, [`Error::LengthMismatch`] if
/// the lengths differ, [`Error::BadModulus`] if `q < 2`.
pub fn negacyclic_naive(a: &[u64], b: &[u64], q: u64) -> Result<Vec<u64>> {
    let n = a.len();
    if n == 0 {
        return Err(Error::NotAMultipleOfN { what: "a", got: 0, n: 1 });
    }
    if n != b.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: n });
    }
    if q < 2 {
        return Err(Error::BadModulus { q, why: "a modulus must be at least 2" });
    }
    let mut c = vec![0u64; n];
    for (i, &ai) in a.iter().enumerate() {
        let ai = ai % q;
        for (j, &bj) in b.iter().enumerate() {
            let p = mul(ai, bj % q, q);
            let k = i + j;
            if k < n {
                c[k] = add(c[k], p, q);
            } else {
                c[k - n] = sub(c[k - n], p, q);
            }
        }
    }
    Ok(c)
}

/// The naive negacyclic product of big-integer polynomials modulo `q`
/// (equal lengths, a power of two; coefficients of any size, the result is
/// reduced modulo `q`): the independent reference for RNS polymul.
///
/// # Errors
/// [`Error::LengthMismatch`], [`Error::InvalidN`] (the length is not a power
/// of two in `[MIN_N, MAX_N]`), [`Error::BadModulus`] if `q < 2`.
pub fn negacyclic_naive_big(
    a: &[num_bigint::BigUint],
    b: &[num_bigint::BigUint],
    q: &num_bigint::BigUint,
) -> Result<Vec<num_bigint::BigUint>> {
    use num_bigint::BigUint;
    let n = a.len();
    if b.len() != n {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: n });
    }
    crate::params::check_n(n)?;
    if *q < BigUint::from(2u32) {
        let q = u64::try_from(q).unwrap_or(0);
        return Err(Error::BadModulus { q, why: "a modulus must be at least 2" });
    }
    // Positive and negative wrapped parts, reduced once at the end.
    let (mut pos, mut neg) = (vec![BigUint::from(0u32); n], vec![BigUint::from(0u32); n]);
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            let p = x * y;
            if i + j < n {
                pos[i + j] += p;
            } else {
                neg[i + j - n] += p;
            }
        }
    }
    Ok(pos
        .into_iter()
        .zip(neg)
        .map(|(p, m)| {
            let m = m % q;
            (p + q - m) % q
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases_by_hand() {
        // (1 + X)(1 + X) = 1 + 2X + X^2 = 1 + 2X − 1 = 2X  in Z_17[X]/(X^2+1).
        assert_eq!(negacyclic_naive(&[1, 1], &[1, 1], 17).unwrap(), vec![0, 2]);
        // X^3 · X = X^4 = −1 in Z_17[X]/(X^4+1).
        assert_eq!(negacyclic_naive(&[0, 0, 0, 1], &[0, 1, 0, 0], 17).unwrap(), vec![16, 0, 0, 0]);
        // Multiplying by 1 is the identity.
        assert_eq!(negacyclic_naive(&[5, 6, 7, 8], &[1, 0, 0, 0], 17).unwrap(), vec![5, 6, 7, 8]);
        assert!(negacyclic_naive(&[1, 2], &[1], 17).is_err());
        assert!(negacyclic_naive(&[1], &[1], 1).is_err());
        assert!(negacyclic_naive(&[], &[], 17).is_err());
    }
}
