//! RNS polymul on the CPU: the kernels' code per tower.

use crate::rns::RnsBasis;
use crate::{Coeff, Result};

/// Negacyclic products of residue polynomials (tower-major, as
/// [`RnsBasis::to_residues`] writes them): tower `i` is multiplied modulo
/// `q_i` with [`super::polymul`].
pub fn rns_polymul<W: Coeff>(basis: &RnsBasis<W>, a: &[W], b: &[W]) -> Result<Vec<W>> {
    let towers = basis.towers();
    crate::rns::per_tower(basis.len(), basis.n(), a, b, |i, a, b| super::polymul(&towers[i], a, b))
}
