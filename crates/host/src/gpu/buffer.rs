//! Device words: the owning [`DeviceVec`] and the borrowed, unsized
//! [`DeviceView`] every plan computes on.
//!
//! A `DeviceVec<W>` owns its allocation and frees it on drop; it
//! dereferences to a `DeviceView<W>`, as `Vec<W>` does to `[W]`. Memory
//! polymul does not own (CuPy's, PyTorch's, a caller's `cuMemAlloc`) is
//! only ever a `&DeviceView<W>` or `&mut DeviceView<W>`
//! ([`DeviceView::from_raw_parts`], [`DeviceView::from_raw_parts_mut`]).
//! A view is unsized (its address and length are the reference's), so no
//! safe code can move one out from behind a reference, and no owning value
//! can ever hold a foreign pointer:
//!
//! ```compile_fail,E0277
//! # fn f(gpu: &polymul::Gpu, ptr: u64) -> polymul::Result<()> {
//! let mut owned = gpu.zeros::<u64>(16)?;
//! let foreign = unsafe { polymul::DeviceView::<u64>::from_raw_parts_mut(gpu, ptr, 16)? };
//! std::mem::swap(foreign, &mut *owned); // a view has no size: E0277
//! # Ok(()) }
//! ```
//!
//! Its twin, swapping two owning buffers whole, compiles (and is harmless:
//! each still frees its own allocation):
//!
//! ```
//! # fn f(gpu: &polymul::Gpu) -> polymul::Result<()> {
//! let (mut a, mut b) = (gpu.zeros::<u64>(16)?, gpu.zeros::<u64>(8)?);
//! std::mem::swap(&mut a, &mut b);
//! # Ok(()) }
//! ```
//!
//! `mem::replace` and `mem::take` need a sized value too:
//!
//! ```compile_fail,E0277
//! # fn f(gpu: &polymul::Gpu, ptr: u64) -> polymul::Result<()> {
//! let foreign = unsafe { polymul::DeviceView::<u64>::from_raw_parts_mut(gpu, ptr, 16)? };
//! let owned = gpu.zeros::<u64>(16)?;
//! let _ = std::mem::replace(foreign, *owned); // E0277
//! # Ok(()) }
//! ```
//!
//! ```compile_fail,E0277
//! # fn f(gpu: &polymul::Gpu, ptr: u64) -> polymul::Result<()> {
//! let foreign = unsafe { polymul::DeviceView::<u64>::from_raw_parts_mut(gpu, ptr, 16)? };
//! let _ = std::mem::take(foreign); // E0277
//! # Ok(()) }
//! ```
//!
//! ```
//! # fn f(gpu: &polymul::Gpu) -> polymul::Result<()> {
//! let mut a = gpu.zeros::<u64>(16)?;
//! let _old = std::mem::replace(&mut a, gpu.zeros::<u64>(4)?); // sized: fine
//! # Ok(()) }
//! ```
//!
//! A view borrowed from a plan call cannot outlive the buffer it views:
//!
//! ```compile_fail,E0597
//! # fn f(gpu: &polymul::Gpu) -> polymul::Result<()> {
//! let view: &polymul::DeviceView<u64>;
//! {
//!     let owned = gpu.zeros::<u64>(16)?;
//!     view = &owned; // `owned` does not live long enough: E0597
//! }
//! let _ = view.len();
//! # Ok(()) }
//! ```
//!
//! ```
//! # fn f(gpu: &polymul::Gpu) -> polymul::Result<()> {
//! let owned = gpu.zeros::<u64>(16)?;
//! let view: &polymul::DeviceView<u64> = &owned;
//! assert_eq!(view.len(), 16);
//! # Ok(()) }
//! ```

use super::{Gpu, external};
use crate::layout::Layout;
use crate::{Coeff, Result};
use cust::memory::{DeviceBuffer, DevicePointer, DeviceSlice};
use std::marker::PhantomData;

/// `len` words `W` of device memory, borrowed: what every plan computes on.
///
/// Unsized, like `[W]`: only ever behind a reference, whose address is the
/// device address of the first word and whose metadata is the word count.
/// It has no drop glue and can never be moved out, so safe code cannot turn
/// memory polymul does not own into an owning buffer (the module
/// documentation shows the `compile_fail` tests). An owning [`DeviceVec`]
/// dereferences to one; foreign memory enters only through the `unsafe`
/// [`DeviceView::from_raw_parts`] / [`DeviceView::from_raw_parts_mut`].
#[repr(transparent)]
pub struct DeviceView<W: Coeff> {
    _word: PhantomData<W>,
    /// Never read: zero-sized elements, one per word, so that the slice's
    /// length metadata is the word count and the reference's address the
    /// device address (a zero-sized place is valid at any non-null address).
    words: [()],
}

