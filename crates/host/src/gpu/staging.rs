//! Large host ↔ device copies through page-locked (pinned) staging memory.
//!
//! A copy from pageable memory (an ordinary `Vec`) runs at a fraction of
//! the bus's rate: the driver stages it through its own small pinned
//! buffers, one after the other, on the calling thread. For the big-integer
//! paths, which move `N · L` words per operand (10 MiB at N = 2^16 and
//! log2 Q = 1240), the copies are most of a host-to-host product. Here the
//! host side is copied into one pinned buffer per GPU by every core
//! (rayon) in pieces of [`PIECE`] words, and each piece's DMA is queued as
//! soon as it is staged, so the copy engine moves piece `i` while the cores
//! fill piece `i + 1`; downloads run the same pipeline the other way
//! (events per piece).
//!
//! The staging buffer belongs to the [`Gpu`](super::Gpu) (one per loaded
//! context), grows to the largest copy seen and is reused; a mutex
//! serialises the copies of threads sharing the GPU. Both functions wait for
//! their copies before they return, as `Gpu::upload`/`download` do.

use super::DeviceView;
use super::launch::Queue;
use crate::{Error, Result};
use cust::event::{Event, EventFlags};
use cust::memory::{AsyncCopyDestination, LockedBuffer};
use rayon::prelude::*;
use std::sync::Mutex;

/// Words per pipelined piece (2 MiB).
pub(crate) const PIECE: usize = 1 << 18;

/// Words one rayon task copies.
const TASK: usize = 1 << 14;

/// The pinned staging buffer of one GPU (empty until the first copy).
#[derive(Default)]
pub(crate) struct Staging {
    buf: Mutex<Option<LockedBuffer<u64>>>,
}

/// `dst ← src` on every core.
fn par_copy(dst: &mut [u64], src: &[u64]) {
    dst.par_chunks_mut(TASK).zip(src.par_chunks(TASK)).for_each(|(d, s)| d.copy_from_slice(s));
}

impl Staging {
    /// Runs `f` on a staging buffer of at least `words` words (allocated,
    /// or grown, first; the context must be current).
    fn with<R>(&self, words: usize, f: impl FnOnce(&mut [u64]) -> Result<R>) -> Result<R> {
        let mut guard = self.buf.lock().unwrap_or_else(|p| p.into_inner());
        let buf = match guard.as_mut() {
            Some(b) if b.len() >= words => b,
            _ => {
                *guard = None; // free the old buffer before allocating the new one
                // SAFETY: `uninitialized` is unsafe because the pinned words are
                // not initialised: every word is written before it is read, in
                // both directions (`upload` fills each piece with `par_copy`
                // before its DMA reads it; `download` reads a piece only after
                // its DMA wrote it and its event fired). The context is current
                // (`cuMemAllocHost` needs it): `upload` and `download` call
                // `Gpu::bind` before `with`.
                let b = unsafe { LockedBuffer::uninitialized(words) }.map_err(Error::cuda(
                    "allocating pinned host memory for a copy",
                    words.saturating_mul(8),
                ))?;
                guard.insert(b)
            }
        };
        f(&mut buf[..words])
    }

    /// Runs `f` on `words` pinned words of type `W` (the staging buffer,
    /// grown first if it must be), holding the staging lock throughout: the
    /// split calls' pipeline (gpu/split.rs), which must drain every copy
    /// into or out of them before `f` returns. The context must be current.
    pub(crate) fn with_words<W: crate::Coeff, R>(
        &self,
        words: usize,
        f: impl FnOnce(&mut [W]) -> Result<R>,
    ) -> Result<R> {
        let size = std::mem::size_of::<W>();
        let Some(bytes) = words.checked_mul(size) else {
            return Err(Error::OutOfDeviceMemory {
                during: "allocating pinned host memory",
                bytes: usize::MAX,
            });
        };
        self.with(bytes.div_ceil(8), |st| {
            let len = st.len() * 8 / size;
            // SAFETY: `st` is `st.len()` initialised-or-not `u64`s of pinned
            // memory, exclusively borrowed for `f`; `W` is `u32` or `u64`
            // (`Coeff` is sealed), whose alignment divides a `u64`'s and for
            // which every bit pattern is a value, so the same bytes are `len`
            // valid `W`s (`len · size = 8 · st.len()`). The words may be
            // uninitialised pinned memory (`with`): the pipeline writes each
            // piece before any DMA reads it and reads one only after a DMA
            // wrote it, as `upload`/`download` do.
            let ws = unsafe { std::slice::from_raw_parts_mut(st.as_mut_ptr().cast::<W>(), len) };
            f(&mut ws[..words])
        })
    }

