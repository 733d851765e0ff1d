//! Copies between two GPUs of one host: peer access between their
//! contexts (`cuCtxEnablePeerAccess`) and the rate of a peer copy
//! (`cuMemcpyPeerAsync`), what a multi-device plan's gathers cost.

use super::{DeviceVec, Gpu};
use crate::Result;
use cust::sys as cu;

/// Lets `gpu`'s context reach `peer`'s memory over the GPUs' own link
/// (NVLink or PCIe peer-to-peer) where the devices allow it; `Ok(false)`
/// where they do not (copies between them then go through host memory,
/// which `cuMemcpyPeerAsync` does by itself). Enabling it twice is fine.
pub(crate) fn enable_peer_access(gpu: &Gpu, peer: &Gpu) -> Result<bool> {
    if gpu.info().ordinal == peer.info().ordinal {
        return Ok(true);
    }
    gpu.bind()?;
    let mut can = 0i32;
    // SAFETY: `can` is a live `i32`, what the call writes; both ordinals are
    // devices the driver knows (each `Gpu` was made by `Gpu::with_options`,
    // which checked its ordinal against `cuDeviceGetCount`).
    let r =
        unsafe { cu::cuDeviceCanAccessPeer(&mut can, gpu.info().ordinal as i32, peer.info().ordinal as i32) };
    super::launch::check(r, "asking whether two GPUs can reach each other")?;
    if can == 0 {
        return Ok(false);
    }
    // SAFETY: `peer`'s context is live (its `Gpu` holds it), and `gpu`'s is
    // current (`Gpu::bind` above); flags must be 0.
    let r = unsafe { cu::cuCtxEnablePeerAccess(peer.inner.ctx.as_raw(), 0) };
    if r == cu::cudaError_enum::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
        return Ok(true);
    }
    super::launch::check(r, "enabling peer access between two GPUs")?;
    Ok(true)
}

/// Bytes per second of copies of `words` `u64` words from `from`'s memory
/// to `to`'s, queued on `from`'s stream and timed with its events (median
/// of `reps` after two warm-ups), with peer access enabled where the
/// devices allow it. Also `(GB/s, whether peer access is on)`.
pub(crate) fn peer_copy_gbs(from: &Gpu, to: &Gpu, words: usize, reps: usize) -> Result<(f64, bool)> {
    use super::timing::GpuTiming;
    let direct = enable_peer_access(from, to)? && enable_peer_access(to, from)?;
    let mut dst: DeviceVec<u64> = to.zeros(words)?;
    let src: DeviceVec<u64> = from.zeros(words)?;
    let bytes = words * 8;
    let q = super::launch::Queue::of(from);
    let t = from.time(2, reps, || copy(&q, &mut dst, to, &src, from))?;
    Ok((bytes as f64 / (t.median_us * 1e3), direct))
}

/// Queues a copy of the words `src` (memory of `from`'s context) into
/// `dst` (of `to`'s) on `q`'s stream (a stream of either GPU), over the
/// GPUs' own link where peer access is on ([`enable_peer_access`]),
/// through host memory otherwise. Words of one GPU (`from` and `to` the
/// same device) are an ordinary device copy.
///
/// # Errors
/// [`crate::Error::LengthMismatch`] where the lengths differ; driver errors.
pub(crate) fn copy<W: crate::Coeff>(
    q: &super::launch::Queue<'_>,
    dst: &mut super::DeviceView<W>,
    to: &Gpu,
    src: &super::DeviceView<W>,
    from: &Gpu,
) -> Result<()> {
    if dst.len() != src.len() {
        return Err(crate::Error::LengthMismatch { what: "peer copy", got: src.len(), expected: dst.len() });
    }
    if dst.is_empty() {
        return Ok(());
    }
    q.gpu.bind()?;
    // SAFETY: `dst` and `src` are views of live allocations of `to`'s and
    // `from`'s contexts (their callers, multi/limbs.rs and `peer_copy_gbs`,
    // take them from buffers those GPUs' plans or `Gpu::zeros` made), of `len` words each (checked above),
    // borrowed for the call; the queued copy may outlive the borrow, as every
    // queued launch of the crate does: the buffers are freed by `cuMemFree`,
    // which waits for the work queued on them. The two contexts are the
    // `Gpu`s' own, live while they are borrowed; `q.stream` is a live stream
    // of `q.gpu`'s context, bound above.
    let r = unsafe {
        cu::cuMemcpyPeerAsync(
            dst.device_address(),
            to.inner.ctx.as_raw(),
            src.device_address(),
            from.inner.ctx.as_raw(),
            src.len() * std::mem::size_of::<W>(),
            q.stream.as_inner(),
        )
    };
    super::launch::check(r, "copying between two GPUs")
}

