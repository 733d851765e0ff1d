//! Device-to-device copies and a plan's scratch operand: what an
//! out-of-place product needs to leave its operands intact.

use super::launch::Queue;
use super::{DeviceVec, DeviceView};
use crate::layout::Towers;
use crate::{Coeff, Error, Result};
use std::sync::Mutex;

/// Queues `dst ← src` (equal lengths, checked by the caller) on `q`'s
/// stream, after the work queued there before.
pub(crate) fn copy<W: Coeff>(q: &Queue<'_>, src: &DeviceView<W>, dst: &mut DeviceView<W>) -> Result<()> {
    debug_assert_eq!(src.len(), dst.len());
    if src.is_empty() {
        return Ok(());
    }
    q.gpu.bind()?;
    let bytes = src.len() * std::mem::size_of::<W>();
    // SAFETY: `src` and `dst` view live allocations (`DeviceView`'s contract) of
    // equal lengths, checked by the callers (`product_into`: `Towers::operands`;
    // `Scratch::with_copy`: it sizes `dst` to `src.len()`; gpu/split.rs: both
    // sub-views of `l` words), so `bytes` is in range of both; they are
    // distinct (`dst` is borrowed mutably). The words must stay allocated until
    // the copy runs: the scratch buffer is replaced only after
    // `q.synchronize()` (`Scratch::with_copy`), split.rs's piece buffers are
    // freed only after `q.synchronize()` (`device_call`); a caller's buffer may
    // be dropped earlier, freed by `cuMemFree`, which the crate relies on to wait
    // for the queued work. The stream is of the current context: `Gpu::bind`
    // above.
    let rc = unsafe {
        cust::sys::cuMemcpyDtoDAsync_v2(dst.ptr().as_raw(), src.ptr().as_raw(), bytes, q.stream.as_inner())
    };
    if rc == cust::sys::cudaError_enum::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(Error::CudaCode { during: "copying on the device", code: rc as i32 })
    }
}

/// `out ← a ⊗ b` with both operands intact, for any plan: the operands
/// checked against `towers`, `a` copied into `out` and `b` into `scratch`
/// (both on `q`'s stream), then the plan's in-place product on the copies.
pub(crate) fn product_into<W: Coeff>(
    towers: &Towers<W>,
    q: &Queue<'_>,
    scratch: &Scratch<W>,
    (a, b, out): (&DeviceView<W>, &DeviceView<W>, &mut DeviceView<W>),
    in_place: impl FnOnce(&mut DeviceView<W>, &mut DeviceView<W>) -> Result<()>,
) -> Result<()> {
    towers.operands(a.len(), &[("b", b.len()), ("out", out.len())])?;
    copy(q, a, out)?;
    scratch.with_copy(q, b, |s| in_place(out, s))
}

/// One device buffer a plan lends its out-of-place products as the second
/// operand's copy, kept between calls (so repeated calls reuse its address
/// and the plan's graph cache replays them).
pub(crate) struct Scratch<W: Coeff> {
    buf: Mutex<Option<DeviceVec<W>>>,
}

impl<W: Coeff> Scratch<W> {
    pub(crate) fn new() -> Self {
        Self { buf: Mutex::new(None) }
    }

    /// Runs `f` on a copy of `src` queued on `q` (the buffer holds `src`'s
    /// words when `f`'s launches run). A buffer of another
    /// length is replaced, after the work queued on `q` that may still use
    /// it; calls are serialised, and every use is queued on the plan's one
    /// stream, so no two products share the words at once.
    pub(crate) fn with_copy<R>(
        &self,
        q: &Queue<'_>,
        src: &DeviceView<W>,
        f: impl FnOnce(&mut DeviceView<W>) -> Result<R>,
    ) -> Result<R> {
        let mut g = self.buf.lock().unwrap_or_else(|e| e.into_inner());
        if g.as_ref().is_none_or(|b| b.len() != src.len()) {
            if g.is_some() {
                q.synchronize()?;
            }
            *g = None;
            *g = Some(q.gpu.zeros(src.len())?);
        }
        let Some(s) = g.as_mut() else {
            return Err(Error::CudaCode { during: "allocating scratch", code: 0 });
        };
        copy(q, src, s)?;
        f(s)
    }
}