    /// Copies `src` into the new device buffer `dst` (of `src.len()`
    /// words) on `q`'s stream and waits for it.
    pub(crate) fn upload(&self, q: &Queue<'_>, src: &[u64], dst: &mut DeviceView<u64>) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::LengthMismatch { what: "data", got: src.len(), expected: dst.len() });
        }
        q.gpu.bind()?;
        self.with(src.len(), |st| {
            let queued = (|| {
                for (i, (s, d)) in src.chunks(PIECE).zip(st.chunks_mut(PIECE)).enumerate() {
                    par_copy(d, s);
                    let mut piece = dst.slice().index(i * PIECE..i * PIECE + s.len());
                    // SAFETY: `async_copy_from` needs `d` to stay allocated and
                    // unwritten until the DMA has read it: `d` is a piece of the
                    // pinned staging buffer, held under `self.buf`'s lock for the
                    // whole `with`, and `q.synchronize()` below waits for every piece
                    // before the lock is released, whether or not queueing a later
                    // piece failed. `piece` is `dst`'s words `i · PIECE ..` of
                    // `s.len()` words, inside `dst` (equal lengths checked above).
                    unsafe { piece.async_copy_from(&*d, q.stream) }
                        .map_err(Error::cuda("uploading", 8 * s.len()))?;
                }
                Ok(())
            })();
            // Every queued piece has been read before the staging buffer is
            // released, also when queueing a later one failed.
            let drained = q.synchronize();
            queued.and(drained)
        })
    }

    /// The words of `src`, copied back after the work queued on `q`'s
    /// stream.
    pub(crate) fn download(&self, q: &Queue<'_>, src: &DeviceView<u64>) -> Result<Vec<u64>> {
        q.gpu.bind()?;
        let len = src.len();
        let mut out = vec![0u64; len];
        self.with(len, |st| {
            let copied = (|| {
                let mut events = Vec::with_capacity(len.div_ceil(PIECE));
                for (i, d) in st.chunks_mut(PIECE).enumerate() {
                    let piece = src.slice().index(i * PIECE..i * PIECE + d.len());
                    // SAFETY: `async_copy_to` needs `d` to stay allocated and unread
                    // until the DMA has written it: `d` is a piece of the pinned
                    // staging buffer, held under `self.buf`'s lock for the whole
                    // `with`, and the host reads it only after this piece's event has
                    // fired (the loop below). `piece` is `src`'s words `i · PIECE ..`
                    // of `d.len()` words: the pieces of `st` (`len` words) tile
                    // `src`. Should queueing or waiting fail, the stream is drained
                    // below before the lock (and so the buffer) is released.
                    unsafe { piece.async_copy_to(d, q.stream) }
                        .map_err(Error::cuda("downloading", 8 * d.len()))?;
                    let e = Event::new(EventFlags::DISABLE_TIMING).map_err(Error::cuda("downloading", 0))?;
                    e.record(q.stream).map_err(Error::cuda("downloading", 0))?;
                    events.push(e);
                }
                for ((e, s), o) in events.iter().zip(st.chunks(PIECE)).zip(out.chunks_mut(PIECE)) {
                    e.synchronize().map_err(Error::cuda("waiting for the GPU", 0))?;
                    par_copy(o, s);
                }
                Ok(())
            })();
            if copied.is_err() {
                // No copy may still write the staging buffer once it is
                // released (the error to report is `copied`'s).
                let _ = q.synchronize();
            }
            copied
        })?;
        Ok(out)
    }
}