/// Queues a copy of `rows` rows of `width` words, row `r` from words
/// `r · src_pitch ..` of `src` (memory of `from`'s context) to words
/// `r · dst_pitch ..` of `dst` (of `to`'s), on `q`'s stream: one strided
/// copy (`cuMemcpy3DPeerAsync`) instead of a copy per row, where the
/// pitches fit the driver's limit; a copy per row otherwise.
///
/// # Errors
/// [`crate::Error::LengthMismatch`] where a row would fall outside either
/// view (or `width` exceeds a pitch); driver errors.
#[allow(clippy::too_many_arguments)] // two strided views and their devices
pub(crate) fn copy_rows<W: crate::Coeff>(
    q: &super::launch::Queue<'_>,
    (dst, dst_pitch, to): (&mut super::DeviceView<W>, usize, &Gpu),
    (src, src_pitch, from): (&super::DeviceView<W>, usize, &Gpu),
    rows: usize,
    width: usize,
) -> Result<()> {
    if rows == 0 || width == 0 {
        return Ok(());
    }
    let span = |pitch: usize| (rows - 1).checked_mul(pitch).and_then(|x| x.checked_add(width));
    let fits = |len: usize, pitch: usize| width <= pitch && span(pitch).is_some_and(|e| e <= len);
    if !fits(dst.len(), dst_pitch) || !fits(src.len(), src_pitch) {
        let expected = span(dst_pitch.max(src_pitch)).unwrap_or(usize::MAX);
        return Err(crate::Error::LengthMismatch { what: "strided peer copy", got: src.len(), expected });
    }
    let w = std::mem::size_of::<W>();
    // The driver's pitch limit (`CU_DEVICE_ATTRIBUTE_MAX_PITCH`, 2^31 − 1
    // bytes on every GPU the crate supports).
    if dst_pitch * w > i32::MAX as usize || src_pitch * w > i32::MAX as usize {
        for r in 0..rows {
            let d = dst.get_mut(r * dst_pitch..r * dst_pitch + width).ok_or_else(outside)?;
            let s = src.get(r * src_pitch..r * src_pitch + width).ok_or_else(outside)?;
            copy(q, d, to, s, from)?;
        }
        return Ok(());
    }
    q.gpu.bind()?;
    let p = cu::CUDA_MEMCPY3D_PEER {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: cu::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        srcHost: std::ptr::null(),
        srcDevice: src.device_address(),
        srcArray: std::ptr::null_mut(),
        srcContext: from.inner.ctx.as_raw(),
        srcPitch: src_pitch * w,
        srcHeight: rows,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: cu::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        dstHost: std::ptr::null_mut(),
        dstDevice: dst.device_address(),
        dstArray: std::ptr::null_mut(),
        dstContext: to.inner.ctx.as_raw(),
        dstPitch: dst_pitch * w,
        dstHeight: rows,
        WidthInBytes: width * w,
        Height: rows,
        Depth: 1,
    };
    // SAFETY: the descriptor names device memory only: `rows` rows of `width`
    // words at the two views' addresses with their pitches, every row inside
    // its view (checked above: `(rows − 1) · pitch + width ≤ len`, `width ≤
    // pitch`), the views live allocations of `from`'s and `to`'s contexts
    // (their callers, multi/limbs.rs, take them from buffers those GPUs' plans
    // made), both contexts live while the `Gpu`s are borrowed; the queued copy
    // may outlive the borrow as every queued launch of the crate does (the
    // buffers are freed by `cuMemFree`, which waits for queued work).
    // `q.stream` is a live stream of `q.gpu`'s context, bound above; `p` is
    // read during the call only.
    let r = unsafe { cu::cuMemcpy3DPeerAsync(&p, q.stream.as_inner()) };
    super::launch::check(r, "copying strided rows between two GPUs")
}

/// The error for a row outside its view (`copy_rows` checks every row's
/// extent first, so its per-row fallback never returns it).
fn outside() -> crate::Error {
    crate::Error::LengthMismatch { what: "strided peer copy row", got: 0, expected: 0 }
}

/// A CUDA event of one GPU's context that streams of other GPUs may wait
/// for: how a multi-device call orders one GPU's work after another's
/// without the host waiting.
pub(crate) struct PeerEvent {
    raw: cu::CUevent,
    /// Keeps the event's context alive until it is destroyed.
    _gpu: Gpu,
}

impl PeerEvent {
    /// Records the work queued on `q` so far (an event of `q.gpu`'s
    /// context).
    pub(crate) fn record(q: &super::launch::Queue<'_>) -> Result<Self> {
        q.gpu.bind()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` is a live out-pointer for one `CUevent`; `q.gpu`'s
        // context is current (bound above).
        let rc = unsafe { cu::cuEventCreate(&mut raw, cu::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32) };
        super::launch::check(rc, "creating an event")?;
        let event = Self { raw, _gpu: q.gpu.clone() };
        // SAFETY: `event.raw` is live (made above, destroyed only by `Drop`)
        // and `q.stream` a live stream of the same context, which is current.
        let rc = unsafe { cu::cuEventRecord(event.raw, q.stream.as_inner()) };
        super::launch::check(rc, "recording an event")?;
        Ok(event)
    }

    /// The work queued on `q` from now on waits for the recorded work (`q`
    /// may be another GPU's: the driver orders streams across devices).
    pub(crate) fn wait_on(&self, q: &super::launch::Queue<'_>) -> Result<()> {
        q.gpu.bind()?;
        // SAFETY: `self.raw` is live (destroyed only by `Drop`) and `q.stream`
        // a live stream of `q.gpu`'s context, which is current (bound above);
        // the event may be of another context (`cuStreamWaitEvent` allows it).
        let rc = unsafe { cu::cuStreamWaitEvent(q.stream.as_inner(), self.raw, 0) };
        super::launch::check(rc, "ordering one GPU's work after another's")
    }
}

impl Drop for PeerEvent {
    fn drop(&mut self) {
        // SAFETY: `self.raw` was made by `cuEventCreate` in `record` and is
        // destroyed only here, once, while `_gpu` keeps its context alive; an
        // event still pending is released by the driver once it fires.
        unsafe { cu::cuEventDestroy_v2(self.raw) };
    }
}