/// The address of an empty view's reference: non-null, as every reference
/// must be; [`DeviceView::ptr`] reports the null device pointer for it.
const EMPTY: u64 = 1;

impl<W: Coeff> DeviceView<W> {
    /// The view of `len` words at device address `addr`, with no checks.
    ///
    /// # Safety
    /// `addr .. addr + len · size_of::<W>()` is device memory that stays
    /// allocated for `'a`, and for a `&'a mut` nothing else accesses it
    /// during `'a` except through the returned reference. `addr` may be 0
    /// only when `len` is 0.
    unsafe fn from_addr<'a>(addr: u64, len: usize) -> &'a Self {
        let addr = if addr == 0 { EMPTY } else { addr };
        let fat: *const [()] = std::ptr::slice_from_raw_parts(addr as usize as *const (), len);
        // SAFETY: `Self` is `repr(transparent)` over `[()]` (the marker is
        // a 1-aligned ZST), so the fat pointer's metadata (the length)
        // carries over; the pointee has size 0 and alignment 1, so any
        // non-null address (`addr` is never 0 here) is a valid reference.
        unsafe { &*(fat as *const Self) }
    }

    /// As [`DeviceView::from_addr`], mutable.
    ///
    /// # Safety
    /// As for [`DeviceView::from_addr`]: the words stay allocated for `'a`,
    /// and nothing else accesses them during `'a` except through the
    /// returned reference.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn from_addr_mut<'a>(addr: u64, len: usize) -> &'a mut Self {
        let addr = if addr == 0 { EMPTY } else { addr };
        let fat: *mut [()] = std::ptr::slice_from_raw_parts_mut(addr as usize as *mut (), len);
        // SAFETY: as in `from_addr` (the layout of `Self`, a non-null address:
        // `addr` is never 0 here); that the `&mut` is unique for `'a` is this
        // function's `# Safety` contract, established by its caller.
        unsafe { &mut *(fat as *mut Self) }
    }

    /// Views `len` words at the device address `ptr` of `gpu`'s context
    /// (memory of CuPy, PyTorch, Numba or a caller's `cuMemAlloc`),
    /// read-only. Dropping the reference frees nothing.
    ///
    /// # Errors
    /// [`crate::Error::ForeignMemory`] where `ptr` is null, not aligned to
    /// the word, not device (or managed) memory the driver knows, or memory
    /// of another context than the device's primary one;
    /// [`crate::Error::Cuda`] where the context cannot be bound.
    ///
    /// # Safety
    /// `ptr .. ptr + len · size_of::<W>()` lies inside one live allocation
    /// that outlives `'a`, and nothing writes it while work polymul queued
    /// on it runs (order other streams' work with [`Gpu::ordered_with`]).
    pub unsafe fn from_raw_parts<'a>(gpu: &Gpu, ptr: u64, len: usize) -> Result<&'a Self> {
        external::check_foreign::<W>(gpu, ptr)?;
        // SAFETY: `from_addr`'s contract: `ptr` is non-null (`check_foreign`
        // above, which also checked that it is device memory of this GPU's
        // context, aligned to `W`); that `ptr .. ptr + len · size_of::<W>()` lies
        // in one allocation that stays live for `'a` is this function's
        // `# Safety` contract, established by its caller.
        Ok(unsafe { Self::from_addr(ptr, len) })
    }

    /// As [`DeviceView::from_raw_parts`], writable: plans may write the
    /// words (transforms in place, product outputs).
    ///
    /// # Errors
    /// As [`DeviceView::from_raw_parts`].
    ///
    /// # Safety
    /// As [`DeviceView::from_raw_parts`], and nothing else reads or writes
    /// the words while work polymul queued on them runs.
    pub unsafe fn from_raw_parts_mut<'a>(gpu: &Gpu, ptr: u64, len: usize) -> Result<&'a mut Self> {
        external::check_foreign::<W>(gpu, ptr)?;
        // SAFETY: `from_addr_mut`'s contract: as in `from_raw_parts` (non-null
        // and checked by `check_foreign` above; the allocation's extent and
        // lifetime are the caller's contract), and the caller's exclusivity for
        // `'a` (this function's `# Safety`).
        Ok(unsafe { Self::from_addr_mut(ptr, len) })
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True if it holds no words.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Device address of the first word (0 for an empty view), for
    /// handing the words to another library.
    pub fn device_address(&self) -> u64 {
        if self.is_empty() { 0 } else { self.words.as_ptr() as usize as u64 }
    }

    /// The device bytes `[start, end)` of the words (`(0, 0)` when empty):
    /// what the capture and residency checks compare.
    pub(crate) fn span(&self) -> (u64, u64) {
        let start = self.device_address();
        (start, start + (self.len() * std::mem::size_of::<W>()) as u64)
    }

    /// Words `range` of this view, or `None` where the range is out of
    /// bounds.
    pub fn get(&self, range: std::ops::Range<usize>) -> Option<&Self> {
        let (addr, len) = self.sub(&range)?;
        // SAFETY: `from_addr`'s contract: `sub` returned the words of `range`
        // (`None` unless inside this view), which stay allocated for the borrow
        // of `self` (this view's own `from_addr` contract); a shared borrow gives
        // a shared sub-view.
        Some(unsafe { Self::from_addr(addr, len) })
    }

    /// Words `range` of this view, writable; `None` out of bounds.
    pub fn get_mut(&mut self, range: std::ops::Range<usize>) -> Option<&mut Self> {
        let (addr, len) = self.sub(&range)?;
        // SAFETY: `from_addr_mut`'s contract: `sub` returned the words of `range`
        // (`None` unless inside this view), allocated for the borrow of `self`;
        // `&mut self` makes the sub-view unique for that borrow.
        Some(unsafe { Self::from_addr_mut(addr, len) })
    }

    /// Splits into words `..mid` and `mid..`, both writable; `None` where
    /// `mid > len`.
    pub fn split_at_mut(&mut self, mid: usize) -> Option<(&mut Self, &mut Self)> {
        if mid > self.len() {
            return None;
        }
        let ((a, la), (b, lb)) = (self.sub(&(0..mid))?, self.sub(&(mid..self.len()))?);
        // SAFETY: `from_addr_mut`'s contract for both: `sub` returned `0..mid`
        // and `mid..len` (checked, `None` otherwise), disjoint and inside this
        // view's words, allocated for the borrow of `self`; `&mut self` makes
        // each unique for that borrow.
        unsafe { Some((Self::from_addr_mut(a, la), Self::from_addr_mut(b, lb))) }
    }

    /// The device address and length of words `range`, if it is inside
    /// (address 0 for an empty range).
    fn sub(&self, range: &std::ops::Range<usize>) -> Option<(u64, usize)> {
        if range.start > range.end || range.end > self.len() {
            return None;
        }
        let len = range.end - range.start;
        let addr = if len == 0 {
            0
        } else {
            self.device_address() + (range.start * std::mem::size_of::<W>()) as u64
        };
        Some((addr, len))
    }

    /// The device pointer of the first word (null for an empty view): what
    /// the kernels' argument blocks take.
    pub(crate) fn ptr(&self) -> DevicePointer<W> {
        DevicePointer::from_raw(self.device_address())
    }

    /// The words as `cust`'s slice, for its copies.
    pub(crate) fn slice(&self) -> DeviceSlice<W> {
        // SAFETY: `DeviceSlice::from_raw_parts` needs `len` words of device
        // memory at `ptr` for as long as the slice is used: the view's words are
        // allocated for the borrow of `self` (`from_addr`'s contract), and the
        // crate's callers (`Gpu::download`, `Staging::upload` / `download`) use
        // the slice only within that borrow (`DeviceSlice` carries no lifetime).
        unsafe { DeviceSlice::from_raw_parts(self.ptr(), self.len()) }
    }

    /// The words as `cust`'s slice, to copy into.
    pub(crate) fn slice_mut(&mut self) -> DeviceSlice<W> {
        // SAFETY: as in `slice`; the mutable borrow of `self` makes the writable
        // slice the only access (callers: `Gpu::copy_into`, within the borrow).
        unsafe { DeviceSlice::from_raw_parts_mut(self.ptr(), self.len()) }
    }
}

