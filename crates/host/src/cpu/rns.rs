//! RNS polymul on the CPU: the kernels' code per tower.

use crate::rns::RnsBasis;
use crate::{Coeff, Result};

/// Negacyclic products of residue polynomials (tower-major, as
/// [`RnsBasis::to_residues`] writes them): tower `i` is multiplied modulo
/// `q_i` with [`crate::expert::emulation::polymul`].
pub fn rns_polymul<W: Coeff>(basis: &RnsBasis<W>, a: &[W], b: &[W]) -> Result<Vec<W>> {
    let towers = basis.towers();
    crate::rns::per_tower(basis.len(), basis.n(), a, b, |i, a, b| super::ntt::polymul(&towers[i], a, b))
}

/// Negacyclic products modulo `Q` of limb-encoded polynomials on the CPU
/// (the layout of [`RnsBasis::limbs`]: `batch · N · L` little-endian `u64`
/// words, coefficient-major, every coefficient below `Q`): the
/// conversion kernels' code on every core ([`RnsBasis::decompose`],
/// [`RnsBasis::reconstruct`]) around [`rns_polymul`]. What
/// [`crate::rns::RnsPlan::polymul_limbs`] computes, bit for bit.
///
/// # Errors
/// Those of [`RnsBasis::check_limbs`] for `a` and `b`, and
/// [`crate::Error::LengthMismatch`] if their lengths differ.
pub fn rns_polymul_limbs<W: Coeff>(basis: &RnsBasis<W>, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    let ra = basis.decompose(a)?;
    if b.len() != a.len() {
        return Err(crate::Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    let rb = basis.decompose(b)?;
    basis.reconstruct(&rns_polymul(basis, &ra, &rb)?)
}

/// [`rns_polymul_limbs`] on big integers ([`RnsBasis::to_limbs`],
/// [`RnsBasis::from_limbs`]).
///
/// # Errors
/// As [`RnsBasis::to_limbs`] and [`rns_polymul_limbs`].
pub fn rns_polymul_big<W: Coeff>(
    basis: &RnsBasis<W>,
    a: &[num_bigint::BigUint],
    b: &[num_bigint::BigUint],
) -> Result<Vec<num_bigint::BigUint>> {
    let (la, lb) = (basis.to_limbs(a)?, basis.to_limbs(b)?);
    basis.from_limbs(&rns_polymul_limbs(basis, &la, &lb)?)
}
