//! Device-to-device copies and a plan's scratch operand: what an
//! out-of-place product needs to leave its operands intact.

use super::launch::Queue;
use super::{DeviceVec, DeviceView};
use crate::layout::Towers;
use crate::{Coeff, Error, Result};
use std::sync::{Arc, Mutex};

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
    // distinct (`dst` is borrowed mutably). The words stay allocated until
    // the copy runs: every `DeviceVec` (the scratch, split.rs's piece buffers,
    // a caller's buffer) waits for its context's queued work before it frees
    // (`DeviceVec`'s `Drop`), and foreign memory outlives the work queued on it
    // (`DeviceView::from_raw_parts`'s contract). The stream is of the current
    // context: `Gpu::bind` above.
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
///
/// Shared (`Arc`) with every graph captured on it: when a call of another
/// size replaces the buffer, a graph that recorded the old one keeps it
/// alive (gpu/graph.rs, `keep`), and the old words are freed only once the
/// last graph that may replay on them is gone.
pub(crate) struct Scratch<W: Coeff> {
    buf: Mutex<Option<Arc<DeviceVec<W>>>>,
}

impl<W: Coeff> Scratch<W> {
    pub(crate) fn new() -> Self {
        Self { buf: Mutex::new(None) }
    }

    /// Runs `f` on a copy of `src` queued on `q` (the buffer holds `src`'s
    /// words when `f`'s launches run). A buffer of another length is
    /// replaced; the old one is dropped here (its `Drop` waits for the work
    /// queued on it) unless a graph shares it. Calls are serialised, and
    /// every use is queued on the plan's one stream (a graph's replays on
    /// the stream it was captured from, the plan's while the graph borrows
    /// it), so no two products share the words at once.
    pub(crate) fn with_copy<R>(
        &self,
        q: &Queue<'_>,
        src: &DeviceView<W>,
        f: impl FnOnce(&mut DeviceView<W>) -> Result<R>,
    ) -> Result<R> {
        let mut g = self.buf.lock().unwrap_or_else(|e| e.into_inner());
        if g.as_ref().is_none_or(|b| b.len() != src.len()) {
            // Not zeroed: `copy` below overwrites every word before `f` reads
            // one. (`Gpu::zeros` would memset on the legacy stream, which a
            // capture on the plan's blocking stream refuses: an out-of-place
            // product captured on a fresh plan failed that way.)
            q.gpu.bind()?;
            let bytes = src.len() * std::mem::size_of::<W>();
            // SAFETY: `uninitialized` is unsafe because the words are not
            // initialised: `copy(q, src, s)` below queues `src`'s words into all
            // of them before `f` queues anything that reads them, on the same
            // stream. The context is current: `Gpu::bind` above.
            let buf = unsafe { cust::memory::DeviceBuffer::<W>::uninitialized(src.len()) }
                .map_err(Error::cuda("allocating scratch", bytes))?;
            let new = Arc::new(DeviceVec::from_buffer(q.gpu, buf));
            if let Some(old) = g.replace(new)
                && crate::gpu::graph::capturing_here()
            {
                // Not dropped during a capture (its wait for the GPU would
                // break it): the graph keeps it, and frees it with itself.
                let range = (old.device_address(), old.device_address());
                crate::gpu::graph::keep(|| Arc::new(crate::gpu::graph::Hold(old)), range);
            }
        }
        let Some(s) = g.as_ref() else {
            return Err(Error::CudaCode { during: "allocating scratch", code: 0 });
        };
        let (addr, len) = (s.device_address(), s.len());
        crate::gpu::graph::keep(|| Arc::new(crate::gpu::graph::Hold(Arc::clone(s))), s.span());
        // SAFETY: `DeviceView::from_addr_mut`'s contract. The words are the
        // `len` words of the live allocation `s`, which the lock guard `g`
        // keeps in this `Scratch` (so allocated) until this function returns,
        // and the view does not outlive it (`f` gets it for its call only).
        // Unique: host access to the buffer goes only through this function,
        // serialised by the lock; graphs that share the `Arc` never touch it
        // from the host (they only keep it alive), and their replays run on
        // the plan's stream in order with this call's launches.
        let s = unsafe { DeviceView::from_addr_mut(addr, len) };
        copy(q, src, s)?;
        f(s)
    }
}
