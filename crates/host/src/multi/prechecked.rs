//! Host products of the crate's GPU plans on words a multi-device plan
//! has validated already: each share goes straight to its plan's copy
//! pipeline (`gpu/split.rs`, what the plan's own host call runs after its
//! checks), so the words are scanned once per call, not once by the
//! multi-device plan and again by every plan. Other plans (the CPU plans,
//! plans of other crates) take their own, checked, call.

use crate::gpu::split::{HostIo, Op, host_call};
use crate::{Coeff, DgtPlan, Layout, Multiplier, NttPlan, Result, RnsPlan};
use std::any::Any;

/// `out ← a ⊗ b` (`a = None`: `out ← out ⊗ b`) of one share, `share` its
/// layout, through the copy pipeline of `plan` without the plan's checks;
/// `None` where `plan` is not one of the crate's GPU plans (an
/// [`NttPlan`], [`RnsPlan`], [`DgtPlan`], or a [`Multiplier`] that chose
/// one). Each calls the pipeline of its own concrete type, the one its own
/// host call uses (no further copy of the pipeline's code in the binary).
///
/// The words must have been validated against `plan`'s moduli (every
/// operand of the multi-device call, `Towers::check_pair`, before any
/// share ran): the kernels take reduced words.
pub(super) fn product<W: Coeff + 'static, P: 'static>(
    plan: &P,
    a: Option<&[W]>,
    b: &[W],
    out: &mut [W],
    share: Layout,
) -> Option<Result<()>> {
    let any: &dyn Any = plan;
    let io = HostIo { a, b: Some(b), out };
    if let Some(p) = any.downcast_ref::<NttPlan<W>>() {
        return Some(host_call(p, Op::Product, io, share));
    }
    if let Some(p) = any.downcast_ref::<RnsPlan<W>>() {
        return Some(host_call(p, Op::Product, io, share));
    }
    if let Some(p) = any.downcast_ref::<DgtPlan<W>>() {
        return Some(host_call(p, Op::Product, io, share));
    }
    any.downcast_ref::<Multiplier<W>>()?.prechecked_product(io, share)
}
