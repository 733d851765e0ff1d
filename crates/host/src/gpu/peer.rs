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
    let dst: DeviceVec<u64> = to.zeros(words)?;
    let src: DeviceVec<u64> = from.zeros(words)?;
    let bytes = words * 8;
    let t = from.time(2, reps, || {
        // SAFETY: `src` (on `from`) and `dst` (on `to`) are distinct live
        // allocations of `words` words each (`zeros` above) whose contexts are
        // the two `Gpu`s' own, and both outlive `from.time`, which waits for
        // every copy before it returns `Ok`. The stream is `from`'s, whose
        // context `Gpu::time` binds first.
        let r = unsafe {
            cu::cuMemcpyPeerAsync(
                dst.buf.as_device_ptr().as_raw(),
                to.inner.ctx.as_raw(),
                src.buf.as_device_ptr().as_raw(),
                from.inner.ctx.as_raw(),
                bytes,
                from.stream().as_inner(),
            )
        };
        super::launch::check(r, "copying between two GPUs")
    })?;
    Ok((bytes as f64 / (t.median_us * 1e3), direct))
}
