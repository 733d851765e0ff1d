//! Polynomials modulo a large `Q`: the residue number system.
//!
//! HE libraries multiply polynomials modulo `Q` with hundreds or thousands of
//! bits by writing `Q = q_0 · q_1 ⋯ q_{k−1}` with word-sized NTT-friendly
//! primes (the *towers*) and working on each residue separately: by the
//! Chinese remainder theorem, `Z_Q[X]/(X^N+1)` is the product of the
//! `Z_{q_i}[X]/(X^N+1)`.
//!
//! * [`RnsBasis`]: the primes, `Q` and the CRT constants; conversion of
//!   big-integer coefficients to residues and back.
//! * [`crate::expert::emulation::rns_polymul`]: the per-tower product on the CPU;
//!   [`RnsPlan`]: the same on a GPU.
//!
//! Residues are stored tower-major: tower `i`'s `batch · N` words, then tower
//! `i + 1`'s.

mod basis;
mod convert;
mod plan;

pub use basis::RnsBasis;
pub(crate) use convert::BasisConvert;
pub use convert::{CrtChoice, DeviceLimbs};
pub use plan::RnsPlan;

use crate::{Coeff, Error, Result};

/// Validates two tower-major residue buffers of `towers` towers of
/// `N = n` words each (same length, whole polynomials in every tower) and
/// concatenates `mul(i, a_i, b_i)` over the towers: the loop that the CPU
/// ([`crate::expert::emulation::rns_polymul`]) and GPU ([`RnsPlan::polymul`]) products share.
pub(crate) fn per_tower<W: Coeff>(
    towers: usize,
    n: usize,
    a: &[W],
    b: &[W],
    mut mul: impl FnMut(usize, &[W], &[W]) -> Result<Vec<W>>,
) -> Result<Vec<W>> {
    if a.is_empty() || !a.len().is_multiple_of(towers * n) {
        return Err(Error::NotAMultipleOfN { what: "a", got: a.len(), n: towers * n });
    }
    if b.len() != a.len() {
        return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
    }
    let len = a.len() / towers;
    let mut out = Vec::with_capacity(a.len());
    for i in 0..towers {
        let product = mul(i, &a[i * len..(i + 1) * len], &b[i * len..(i + 1) * len]);
        out.extend(product.map_err(|e| in_whole(e, i * len))?);
    }
    Ok(out)
}

/// An error about one tower's slice (starting at word `offset` of the whole
/// tower-major buffer), with a coefficient index made an index into the
/// whole buffer.
pub(crate) fn in_whole(e: Error, offset: usize) -> Error {
    match e {
        Error::CoefficientOutOfRange { what, index, value, q } => {
            Error::CoefficientOutOfRange { what, index: index + offset, value, q }
        }
        e => e,
    }
}