impl<W: Coeff> std::fmt::Debug for DeviceView<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceView<u{}>[{}]", W::BITS, self.len())
    }
}

/// Coefficients in device memory that polymul allocated and frees on drop;
/// dereferences to a [`DeviceView`] (as `Vec<W>` to `[W]`), which is what
/// plans take.
///
/// A buffer a plan made (`upload`, `zeros`) remembers the [`Layout`] it
/// was made for ([`DeviceVec::layout`]); plans check the words they are
/// given by their count (a positive multiple of `towers · N`).
///
/// **It keeps its GPU alive.** A buffer holds a handle on the [`Gpu`] that
/// allocated it (as cudarc's `CudaSlice` holds its `Arc<CudaContext>`), so
/// the device's context is never released while one of its buffers lives:
/// dropping every other `Gpu` handle first frees nothing, and a `Gpu`
/// created meanwhile shares the same live context.
///
/// ```no_run
/// let gpu = polymul::Gpu::new()?;
/// let stale = gpu.upload(&[1u64, 2, 3])?;
/// drop(gpu); // the context stays: `stale` holds it
/// let gpu = polymul::Gpu::new()?; // the same primary context, retained again
/// assert_eq!(gpu.download(&stale)?, [1, 2, 3]);
/// # Ok::<(), polymul::Error>(())
/// ```
///
/// **Dropping waits for the GPU.** Work queued on the buffer may still be
/// running when it is dropped (a product queued, then the buffer dropped
/// at the end of a scope). The driver documents no wait in `cuMemFree`
/// ("for all other pointers, this API *may* perform implicit
/// synchronization"), so the drop first waits for all work queued on the
/// buffer's context (`cuCtxSynchronize`), on every stream, and only then
/// frees the words. Where that wait fails (the context is lost after a
/// kernel fault, or a stream of the context is capturing a graph) the
/// words are leaked rather than freed under running work
/// (docs/security.md, "Soundness").
pub struct DeviceVec<W: Coeff> {
    pub(crate) buf: std::mem::ManuallyDrop<DeviceBuffer<W>>,
    pub(crate) layout: Option<Layout>,
    /// The GPU that allocated the words: dropped after them (see `Drop`),
    /// so the context outlives every buffer of it.
    gpu: Gpu,
}

