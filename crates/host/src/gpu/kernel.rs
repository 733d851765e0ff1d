//! A kernel handle a plan can own: the looked-up function and a clone of
//! the [`Gpu`] whose module holds it, so the handle can never outlive its
//! code (cust's `Function<'a>` borrows the module, which would tie every
//! plan to a borrowed GPU).

use super::Gpu;
use crate::{Error, Result};
use cust::function::Function;

/// One kernel of the loaded module, owned: `Send + Sync`, no lifetime.
pub(crate) struct Kernel {
    /// Borrows `_gpu`'s module; `'static` because `_gpu` (declared after it,
    /// so dropped after it) keeps that module alive as long as `self`.
    f: Function<'static>,
    _gpu: Gpu,
}

impl Kernel {
    /// Looks `name` up in `gpu`'s module.
    pub(crate) fn get(gpu: &Gpu, name: &str) -> Result<Self> {
        let f = gpu
            .module()
            .get_function(name)
            .map_err(|source| Error::Cuda { during: "looking up a kernel", source })?;
        // SAFETY: a `Function` is a plain driver handle (no destructor) valid
        // while its module is loaded; the module belongs to `gpu`'s shared
        // state, which the clone stored beside it keeps alive for as long as
        // this `Kernel` exists. The `'static` never escapes: `function()`
        // hands it out borrowed from `self` (`Deref`).
        let f = unsafe { std::mem::transmute::<Function<'_>, Function<'static>>(f) };
        Ok(Self { f, _gpu: gpu.clone() })
    }
}

/// The function, borrowed from the handle (a `Function` is neither `Clone`
/// nor `Copy`, so the `'static` cannot be moved out of the borrow).
impl std::ops::Deref for Kernel {
    type Target = Function<'static>;
    fn deref(&self) -> &Function<'static> {
        &self.f
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kernel")
    }
}
