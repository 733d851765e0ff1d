//! Large host ↔ device copies through page-locked (pinned) staging memory.
//!
//! A copy from pageable memory (an ordinary `Vec`) runs at a fraction of
//! the bus's rate: the driver stages it through its own small pinned
//! buffers, one after the other, on the calling thread. For the big-integer
//! paths, which move `N · L` words per operand (10 MiB at N = 2^16 and
//! log2 Q = 1240), the copies are most of a host-to-host product. Here the
//! host side is copied into a pinned staging buffer by every core
//! (rayon) in pieces of [`PIECE`] words, and each piece's DMA is queued as
//! soon as it is staged, so the copy engine moves piece `i` while the cores
//! fill piece `i + 1`; downloads run the same pipeline the other way
//! (events per piece).
//!
//! The staging memory belongs to the [`Gpu`](super::Gpu) (one per loaded
//! context): a small [`Pool`] of pinned buffers, so that threads sharing
//! the GPU copy at the same time instead of queueing behind one buffer. A
//! call borrows one buffer (the smallest free one that is large enough)
//! for the whole of its copies and gives it back when they are done; the
//! buffer is lent to that call alone meanwhile, which is what the `SAFETY`
//! arguments below rest on. (The `Gpu` used to have one buffer under one
//! mutex: a pipelined host-slice call that held it for seconds made every
//! other thread's host-slice call above 1 MiB on that GPU wait.)
//!
//! **Bounds.** At most [`MAX_BUFFERS`] buffers exist at once, free and lent
//! together; a call that finds no free buffer large enough replaces a free
//! one that is too small (freed before the new one is allocated) or, with
//! none free, allocates a new one while fewer than [`MAX_BUFFERS`] exist,
//! else waits until a buffer is given back. Every buffer was allocated for
//! one request, so the pinned memory is at most [`MAX_BUFFERS`] × the
//! largest request seen: a split host call asks for its six pinned pieces
//! (384 MiB at the 64 MiB piece target of gpu/split.rs), an RNS limb copy
//! for its `batch · N · L` words. Both functions wait for their copies
//! before they return, as `Gpu::upload`/`download` do.

use super::DeviceView;
use super::launch::Queue;
use crate::{Error, Result};
use cust::event::{Event, EventFlags};
use cust::memory::{AsyncCopyDestination, LockedBuffer};
use rayon::prelude::*;
use std::ops::DerefMut;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Words per pipelined piece (2 MiB).
pub(crate) const PIECE: usize = 1 << 18;

/// Words one rayon task copies.
const TASK: usize = 1 << 14;

/// Most staging buffers one GPU keeps, free and lent together: as many
/// threads copy at once, the next waits (module docs, "Bounds").
pub(crate) const MAX_BUFFERS: usize = 4;

/// A pool of at most [`MAX_BUFFERS`] buffers of `u64` words, each lent to
/// one call at a time ([`Pool::with`]). Generic over the buffer so that its
/// logic is tested on the CPU with `Vec<u64>`; the GPU's is
/// [`LockedBuffer<u64>`] ([`Staging`]).
pub(crate) struct Pool<B> {
    /// Most buffers at once, free and lent together (at least 1).
    max: usize,
    state: Mutex<PoolState<B>>,
    /// Notified whenever a buffer (or the right to allocate one) is given
    /// back.
    returned: Condvar,
}

/// What the pool's short lock guards.
struct PoolState<B> {
    /// Buffers no call holds.
    free: Vec<B>,
    /// Buffers lent to a call, or being allocated for one.
    lent: usize,
    /// Calls waiting for a buffer (all [`MAX_BUFFERS`] lent).
    waiting: usize,
    /// Buffers of calls whose `f` panicked: copies into or out of them may
    /// still be queued (`f` did not reach its drain), so they are never
    /// lent again; they are freed with the pool (the `Gpu`). They do not
    /// count towards [`MAX_BUFFERS`]: each is a bug's cost.
    quarantined: Vec<B>,
}

impl<B> Default for Pool<B> {
    fn default() -> Self {
        Self::with_max(MAX_BUFFERS)
    }
}

impl<B> Pool<B> {
    /// An empty pool of at most `max` buffers (0 counts as 1).
    pub(crate) fn with_max(max: usize) -> Self {
        Pool {
            max: max.max(1),
            state: Mutex::new(PoolState { free: Vec::new(), lent: 0, waiting: 0, quarantined: Vec::new() }),
            returned: Condvar::new(),
        }
    }
}

/// How a call gets its buffer, decided under the pool's lock.
enum Take<B> {
    /// A free buffer large enough.
    Reuse(B),
    /// A new one, after freeing `replaced` (a free buffer too small).
    Alloc { replaced: Option<B> },
}