impl<W: Coeff> DeviceVec<W> {
    /// An owning buffer of raw words (no layout), allocated by `gpu`'s
    /// context.
    pub(crate) fn from_buffer(gpu: &Gpu, buf: DeviceBuffer<W>) -> Self {
        Self { buf: std::mem::ManuallyDrop::new(buf), layout: None, gpu: gpu.clone() }
    }

    /// The GPU whose context allocated the words.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The layout of the polynomials it was made for, if a plan made it.
    pub fn layout(&self) -> Option<Layout> {
        self.layout
    }

    /// The whole buffer as a view (what `&*self` gives).
    pub fn view(&self) -> &DeviceView<W> {
        self
    }

    /// The whole buffer as a writable view (what `&mut *self` gives).
    pub fn view_mut(&mut self) -> &mut DeviceView<W> {
        self
    }

    /// The buffer, marked as holding `layout` (a plan's `upload` and
    /// `zeros`; `layout.words()` is its length).
    pub(crate) fn with_layout(mut self, layout: Layout) -> Self {
        debug_assert_eq!(layout.words(), self.buf.len());
        self.layout = Some(layout);
        self
    }
}

impl<W: Coeff> Drop for DeviceVec<W> {
    fn drop(&mut self) {
        // SAFETY: `buf` is taken once, here, and never used again: `self` is
        // being dropped, and `ManuallyDrop` keeps the field from dropping twice.
        let buf = unsafe { std::mem::ManuallyDrop::take(&mut self.buf) };
        let addr = buf.as_device_ptr().as_raw();
        let nonempty = !buf.is_empty();
        // The allocation is freed (or leaked) by `free_words`, not by cust's
        // drop: one copy of that code for every word type and drop site.
        std::mem::forget(buf);
        if nonempty && addr != 0 {
            free_words(&self.gpu, addr);
        }
    }
}

