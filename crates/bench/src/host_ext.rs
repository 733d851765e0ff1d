//! The host-vector transforms the plans had before the trait API (issue 31
//! removed `forward_host` and `inverse_host`), for the many checks and
//! benchmarks that compare a transformed copy: the same steps (upload,
//! transform, download), through the traits.

use polymul::prelude::*;
use polymul::{Coeff, DgtPlan, Result};

/// The forward NTT of host words, in a new vector.
pub(crate) fn forward_host<W: Coeff, P: Transform<W, [W]> + ?Sized>(plan: &P, x: &[W]) -> Result<Vec<W>> {
    let mut y = x.to_vec();
    plan.forward(&mut y[..])?;
    Ok(y)
}

/// The inverse NTT (scaled) of host words, in a new vector.
pub(crate) fn inverse_host<W: Coeff, P: Transform<W, [W]> + ?Sized>(plan: &P, x: &[W]) -> Result<Vec<W>> {
    let mut y = x.to_vec();
    plan.inverse(&mut y[..])?;
    Ok(y)
}

/// The forward DGT of host words: uploaded, transformed, downloaded (the
/// DGT domain's raw words).
pub(crate) fn dgt_forward_host<W: Coeff>(plan: &DgtPlan<W>, x: &[W]) -> Result<Vec<W>> {
    let mut d = plan.upload(x)?;
    let f = plan.forward(&mut d)?;
    plan.download(f.words())
}