/// A slot of the pool held by one call: its drop gives the buffer back (or
/// quarantines it after a panic) and wakes the waiting calls, however the
/// call ends, so the count of lent buffers is never lost.
struct Lent<'p, B> {
    pool: &'p Pool<B>,
    buf: Option<B>,
}

impl<B> Drop for Lent<'_, B> {
    fn drop(&mut self) {
        let mut s = self.pool.lock();
        s.lent -= 1;
        if let Some(b) = self.buf.take() {
            if std::thread::panicking() {
                s.quarantined.push(b);
            } else {
                s.free.push(b);
            }
        }
        drop(s);
        self.pool.returned.notify_all();
    }
}

impl<B> Pool<B> {
    fn lock(&self) -> MutexGuard<'_, PoolState<B>> {
        // The state is consistent at every unlock (a few counter and vector
        // updates, none of which panics midway), so a poisoned lock's state
        // is usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many buffers exist, free and lent (or being allocated), not
    /// counting quarantined ones: at most [`MAX_BUFFERS`].
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        let s = self.lock();
        s.free.len() + s.lent
    }
}

impl<B: DerefMut<Target = [u64]>> Pool<B> {
    /// Runs `f` on a buffer of at least `words` words, lent to this call
    /// alone until `f` returns: the smallest free one large enough, else a
    /// new one from `alloc(words)` (replacing a free one too small, the
    /// largest, freed first; or one more while fewer than [`MAX_BUFFERS`]
    /// exist), else, all lent, the first one given back. Neither `alloc`
    /// nor `f` runs under the pool's lock. The buffer is given back when
    /// `f` returns, `Ok` or `Err`; should `f` panic, it is quarantined
    /// ([`PoolState::quarantined`]) and its slot given back. `alloc`'s
    /// error is returned as it is (and the slot given back).
    pub(crate) fn with<R>(
        &self,
        words: usize,
        alloc: impl FnOnce(usize) -> Result<B>,
        f: impl FnOnce(&mut B) -> Result<R>,
    ) -> Result<R> {
        let take = {
            let mut s = self.lock();
            loop {
                let fits = (s.free.iter().enumerate())
                    .filter(|(_, b)| b.len() >= words)
                    .min_by_key(|(_, b)| b.len())
                    .map(|(i, _)| i);
                if let Some(i) = fits {
                    s.lent += 1;
                    break Take::Reuse(s.free.swap_remove(i));
                }
                // Every free buffer is too small: replace the largest (the
                // most memory freed before the allocation), so that growth
                // replaces buffers rather than adding them. Never wait while
                // a buffer is free: no one might give another back.
                let largest = (s.free.iter().enumerate()).max_by_key(|(_, b)| b.len()).map(|(i, _)| i);
                if let Some(i) = largest {
                    s.lent += 1;
                    break Take::Alloc { replaced: Some(s.free.swap_remove(i)) };
                }
                if s.lent < self.max {
                    s.lent += 1;
                    break Take::Alloc { replaced: None };
                }
                s.waiting += 1;
                s = self.returned.wait(s).unwrap_or_else(PoisonError::into_inner);
                s.waiting -= 1;
            }
        };
        // The slot is this call's from here: `lent` gives it back however
        // the call ends (also when `alloc` fails).
        let mut lent = Lent { pool: self, buf: None };
        let buf = match take {
            Take::Reuse(b) => b,
            Take::Alloc { replaced } => {
                drop(replaced); // freed before the new one is allocated
                alloc(words)?
            }
        };
        f(lent.buf.insert(buf))
    }
}

/// The pinned staging buffers of one GPU (none until the first copy).
#[derive(Default)]
pub(crate) struct Staging {
    pool: Pool<LockedBuffer<u64>>,
}

impl Staging {
    /// At most `max` pinned buffers ([`crate::GpuOptions::staging_buffers`]).
    pub(crate) fn with_max(max: usize) -> Self {
        Self { pool: Pool::with_max(max) }
    }
}

/// `dst ← src` on every core.
fn par_copy(dst: &mut [u64], src: &[u64]) {
    dst.par_chunks_mut(TASK).zip(src.par_chunks(TASK)).for_each(|(d, s)| d.copy_from_slice(s));
}