/// Frees the allocation at `addr` (made by `gpu`'s context with
/// `cuMemAlloc`, owned by a `DeviceVec` being dropped, never used again)
/// once no queued work can use it: after waiting for every stream of the
/// context (`cuCtxSynchronize`). Where that wait fails (a lost context,
/// or a stream of the context capturing a graph) the words are leaked
/// instead.
#[inline(never)]
fn free_words(gpu: &Gpu, addr: u64) {
    // Stream order by waiting: every launch, copy or graph replay that may
    // still read or write the words was queued on a stream of this context
    // before this drop (the buffer was owned by the dropped `DeviceVec`, so
    // nothing can queue more on it), and `cuCtxSynchronize` returns once all
    // of them have finished. `Gpu::bind` makes the buffer's own context
    // current (alive: the `DeviceVec` still holds `gpu`).
    let waited = gpu.bind().is_ok()
        // SAFETY: no arguments; the context is current (`Gpu::bind` above).
        && unsafe { cust::sys::cuCtxSynchronize() } == cust::sys::cudaError_enum::CUDA_SUCCESS;
    if waited {
        // SAFETY: `addr` is the start of a live `cuMemAlloc` allocation of the
        // current context (this function's contract: the dropped buffer's own,
        // freed nowhere else since its `DeviceBuffer` was forgotten), and no
        // queued work uses it any more (the wait above). The status is
        // ignored: nothing can be reported from a drop, and either way the
        // address is never used again.
        let _ = unsafe { cust::sys::cuMemFree_v2(addr) };
    }
    // Else the wait failed: freeing could hand the words to a new allocation
    // while queued work still uses them. They are leaked; a lost context's
    // memory goes with the context.
}

impl<W: Coeff> std::ops::Deref for DeviceVec<W> {
    type Target = DeviceView<W>;
    fn deref(&self) -> &DeviceView<W> {
        // SAFETY: `from_addr`'s contract: the buffer's own allocation of `len`
        // words (its address is null only for an empty buffer, for which cust
        // allocates nothing), freed only by `DeviceBuffer`'s drop, so live for
        // the borrow of `self`.
        unsafe { DeviceView::from_addr(self.buf.as_device_ptr().as_raw(), self.buf.len()) }
    }
}

impl<W: Coeff> std::ops::DerefMut for DeviceVec<W> {
    fn deref_mut(&mut self) -> &mut DeviceView<W> {
        // SAFETY: `from_addr_mut`'s contract: as in `deref`, and `&mut self`
        // makes the view unique for the borrow.
        unsafe { DeviceView::from_addr_mut(self.buf.as_device_ptr().as_raw(), self.buf.len()) }
    }
}

impl<W: Coeff> AsRef<DeviceView<W>> for DeviceVec<W> {
    fn as_ref(&self) -> &DeviceView<W> {
        self
    }
}

impl<W: Coeff> AsMut<DeviceView<W>> for DeviceVec<W> {
    fn as_mut(&mut self) -> &mut DeviceView<W> {
        self
    }
}

impl<W: Coeff> std::fmt::Debug for DeviceVec<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.layout {
            Some(l) => write!(f, "DeviceVec<u{}>[{l}]", W::BITS),
            None => write!(f, "DeviceVec<u{}>[{}]", W::BITS, self.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Views over made-up addresses: nothing here touches the device (a
    /// view's methods only do address arithmetic), so Miri can run it.
    #[test]
    fn views_do_address_arithmetic_only() {
        // SAFETY: the test only does address arithmetic: the view is never
        // dereferenced on the host and no device call is made, so the fake
        // address need not be allocated.
        let v = unsafe { DeviceView::<u64>::from_addr_mut(0x1000, 10) };
        assert_eq!((v.len(), v.device_address()), (10, 0x1000));
        let s = v.get(2..5).unwrap();
        assert_eq!((s.len(), s.device_address()), (3, 0x1010));
        assert!(v.get(5..11).is_none());
        assert_eq!(v.get(4..4).unwrap().len(), 0);
        let (a, b) = v.split_at_mut(4).unwrap();
        assert_eq!((a.len(), a.device_address(), b.len(), b.device_address()), (4, 0x1000, 6, 0x1020));
        assert!(v.split_at_mut(11).is_none());
        // SAFETY: as above; `addr` 0 with `len` 0 is allowed (`from_addr`'s
        // `# Safety`), and an empty view reports address 0.
        let e = unsafe { DeviceView::<u32>::from_addr(0, 0) };
        assert!(e.is_empty() && e.device_address() == 0 && e.ptr().is_null());
        assert_eq!(std::mem::size_of_val(v), 0);
    }
}
