//! Thin wrappers over `core::arch::nvptx` special registers.

use core::arch::nvptx::{
    _block_dim_x, _block_idx_x, _block_idx_y, _block_idx_z, _syncthreads, _thread_idx_x,
};

/// Global linear thread index in x: `blockIdx.x · blockDim.x + threadIdx.x`.
#[inline(always)]
pub fn global_thread_x() -> u32 {
    // SAFETY: reading special registers has no preconditions.
    unsafe { (_block_idx_x() as u32) * (_block_dim_x() as u32) + _thread_idx_x() as u32 }
}

/// `(blockIdx.x, threadIdx.x, blockDim.x)`.
#[inline(always)]
pub fn block_thread() -> (usize, usize, usize) {
    // SAFETY: reading special registers has no preconditions.
    unsafe { (_block_idx_x() as usize, _thread_idx_x() as usize, _block_dim_x() as usize) }
}

/// `*p += 1` at GPU scope, returning the old value (`atom.global.add`,
/// relaxed): the fused kernels' ticket and finished-block counters.
///
/// # Safety
/// `p` points at a `u32` of global memory.
#[inline(always)]
pub unsafe fn atomic_inc(p: *mut u32) -> u32 {
    let old: u32;
    // SAFETY: `p` points at a `u32` of global memory: this function's contract, established by its
    // caller.
    unsafe {
        core::arch::asm!("atom.global.add.u32 {o}, [{p}], 1;", o = out(reg32) old, p = in(reg64) p,
                         options(nostack, preserves_flags))
    };
    old
}

/// `*p = v` at system scope (`st.relaxed.sys.global.u32`): a strong store
/// the host may read from mapped memory (no atomic: host-mapped memory
/// over PCIe takes no device atomics). Threads that store the same `v`
/// concurrently do not race (relaxed strong stores).
///
/// # Safety
/// `p` points at a `u32` the device may write (device or host-mapped
/// memory).
#[inline(always)]
pub unsafe fn store_sys(p: *mut u32, v: u32) {
    // SAFETY: `p` points at a writable `u32`: this function's contract, established by its caller.
    unsafe {
        core::arch::asm!("st.relaxed.sys.global.u32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v,
                         options(nostack, preserves_flags))
    };
}

/// Publishes this block's global writes, then `*p += 1`: a GPU-scope fence
/// (`fence.acq_rel.gpu`) and a release add. Called by one thread after a
/// block barrier, it releases every thread's writes before the barrier
/// (the barrier orders them before the fence).
///
/// # Safety
/// `p` points at a `u32` of global memory.
#[inline(always)]
pub unsafe fn release_inc(p: *mut u32) {
    // SAFETY: `p` points at a `u32` of global memory: this function's contract, established by its
    // caller.
    unsafe {
        core::arch::asm!("fence.acq_rel.gpu;", "red.release.gpu.global.add.u32 [{p}], 1;", p = in(reg64) p,
                         options(nostack, preserves_flags))
    };
}

/// Waits until `*p >= target` (acquire loads at GPU scope with a short
/// sleep between them), then fences: writes released before the counter
/// reached `target` are visible to this thread, and through a block barrier
/// after it to the block.
///
/// # Safety
/// `p` points at a `u32` of global memory that other blocks of the launch
/// raise to `target`, and those blocks are running or done.
#[inline(always)]
pub unsafe fn wait_at_least(p: *const u32, target: u32) {
    loop {
        let v: u32;
        // SAFETY: `p` points at a `u32` of global memory: this function's contract, established by
        // its caller (who also ensures the wait ends).
        unsafe {
            core::arch::asm!("ld.acquire.gpu.global.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p,
                             options(nostack, preserves_flags))
        };
        if v >= target {
            break;
        }
        // SAFETY: no operands.
        unsafe { core::arch::asm!("nanosleep.u32 64;", options(nostack, preserves_flags)) };
    }
    // SAFETY: no operands.
    unsafe { core::arch::asm!("fence.acq_rel.gpu;", options(nostack, preserves_flags)) };
}

/// `blockIdx.y`: the RNS tower of a launch over several (see [`crate::towers`]).
#[inline(always)]
pub fn block_y() -> u32 {
    // SAFETY: reading special registers has no preconditions.
    unsafe { _block_idx_y() as u32 }
}

/// `blockIdx.z`: the RNS tower of a DGT launch (Coala's `GridDim.z`).
#[inline(always)]
pub fn block_z() -> u32 {
    // SAFETY: reading special registers has no preconditions.
    unsafe { _block_idx_z() as u32 }
}

/// Block-wide barrier (`bar.sync 0`).
#[inline(always)]
pub fn sync() {
    // SAFETY: every thread of the block reaches the same barriers (the
    // tiled kernels call it outside any thread-dependent branch).
    unsafe { _syncthreads() }
}

/// Cluster-wide barrier: every thread of every block of the cluster arrives
/// (releasing its shared-memory writes, local and remote) and waits
/// (acquiring the others').
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn cluster_sync() {
    // SAFETY: every thread of the cluster reaches the same barriers (the
    // cluster kernels call it outside any thread-dependent branch).
    unsafe {
        core::arch::asm!(
            "barrier.cluster.arrive.aligned;",
            "barrier.cluster.wait.aligned;",
            options(nostack, preserves_flags)
        )
    };
}

/// Arrives at a cluster barrier without waiting ([`cluster_wait`] completes
/// it): the start of a cluster kernel announces that this block runs, so
/// that its shared memory may be written by the others.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn cluster_arrive() {
    // SAFETY: as for `cluster_sync`; every thread later waits exactly once.
    unsafe { core::arch::asm!("barrier.cluster.arrive.aligned;", options(nostack, preserves_flags)) };
}

/// Waits for the cluster barrier [`cluster_arrive`] began: after it every
/// block of the cluster has started, so its shared memory may be accessed.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn cluster_wait() {
    // SAFETY: as for `cluster_sync`, after this thread's `cluster_arrive`.
    unsafe { core::arch::asm!("barrier.cluster.wait.aligned;", options(nostack, preserves_flags)) };
}

/// The start of a kernel that may be launched as a programmatic dependent
/// (sm_90's `griddepcontrol`): waits until the previous grid of the stream
/// has finished and its writes are visible, then lets the next launch of
/// the stream begin (its blocks wait here in turn while this grid runs).
/// Every global access of the kernel comes after it. In this order at most
/// one grid waits ahead of the running one: letting the next launch begin
/// before the wait let every queued grid of a long chain become resident
/// and wait, holding the SMs the running one needed (H100, `u64` N = 2^16
/// polymul back to back: 23.0 µs per call against 16.7 for one call alone;
/// docs/latency.md). Launched without the programmatic attribute both are
/// no-ops; below sm_90 there is nothing to do.
#[inline(always)]
pub fn grid_dependency_sync() {
    #[cfg(target_feature = "sm_90")]
    // SAFETY: no operands; a memory clobber (no `nomem`), so no load or
    // store moves above the wait.
    unsafe {
        core::arch::asm!(
            "griddepcontrol.wait;",
            "griddepcontrol.launch_dependents;",
            options(nostack, preserves_flags)
        )
    };
}
