//! Which host threads use a [`Gpu`], and the rule that follows for the
//! graphs plans capture on their own (see "Graphs the plans capture on
//! their own, and threads" on [`Gpu`]).

use super::Gpu;

/// The host threads a GPU has seen: the first, and whether any other has
/// used it since (then plans stop capturing graphs on their own).
#[derive(Default)]
pub(super) struct ThreadUse {
    /// [`thread_token`] of the first thread, 0 before any.
    first: std::sync::atomic::AtomicU64,
    /// Whether a second thread has used the GPU.
    shared: std::sync::atomic::AtomicBool,
    /// Held while a plan captures a graph on its own, and by a thread that
    /// makes the GPU shared (so it waits for such a capture to end).
    capture: std::sync::Mutex<()>,
}

/// A number for the calling thread, unique in the process and never 0.
pub(super) fn thread_token() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    thread_local!(static TOKEN: u64 = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    TOKEN.with(|t| *t)
}

impl Gpu {
    /// Records the calling thread: the first one, or (once) that the GPU
    /// is now shared between threads, after any capture in progress.
    /// The common cases (the GPU already shared, or the calling thread the
    /// first) cost two loads, no read-modify-write: this runs on every
    /// launch.
    pub(super) fn note_thread(&self) {
        use std::sync::atomic::Ordering;
        let t = &self.inner.threads;
        if t.shared.load(Ordering::Acquire) {
            return;
        }
        let me = thread_token();
        let first = match t.first.load(Ordering::Acquire) {
            0 => match t.first.compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return,
                Err(first) => first,
            },
            first => first,
        };
        if first != me {
            let _wait = t.capture.lock().unwrap_or_else(|e| e.into_inner());
            t.shared.store(true, Ordering::Release);
        }
    }

    /// Leave to capture a graph on a plan's own initiative (its graph
    /// cache): `Some` while only one host thread has used this GPU, held for
    /// the capture; `None` once several have. A capture is relaxed (launches
    /// may allocate), and the driver does not guard other threads' calls
    /// that synchronise implicitly (allocating, freeing, synchronous
    /// copies) against it: on an H100 such calls from other threads during
    /// captures gave "unknown error" and crashes (docs/results/
    /// 2026-11-25-nvidia-h100-host-architecture). A GPU used from several
    /// threads therefore launches plainly.
    pub(crate) fn exclusive_capture(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        self.note_thread();
        let t = &self.inner.threads;
        let guard = t.capture.lock().unwrap_or_else(|e| e.into_inner());
        (!t.shared.load(std::sync::atomic::Ordering::Acquire)).then_some(guard)
    }

    /// Whether plans on this `Gpu` (and its clones) still capture graphs
    /// on their own: `true` until a second host thread has queued work
    /// through it, `false` from then on (see "Graphs the plans capture on
    /// their own, and threads" on [`Gpu`]). Asking does not count as use.
    pub fn graph_capture_enabled(&self) -> bool {
        !self.inner.threads.shared.load(std::sync::atomic::Ordering::Acquire)
    }
}
