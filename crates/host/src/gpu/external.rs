//! Device memory and streams that polymul does not own: the buffers of
//! other libraries (CuPy, PyTorch, Numba, a caller's own `cuMemAlloc`)
//! given by raw device pointer, and their streams given by raw `CUstream`.
//! This is what a zero-copy binding (the `polymul` Python package's
//! `__cuda_array_interface__` / DLPack support) needs.
//!
//! - [`super::DeviceView::from_raw_parts_mut`] views `len` words at a raw
//!   device pointer as a borrowed `&mut DeviceView` (never an owning
//!   buffer: dropping the reference frees nothing). [`check_foreign`]
//!   checks what the driver can check — the pointer is device memory (or
//!   managed) of the GPU's own context, suitably aligned — and the
//!   constructor is `unsafe` for the rest (the allocation is at least `len`
//!   words long and outlives the view, and nothing else writes it while
//!   polymul's work on it runs).
//! - [`Gpu::ordered_with`] runs a closure that queues work on the GPU's
//!   stream, ordered after everything already queued on a foreign stream
//!   and before anything queued there afterwards (two CUDA events: the
//!   foreign stream → polymul's stream → the foreign stream), with no
//!   host synchronization.
//!
//! `Gpu` uses the device's *primary* context (`cuDevicePrimaryCtxRetain`),
//! the one the CUDA runtime — and so CuPy and PyTorch — use: memory they
//! allocate is usable by polymul's kernels. [`check_foreign`] refuses
//! memory of any other context with [`Error::ForeignMemory`].

use super::Gpu;
use crate::{Coeff, Error, Result};
use cust::sys as cu;

/// The CUDA ordinals of the devices this process has opened a [`Gpu`] on,
/// as bits (ordinals from 63 share the last bit).
static OPENED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Records that a [`Gpu`] of `ordinal` exists (`Gpu::with_options`).
pub(crate) fn note_opened(ordinal: u32) {
    OPENED.fetch_or(1u64 << ordinal.min(63), std::sync::atomic::Ordering::Relaxed);
}

