//! RNS polymul on the CPU: the kernels' code per tower.

use crate::rns::RnsBasis;
use crate::{Coeff, Error, Result};

/// Negacyclic products of residue polynomials (tower-major, as
/// [`RnsBasis::to_residues`] writes them): tower `i` is multiplied modulo
/// `q_i` with [`super::polymul`].
pub fn rns_polymul<W: Coeff>(basis: &RnsBasis<W>, a: &[W], b: &[W]) -> Result<Vec<W>> {
    let (k, n) = (basis.len(), basis.n());
    if a.is_empty() || !a.len().is_multiple_of(k * n) {
        return Err(Error::NotAMultipleOfN { what: "a", got: a.len(), n: k * n });
    }
    if b.len() != a.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    let len = a.len() / k;
    let mut out = Vec::with_capacity(a.len());
    for (i, t) in basis.towers().iter().enumerate() {
        out.extend(super::polymul(t, &a[i * len..(i + 1) * len], &b[i * len..(i + 1) * len])?);
    }
    Ok(out)
}
