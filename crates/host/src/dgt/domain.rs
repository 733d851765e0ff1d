//! Words in the DGT domain: the type [`super::DgtPlan::forward`] returns,
//! so that a DGT spectrum cannot pass for coefficients or NTT-domain words
//! (no NTT method takes a [`DgtView`]).
//!
//! ```compile_fail,E0277
//! # use polymul::{DevicePlan, Gpu, NttPlan, NttParams, Transform, dgt::{DgtConfig, DgtParams, DgtPlan}};
//! # fn f(gpu: &Gpu, dgt: &DgtPlan<u32>, ntt: &NttPlan<u32>) -> polymul::Result<()> {
//! let mut a = dgt.zeros(1)?;
//! let spectrum = dgt.forward(&mut a)?;
//! ntt.forward(spectrum)?; // no NTT plan transforms a DGT-domain view: E0277
//! # Ok(()) }
//! ```
//!
//! ```
//! # use polymul::{DevicePlan, Gpu, NttPlan, NttParams, Transform, dgt::{DgtConfig, DgtParams, DgtPlan}};
//! # fn f(gpu: &Gpu, dgt: &DgtPlan<u32>, ntt: &NttPlan<u32>) -> polymul::Result<()> {
//! let mut a = dgt.zeros(1)?;
//! let spectrum = dgt.forward(&mut a)?;
//! let coeffs = dgt.inverse(spectrum)?; // back to coefficients
//! ntt.forward(coeffs)?;                // which any plan takes
//! # Ok(()) }
//! ```

use crate::Coeff;
use crate::gpu::DeviceView;

/// Device words holding a DGT spectrum ([`super::DgtPlan::forward`]'s
/// output): the same memory as the [`DeviceView`] it came from, typed by
/// its domain. Only a [`super::DgtPlan`]'s `inverse` and `pointwise_mul`
/// take it.
#[repr(transparent)]
pub struct DgtView<W: Coeff>(DeviceView<W>);

impl<W: Coeff> DgtView<W> {
    /// Declares that `words` hold a DGT spectrum of some plan's (one
    /// [`super::DgtPlan::forward`] wrote earlier): the explicit way back to
    /// the DGT domain for words kept as plain device words.
    pub fn of_mut(words: &mut DeviceView<W>) -> &mut Self {
        let p: *mut DeviceView<W> = words;
        // SAFETY: `DgtView` is `repr(transparent)` over `DeviceView` (its only
        // field), so both unsized types have one layout and one metadata (the
        // word count); the result reborrows `words` for its lifetime, so
        // `DeviceView`'s own contract carries over unchanged.
        unsafe { &mut *(p as *mut Self) }
    }

    /// As [`DgtView::of_mut`], read-only.
    pub fn of(words: &DeviceView<W>) -> &Self {
        let p: *const DeviceView<W> = words;
        // SAFETY: as in `of_mut`, for a shared reborrow.
        unsafe { &*(p as *const Self) }
    }

    /// The raw words (e.g. to download a spectrum).
    pub fn words(&self) -> &DeviceView<W> {
        &self.0
    }

    /// The raw words, writable.
    pub fn words_mut(&mut self) -> &mut DeviceView<W> {
        &mut self.0
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True if it holds no words.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<W: Coeff> std::fmt::Debug for DgtView<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DgtView<u{}>[{}]", W::BITS, self.len())
    }
}