thread_local! {
    /// The device words a multi-device plan has matched with their devices
    /// while it queues work on them ([`Resident`]): `[start, end)` and the
    /// ordinal of the device they were matched with.
    static RESIDENT: std::cell::RefCell<Vec<Vouched>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Words `[start, end)` matched with the device of `ordinal`.
pub(crate) type Vouched = (u64, u64, u32);

/// The words of `v`, matched with the device of `ordinal`, for
/// [`Resident::vouch`].
pub(crate) fn vouched<W: Coeff>(v: &super::DeviceView<W>, ordinal: u32) -> Vouched {
    let (start, end) = v.span();
    (start, end, ordinal)
}

/// While alive, [`Gpu::check_operand`] on this thread asks the driver
/// nothing for the words it vouches for, on the device it matched them
/// with: a multi-device plan holds one around calls on buffers it has
/// matched with their devices (`SpreadVec` parts made by each plan and
/// checked by `check_spread`; its own scratch), where asking the driver
/// cost 2 µs an operand on every GPU's share. Any other words (a user's
/// own plan inside a `MultiPlan` computing on buffers of its own), and the
/// same words given to a plan of another device, are still checked.
/// Forgets its words on drop.
pub(crate) struct Resident(usize);

impl Resident {
    /// Skips the residency checks on this thread for the words `matched`.
    pub(crate) fn vouch(matched: impl IntoIterator<Item = Vouched>) -> Self {
        RESIDENT.with_borrow_mut(|r| {
            let before = r.len();
            r.extend(matched.into_iter().filter(|&(s, e, _)| s < e));
            Self(before)
        })
    }
}

impl Drop for Resident {
    fn drop(&mut self) {
        RESIDENT.with_borrow_mut(|r| r.truncate(self.0));
    }
}

/// Whether `bytes` bytes at `start` lie inside words this thread's
/// [`Resident`] guards vouched for on the device of `ordinal`.
fn vouched_on(ordinal: u32, start: u64, bytes: u64) -> bool {
    let end = start.saturating_add(bytes);
    RESIDENT.with_borrow(|r| r.iter().any(|&(s, e, o)| o == ordinal && s <= start && end <= e))
}

impl Gpu {
    /// Device words `v` given to `owner`, a plan of this GPU (`what` names
    /// them), before it queues work on them:
    ///
    /// - while an explicit graph capture runs on this thread, refused with
    ///   [`Error::CaptureOutsideState`] unless `owner` is the capturing plan
    ///   and the words lie in the graph's state (gpu/graph.rs, `admit`);
    /// - refused with [`Error::WrongDevice`] where the driver says they live
    ///   on another device, which a kernel here would fault on (or, with
    ///   peer access enabled between the two, read over the link). Only
    ///   asked where the process has opened more than one device (with one,
    ///   every buffer is this device's), and not for words a multi-device
    ///   plan vouched for on this device ([`Resident`]). Memory the driver
    ///   places on no device (managed memory) passes.
    pub(crate) fn check_operand<O, W: Coeff>(
        &self,
        owner: &O,
        what: &'static str,
        v: &super::DeviceView<W>,
    ) -> Result<()> {
        let (start, end) = v.span();
        super::graph::admit((owner as *const O).cast(), what, start, end - start)?;
        if OPENED.load(std::sync::atomic::Ordering::Relaxed).count_ones() < 2 || v.is_empty() {
            return Ok(());
        }
        let expected = self.info().ordinal;
        if vouched_on(expected, start, end - start) {
            return Ok(());
        }
        let mut ordinal: i32 = -1;
        // SAFETY: `ordinal` is a live `i32`, the size
        // CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL writes; the driver only looks the
        // address up in its allocation tables (with unified addressing, one
        // table for every device), never dereferences it. The attribute needs
        // no current context.
        let r = unsafe {
            cu::cuPointerGetAttribute(
                (&mut ordinal as *mut i32).cast(),
                cu::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                v.device_address(),
            )
        };
        match u32::try_from(ordinal) {
            Ok(on) if r == cu::cudaError_enum::CUDA_SUCCESS && on != expected => {
                Err(Error::WrongDevice { what, on, expected })
            }
            _ => Ok(()),
        }
    }
}

/// Checks what the driver can check of foreign device memory at `ptr` for
/// a view of words `W` on `gpu` (see [`super::DeviceView::from_raw_parts`]):
/// non-null, aligned to the word, device (or managed) memory the driver
/// knows, and of `gpu`'s context (the device's primary context).
pub(crate) fn check_foreign<W: Coeff>(gpu: &Gpu, ptr: u64) -> Result<()> {
    let refuse = |why: &'static str| Error::ForeignMemory { ptr, why };
    if ptr == 0 {
        return Err(refuse("the pointer is null"));
    }
    if !ptr.is_multiple_of(std::mem::size_of::<W>() as u64) {
        return Err(refuse("the pointer is not aligned to the word size"));
    }
    gpu.bind()?;
    let mut mem_type: u32 = 0;
    // SAFETY: `mem_type` is a live `u32`, the size
    // CU_POINTER_ATTRIBUTE_MEMORY_TYPE writes; the driver only looks `ptr` up in
    // its allocation tables (an unknown address is an error, refused below),
    // never dereferences it. The context is current: `Gpu::bind` above.
    let r = unsafe {
        cu::cuPointerGetAttribute(
            (&mut mem_type as *mut u32).cast(),
            cu::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            ptr,
        )
    };
    if r != cu::cudaError_enum::CUDA_SUCCESS {
        return Err(refuse("the driver does not know it as device memory"));
    }
    if mem_type != cu::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32
        && mem_type != cu::CUmemorytype::CU_MEMORYTYPE_UNIFIED as u32
    {
        return Err(refuse("it is host memory, not device memory"));
    }
    let mut ctx: cu::CUcontext = std::ptr::null_mut();
    // SAFETY: as above: `ctx` is a live `CUcontext`, the type
    // CU_POINTER_ATTRIBUTE_CONTEXT writes, and `ptr` is only looked up.
    let r = unsafe {
        cu::cuPointerGetAttribute(
            (&mut ctx as *mut cu::CUcontext).cast(),
            cu::CUpointer_attribute::CU_POINTER_ATTRIBUTE_CONTEXT,
            ptr,
        )
    };
    // Managed and stream-ordered (pool) allocations may report no
    // context; they are usable from any context of the device.
    if r == cu::cudaError_enum::CUDA_SUCCESS && !ctx.is_null() && ctx != gpu.inner.ctx.as_raw() {
        return Err(refuse("it belongs to another CUDA context than the device's primary one"));
    }
    Ok(())
}

/// A CUDA event destroyed on drop (the driver releases it once it has
/// fired, so dropping a pending one is fine).
struct Event(cu::CUevent);

impl Event {
    fn record(stream: cu::CUstream, during: &'static str) -> Result<Self> {
        let mut e: cu::CUevent = std::ptr::null_mut();
        // SAFETY: `e` is a live out-pointer for one `CUevent`; the context is
        // current: the only caller, `Gpu::ordered_with`, calls `Gpu::bind` before
        // each `Event::record`.
        let r = unsafe { cu::cuEventCreate(&mut e, cu::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32) };
        check(r, during)?;
        let event = Self(e);
        // SAFETY: `event.0` was just created; `stream` is polymul's own stream or
        // the foreign one `Gpu::ordered_with`'s caller vouched for (its
        // `# Safety`: 0, 1, 2 or a live stream of the primary context, the
        // current one).
        check(unsafe { cu::cuEventRecord(event.0, stream) }, during)?;
        Ok(event)
    }

    fn wait_on(&self, stream: cu::CUstream, during: &'static str) -> Result<()> {
        // SAFETY: `self.0` is live (destroyed only by `Drop`) and recorded
        // (`Event::record`); `stream` is, as there, polymul's stream or the
        // caller-vouched foreign one (`Gpu::ordered_with`'s `# Safety`), of the
        // current context.
        check(unsafe { cu::cuStreamWaitEvent(stream, self.0, 0) }, during)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: `self.0` was made by `cuEventCreate` in `Event::record` and is
        // destroyed only here, once; the `Gpu` borrowed by `ordered_with` keeps
        // its context alive meanwhile, and the driver releases a pending event
        // once it fires.
        unsafe {
            cu::cuEventDestroy_v2(self.0);
        }
    }
}

fn check(r: cu::CUresult, during: &'static str) -> Result<()> {
    if r == cu::cudaError_enum::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(Error::CudaCode { during, code: r as i32 })
    }
}

