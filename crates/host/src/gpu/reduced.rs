//! The reduction check of device operands without a host wait (issue 54):
//! a kernel queued before a call stores its launch's tag in a word of
//! host-mapped memory where it finds a word not below its tower's modulus
//! (tags grow launch by launch); the host reads that word whenever it
//! likes, without synchronising, and reports a tag it has not seen.
//!
//! When a failure surfaces: the check runs on the plan's stream just
//! before the call it guards, so the call itself has been queued (and its
//! output is wrong) by the time anything can be known. The count is read
//! by [`RangeCheck::take`], which the Python layer calls at the start of
//! every device call and after every synchronisation: an unreduced operand
//! is reported by the first such call that starts after the check kernel
//! ran, and at the latest by the next `synchronize()`.

use super::kernel::TypedKernel;
use super::launch::{Queue, TowerLaunch, refused, view};
use super::{DeviceView, Gpu};
use crate::{Coeff, Error, Result};
use cust::sys as cu;
use polymul_kernels::args::Buf;
use polymul_kernels::names;
use polymul_kernels::reduced::{self, ReducedArgs};
use std::sync::Mutex;

/// The check kernel and its failure word: one `u32` of pinned host memory
/// mapped into the device's address space.
pub(crate) struct RangeCheck<W: Coeff> {
    gpu: Gpu,
    kernel: TypedKernel<ReducedArgs<W>>,
    /// The failure word's host address (`cuMemHostAlloc`, mapped).
    host: *mut u32,
    /// Its device address (`cuMemHostGetDevicePointer`).
    dev: u64,
    /// The tag of the next launch (never 0, the word's initial value).
    next: std::sync::atomic::AtomicU32,
    /// The word's value the last [`RangeCheck::take`] saw.
    seen: Mutex<u32>,
}

// SAFETY: `host` points at pinned memory owned by this value (freed only in
// `Drop`), read with volatile loads and never written by the host; `seen` is
// behind a mutex; `TypedKernel` and `Gpu` are `Send + Sync`.
unsafe impl<W: Coeff> Send for RangeCheck<W> {}
// SAFETY: as for `Send`: every shared access is a volatile read of the failure word
// or goes through the mutex.
unsafe impl<W: Coeff> Sync for RangeCheck<W> {}

impl<W: Coeff> RangeCheck<W> {
    /// The kernel and a zeroed failure word on `gpu`.
    pub(crate) fn new(gpu: &Gpu) -> Result<Self> {
        gpu.bind()?;
        let kernel = TypedKernel::get::<W, _>(gpu, names::ReducedKernel)?;
        let mut host: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: `host` is a live out-pointer; the context is current
        // (`Gpu::bind` above).
        let r = unsafe { cu::cuMemHostAlloc(&mut host, 4, cu::CU_MEMHOSTALLOC_DEVICEMAP) };
        if r != cu::cudaError_enum::CUDA_SUCCESS || host.is_null() {
            return Err(Error::CudaCode {
                during: "allocating the range check's failure word",
                code: r as i32,
            });
        }
        let host = host.cast::<u32>();
        // SAFETY: `host` is 4 bytes of pinned memory just allocated, aligned
        // for a `u32` (page-aligned), which nothing else knows yet.
        unsafe { host.write_volatile(0) };
        let mut dev: cu::CUdeviceptr = 0;
        // SAFETY: `host` came from `cuMemHostAlloc` with DEVICEMAP in this
        // context (current); `dev` is a live out-pointer.
        let r = unsafe { cu::cuMemHostGetDevicePointer_v2(&mut dev, host.cast(), 0) };
        let next = std::sync::atomic::AtomicU32::new(1);
        let check = Self { gpu: gpu.clone(), kernel, host, dev, next, seen: Mutex::new(0) };
        if r != cu::cudaError_enum::CUDA_SUCCESS {
            return Err(Error::CudaCode { during: "mapping the range check's failure word", code: r as i32 });
        }
        Ok(check)
    }

    /// Queues the check of `data` (`towers.data_words` words per tower,
    /// towers as `towers`; `q` a one-tower launch's modulus) on `q`'s
    /// stream. Returns without waiting.
    pub(crate) fn queue(
        &self,
        queue: &Queue<'_>,
        data: &DeviceView<W>,
        towers: &TowerLaunch<W>,
        q: W,
    ) -> Result<()> {
        queue.gpu.bind()?;
        const KERNEL: &str = "the reduction check";
        let flag = Buf::new(self.dev as *const u32, 1);
        // Tags 1, 2, …, skipping 0 when they wrap.
        let tag = match self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
            0 => self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            t => t,
        };
        let args =
            ReducedArgs::new(view(data), &towers.grid(KERNEL)?, flag, tag, q).map_err(refused(KERNEL))?;
        let blocks = reduced::blocks(towers.data_words as u32);
        // SAFETY: the invariants of `ReducedArgs` (polymul-kernels
        // `reduced.rs`): `ReducedArgs::new` checked `data`'s extent, `len`,
        // the tower table, the tag and the one-tower modulus; `flag` is this
        // value's mapped failure word, which `Drop` frees only after waiting for the
        // context, so it outlives the launch; the grid is `blocks(len) ×
        // rows` blocks of `THREADS` threads; the context is current.
        unsafe {
            self.kernel.launch(
                queue,
                (blocks, towers.rows),
                reduced::THREADS,
                0,
                &args,
                "launching the reduction check",
            )
        }
    }

    /// Whether checks that ran since the last call found unreduced words
    /// (the failure word holds a tag not seen before): reads it without
    /// waiting for the GPU.
    pub(crate) fn take(&self) -> bool {
        // SAFETY: `host` is this value's live pinned failure word; the device
        // only stores to it (system-scope strong stores), the host only reads it.
        let now = unsafe { self.host.read_volatile() };
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let grew = now != *seen;
        *seen = now;
        grew
    }
}

impl<W: Coeff> Drop for RangeCheck<W> {
    fn drop(&mut self) {
        // A queued check may still store to the word: wait for the context
        // first, and leak the 4 bytes if that fails.
        if self.gpu.bind().is_err() {
            return;
        }
        // SAFETY: the context is current (`Gpu::bind`); `cuCtxSynchronize`
        // has no other precondition.
        if unsafe { cu::cuCtxSynchronize() } != cu::cudaError_enum::CUDA_SUCCESS {
            return;
        }
        // SAFETY: `host` came from `cuMemHostAlloc` in this context, is freed
        // only here, and no launch that may write it is still running.
        unsafe {
            cu::cuMemFreeHost(self.host.cast());
        }
    }
}