impl Staging {
    /// Runs `f` on `words` words of a staging buffer lent to this call
    /// alone ([`Pool::with`]; allocated first where none free fits; the
    /// context must be current).
    fn with<R>(&self, words: usize, f: impl FnOnce(&mut [u64]) -> Result<R>) -> Result<R> {
        let alloc = |words: usize| {
            // SAFETY: `uninitialized` is unsafe because the pinned words are
            // not initialised: every word is written before it is read, in
            // both directions (`upload` fills each piece with `par_copy`
            // before its DMA reads it; `download` reads a piece only after
            // its DMA wrote it and its event fired; the split pipeline
            // likewise, `with_words`), by each call that borrows the buffer.
            // The context is current (`cuMemAllocHost` needs it): `upload`,
            // `download` and the pipeline bind the GPU before `with`.
            unsafe { LockedBuffer::uninitialized(words) }
                .map_err(Error::cuda("allocating pinned host memory for a copy", words.saturating_mul(8)))
        };
        self.pool.with(words, alloc, |buf| {
            let got = buf.len();
            let st = buf.get_mut(..words).ok_or(Error::LengthMismatch {
                what: "staging buffer",
                got,
                expected: words,
            })?;
            f(st)
        })
    }

    /// Runs `f` on `words` pinned words of type `W` (of a staging buffer
    /// lent to this call alone until `f` returns, [`Staging::with`]): the
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
            // memory, exclusively borrowed for `f` (the pool lends the buffer
            // to this call alone); `W` is `u32` or `u64`
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
                    // unwritten until the DMA has read it: `d` is a piece of a
                    // pinned staging buffer lent to this call alone for the whole
                    // `with` (`Pool::with`), and `q.synchronize()` below waits for
                    // every piece before the buffer is given back, whether or not
                    // queueing a later piece failed. `piece` is `dst`'s words `i · PIECE ..` of
                    // `s.len()` words, inside `dst` (equal lengths checked above).
                    unsafe { piece.async_copy_from(&*d, q.stream) }
                        .map_err(Error::cuda("uploading", 8 * s.len()))?;
                }
                Ok(())
            })();
            // Every queued piece has been read before the staging buffer is
            // given back, also when queueing a later one failed.
            let drained = q.synchronize();
            queued.and(drained)
        })
    }

    /// The words of `src`, copied back after the work queued on `q`'s
    /// stream.
    pub(crate) fn download(&self, q: &Queue<'_>, src: &DeviceView<u64>) -> Result<Vec<u64>> {
        let mut out = vec![0u64; src.len()];
        self.download_into(q, src, &mut out)?;
        Ok(out)
    }

    /// [`Staging::download`] into `out` (of `src`'s length).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] for another length; device errors.
    pub(crate) fn download_into(&self, q: &Queue<'_>, src: &DeviceView<u64>, out: &mut [u64]) -> Result<()> {
        let len = src.len();
        if out.len() != len {
            return Err(Error::LengthMismatch { what: "out", got: out.len(), expected: len });
        }
        q.gpu.bind()?;
        self.with(len, |st| {
            let copied = (|| {
                let mut events = Vec::with_capacity(len.div_ceil(PIECE));
                for (i, d) in st.chunks_mut(PIECE).enumerate() {
                    let piece = src.slice().index(i * PIECE..i * PIECE + d.len());
                    // SAFETY: `async_copy_to` needs `d` to stay allocated and unread
                    // until the DMA has written it: `d` is a piece of a pinned
                    // staging buffer lent to this call alone for the whole `with`
                    // (`Pool::with`), and the host reads it only after this piece's
                    // event has fired (the loop below). `piece` is `src`'s words `i · PIECE ..`
                    // of `d.len()` words: the pieces of `st` (`len` words) tile
                    // `src`. Should queueing or waiting fail, the stream is drained
                    // below before the buffer is given back to the pool.
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
                // given back (the error to report is `copied`'s).
                let _ = q.synchronize();
            }
            copied
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_BUFFERS, Pool};
    use crate::{Error, Result};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Barrier, mpsc};
    use std::time::Duration;

    /// A watchdog for the tests, whose likeliest failure is a deadlock: how long the
    /// test body may take (not a timing assertion; generous for Miri on a
    /// busy machine).
    const HANG: Duration = Duration::from_secs(300);

    /// Runs `body` on a thread of its own and fails the test should it not
    /// finish within [`HANG`] (a deadlock) instead of hanging the suite; a
    /// panic in `body` fails the test too.
    fn within_watchdog(body: impl FnOnce() + Send + 'static) {
        let (done, finished) = mpsc::channel();
        let worker = std::thread::spawn(move || {
            body();
            let _ = done.send(());
        });
        match finished.recv_timeout(HANG) {
            Ok(()) => worker.join().expect("the test body finished"),
            // The body panicked (the sender dropped): report its panic.
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                if let Err(p) = worker.join() {
                    std::panic::resume_unwind(p)
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("deadlock: the pool did not finish within {HANG:?}")
            }
        }
    }

    /// An allocation that counts its calls.
    fn counting(count: &AtomicUsize) -> impl FnOnce(usize) -> Result<Vec<u64>> + '_ {
        move |words| {
            count.fetch_add(1, Ordering::SeqCst);
            Ok(vec![0; words])
        }
    }

    fn free_lens(pool: &Pool<Vec<u64>>) -> Vec<usize> {
        let mut lens: Vec<usize> = pool.lock().free.iter().map(Vec::len).collect();
        lens.sort_unstable();
        lens
    }

    #[test]
    fn concurrent_calls_get_different_buffers_at_once() {
        within_watchdog(|| {
            // Both calls must be inside `f` together to pass the barrier:
            // under one lock held for the whole call this deadlocks.
            let pool = Pool::<Vec<u64>>::default();
            let allocs = AtomicUsize::new(0);
            let barrier = Barrier::new(2);
            let ptrs: Vec<usize> = std::thread::scope(|sc| {
                let calls: Vec<_> = (0..2)
                    .map(|t| {
                        let (pool, allocs, barrier) = (&pool, &allocs, &barrier);
                        sc.spawn(move || {
                            pool.with(1000, counting(allocs), |b| {
                                b.fill(t);
                                barrier.wait();
                                // Each call's words are its own.
                                assert!(b.iter().all(|&w| w == t));
                                Ok(b.as_ptr() as usize)
                            })
                        })
                    })
                    .collect();
                calls.into_iter().map(|c| c.join().expect("no panic").expect("no error")).collect()
            });
            assert_ne!(ptrs[0], ptrs[1]);
            assert_eq!(allocs.load(Ordering::SeqCst), 2);
            assert_eq!(pool.len(), 2);
            assert_eq!(free_lens(&pool), [1000, 1000]);
        });
    }

    #[test]
    fn a_returned_buffer_is_reused_and_the_smallest_that_fits_is_lent() {
        within_watchdog(|| {
            let pool = Pool::<Vec<u64>>::default();
            let allocs = AtomicUsize::new(0);
            let first = pool.with(100, counting(&allocs), |b| Ok(b.as_ptr() as usize)).unwrap();
            let again = pool.with(100, counting(&allocs), |b| Ok(b.as_ptr() as usize)).unwrap();
            assert_eq!((first, allocs.load(Ordering::SeqCst), pool.len()), (again, 1, 1));
            // A nested call (no lock is held while `f` runs) gets a buffer
            // of its own (the outer one replaced the free 100 by a 1000, the
            // inner one allocates a 100); both stay in the pool.
            pool.with(1000, counting(&allocs), |_| pool.with(100, counting(&allocs), |_| Ok(()))).unwrap();
            assert_eq!((allocs.load(Ordering::SeqCst), free_lens(&pool)), (3, vec![100, 1000]));
            // A smaller request gets the smallest buffer that fits.
            let lens = pool.with(50, counting(&allocs), |b| Ok(b.len())).unwrap();
            let mid = pool.with(500, counting(&allocs), |b| Ok(b.len())).unwrap();
            assert_eq!((lens, mid, allocs.load(Ordering::SeqCst)), (100, 1000, 3));
        });
    }

    #[test]
    fn a_bigger_request_replaces_a_smaller_free_buffer() {
        within_watchdog(|| {
            let pool = Pool::<Vec<u64>>::default();
            let allocs = AtomicUsize::new(0);
            pool.with(100, counting(&allocs), |_| Ok(())).unwrap();
            let len = pool.with(200, counting(&allocs), |b| Ok(b.len())).unwrap();
            assert_eq!((len, allocs.load(Ordering::SeqCst), pool.len()), (200, 2, 1));
            assert_eq!(free_lens(&pool), [200]);
            // Even with every slot used, a free buffer too small is replaced
            // (never waited on).
            let sizes = [10, 20, 30, 40];
            fn nest(pool: &Pool<Vec<u64>>, allocs: &AtomicUsize, sizes: &[usize]) -> Result<()> {
                match sizes {
                    [] => Ok(()),
                    [w, rest @ ..] => pool.with(*w, counting(allocs), |_| nest(pool, allocs, rest)),
                }
            }
            nest(&pool, &allocs, &sizes[..MAX_BUFFERS]).unwrap();
            assert_eq!(pool.len(), MAX_BUFFERS);
            let len = pool.with(5000, counting(&allocs), |b| Ok(b.len())).unwrap();
            assert_eq!(len, 5000);
            assert_eq!(pool.len(), MAX_BUFFERS);
            assert!(free_lens(&pool).contains(&5000));
        });
    }

    #[test]
    fn at_max_buffers_the_next_call_waits_for_one_given_back() {
        within_watchdog(|| {
            let pool = Pool::<Vec<u64>>::default();
            let allocs = AtomicUsize::new(0);
            let entered = Barrier::new(MAX_BUFFERS + 1);
            let (release, releases) = mpsc::channel::<()>();
            let releases = std::sync::Mutex::new(releases);
            let ran = AtomicUsize::new(0);
            std::thread::scope(|sc| {
                // MAX_BUFFERS calls hold a buffer each until released.
                let holders: Vec<_> = (0..MAX_BUFFERS)
                    .map(|_| {
                        let (pool, allocs, entered, releases) = (&pool, &allocs, &entered, &releases);
                        sc.spawn(move || {
                            pool.with(64, counting(allocs), |_| {
                                entered.wait();
                                releases.lock().unwrap().recv().expect("released");
                                Ok(())
                            })
                        })
                    })
                    .collect();
                entered.wait();
                assert_eq!(pool.len(), MAX_BUFFERS);
                let next = sc.spawn(|| {
                    pool.with(64, counting(&allocs), |_| {
                        ran.fetch_add(1, Ordering::SeqCst);
                        Ok(())
                    })
                });
                // The next call waits (observed in the pool's state, not by
                // timing) and has not run `f`.
                while pool.lock().waiting == 0 {
                    std::thread::yield_now();
                }
                assert_eq!(ran.load(Ordering::SeqCst), 0);
                assert_eq!(pool.len(), MAX_BUFFERS);
                // One holder gives its buffer back: the waiting call runs on it.
                release.send(()).unwrap();
                next.join().expect("no panic").expect("no error");
                assert_eq!(ran.load(Ordering::SeqCst), 1);
                for _ in 1..MAX_BUFFERS {
                    release.send(()).unwrap();
                }
                for h in holders {
                    h.join().expect("no panic").expect("no error");
                }
            });
            assert_eq!(allocs.load(Ordering::SeqCst), MAX_BUFFERS);
            assert_eq!(pool.len(), MAX_BUFFERS);
            assert_eq!(pool.lock().waiting, 0);
        });
    }

    #[test]
    fn an_error_or_a_panic_in_f_or_a_failed_allocation_gives_the_slot_back() {
        within_watchdog(|| {
            let pool = Pool::<Vec<u64>>::default();
            let allocs = AtomicUsize::new(0);
            let err = pool.with(8, counting(&allocs), |_| -> Result<()> {
                Err(Error::LengthMismatch { what: "test", got: 1, expected: 2 })
            });
            assert!(matches!(err, Err(Error::LengthMismatch { what: "test", .. })));
            // The buffer is free again and reused.
            assert_eq!((pool.len(), free_lens(&pool)), (1, vec![8]));
            pool.with(8, counting(&allocs), |_| Ok(())).unwrap();
            assert_eq!(allocs.load(Ordering::SeqCst), 1);

            // A panic: the slot comes back, the buffer is quarantined (its
            // copies may still be in flight), not lent again.
            let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.with(8, counting(&allocs), |_| -> Result<()> { panic!("a bug in f") })
            }));
            assert!(panicked.is_err());
            let quarantined = pool.lock().quarantined.len();
            assert_eq!((pool.len(), quarantined), (0, 1));
            pool.with(8, counting(&allocs), |_| Ok(())).unwrap();
            assert_eq!((allocs.load(Ordering::SeqCst), pool.len()), (2, 1));

            // A failed allocation: its error, and no slot kept.
            let failed = pool.with(
                100,
                |_| {
                    Err(Error::cuda("allocating pinned host memory for a copy", 800)(
                        cust::error::CudaError::OutOfMemory,
                    ))
                },
                |_| Ok(()),
            );
            assert!(matches!(failed, Err(Error::OutOfDeviceMemory { bytes: 800, .. })), "{failed:?}");
            // The too-small buffer was freed to make room, and nothing is lent.
            assert_eq!(pool.len(), 0);
            // Every slot can still be used at once.
            fn nest(pool: &Pool<Vec<u64>>, allocs: &AtomicUsize, depth: usize) -> Result<()> {
                if depth == 0 {
                    Ok(())
                } else {
                    pool.with(8, counting(allocs), |_| nest(pool, allocs, depth - 1))
                }
            }
            nest(&pool, &allocs, MAX_BUFFERS).unwrap();
            assert_eq!(pool.len(), MAX_BUFFERS);
        });
    }
}