impl Gpu {
    /// Runs `f`, which queues work on this GPU's own stream (the stream
    /// of every plan not bound to another), ordered with the foreign
    /// stream `stream` (a raw `CUstream` of the same context: CuPy's
    /// `Stream.ptr`, PyTorch's `cuda_stream`; 0 is the legacy default
    /// stream): the work starts after everything queued on `stream`
    /// before the call, and whatever is queued on `stream` after the call
    /// starts after that work ends. Nothing waits on the host.
    ///
    /// # Errors
    /// Those of `f`, and [`Error::CudaCode`] where an event cannot be
    /// created, recorded or waited for (an invalid stream).
    ///
    /// # Safety
    /// `stream` is 0, 1 (`cudaStreamLegacy`), 2 (`cudaStreamPerThread`)
    /// or a live stream of this device's primary context.
    pub unsafe fn ordered_with<T>(&self, stream: u64, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.bind()?;
        // The legacy default stream (0, or `cudaStreamLegacy`, 1) already
        // orders itself with every blocking stream, and polymul's streams
        // are blocking (`StreamFlags::DEFAULT`: the GPU's own and
        // `Gpu::create_stream`'s, gpu/mod.rs): its work waits for theirs,
        // queued before, and theirs, queued after, for its. No events.
        if stream <= 1 {
            return f();
        }
        let foreign = stream as usize as cu::CUstream;
        let own = self.inner.stream.as_inner();
        Event::record(foreign, "recording an event on the caller's stream")?
            .wait_on(own, "ordering polymul's stream after the caller's")?;
        let out = f()?;
        self.bind()?;
        Event::record(own, "recording an event on polymul's stream")?
            .wait_on(foreign, "ordering the caller's stream after polymul's")?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A guard vouches for its words on its device only, nested guards
    /// add to the outer one's words, and each forgets its own on drop.
    #[test]
    fn resident_vouches_for_the_matched_words_on_their_device_only() {
        assert!(!vouched_on(0, 0x1000, 8));
        {
            let _outer = Resident::vouch([(0x1000, 0x2000, 0), (0x9000, 0x9000, 1)]);
            assert!(vouched_on(0, 0x1000, 0x1000));
            assert!(vouched_on(0, 0x1800, 8));
            assert!(!vouched_on(1, 0x1800, 8), "the same words on another device");
            assert!(!vouched_on(0, 0x1ff8, 16), "running past the vouched words");
            assert!(!vouched_on(0, 0x0ff8, 16), "starting before them");
            assert!(!vouched_on(0, 0x3000, 8), "a user's own buffer");
            assert!(!vouched_on(1, 0x9000, 0), "an empty range vouches for nothing");
            {
                let _inner = Resident::vouch([(0x4000, 0x5000, 1)]);
                assert!(vouched_on(1, 0x4000, 8) && vouched_on(0, 0x1000, 8));
            }
            assert!(!vouched_on(1, 0x4000, 8), "the inner guard's words forgotten");
            assert!(vouched_on(0, 0x1000, 8));
        }
        assert!(!vouched_on(0, 0x1000, 8));
    }
}
