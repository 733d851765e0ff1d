//! CUDA graphs: a plan's operation captured once on its device buffers and
//! replayed with one driver call (cuFFT's plan/exec split, one level up).
//! cust 0.3.2 has no graph wrapper; this module is the one place that
//! calls the driver's graph entry points, behind [`Graph`].

use super::launch::Queue;
use super::{DeviceVec, Gpu};
use crate::{Coeff, Error, Result};
use cust::sys::{self, CUresult, cudaError_enum::CUDA_SUCCESS};

/// A captured operation: the launches one call of a plan queued, on
/// buffers the graph owns (`state`), replayed by [`Graph::launch`].
///
/// Replaying costs one driver call however many kernels the operation has,
/// and the GPU runs the kernels back to back. Write new inputs into the
/// buffers of [`Graph::state_mut`] between replays (e.g.
/// [`Gpu::copy_into`]); each replay computes on what they hold then.
///
/// # What a graph keeps alive
///
/// A replay runs on the device addresses the capture recorded, so every
/// allocation those addresses lie in must live as long as the graph. This
/// is enforced, not asked of the caller (docs/security.md, "Soundness"):
///
/// - **Its state.** The graph owns `state`, a [`GraphState`]: device
///   buffers, tuples and arrays of them, and nothing else (no `Rc`,
///   `RefCell`, `Mutex` or `Arc` through which a buffer could be replaced
///   behind the graph's back). [`Graph::state_mut`] lends the buffers as
///   [`DeviceView`](super::DeviceView)s, which are unsized: their words can
///   be written, but the buffers cannot be replaced or freed.
/// - **Only its state.** While `work` runs, every device operand that a
///   plan is handed must lie in the state's buffers, and only the capturing
///   plan may queue work: a buffer reached another way (a `static`, a
///   thread-local) or another plan's call is refused with
///   [`Error::CaptureOutsideState`] and nothing is captured, also where
///   `work` ignores the error and returns `Ok`. `work` may not replace the
///   state's buffers either (checked when it returns).
/// - **The plan's own memory.** The graph borrows its plan, so the plan's
///   tables stay; scratch the plan lends the operation (the second
///   operand's copy of an out-of-place product) is shared with the graph,
///   which keeps it alive even after the plan has moved on to a scratch of
///   another size.
/// - **The context.** Buffers and plans hold their [`Gpu`], so the device's
///   context outlives them all.
///
/// A buffer cannot be swapped out of the state:
///
/// ```compile_fail,E0308
/// # use polymul::prelude::*;
/// # fn f(plan: &polymul::NttPlan<u64>) -> polymul::Result<()> {
/// let mut graph = plan.capture(plan.zeros(1)?, |p, a| p.forward(a))?;
/// *graph.state_mut() = plan.zeros(1)?; // a view, not a `DeviceVec`: E0308
/// # Ok(()) }
/// ```
///
/// ```compile_fail,E0277
/// # use polymul::prelude::*;
/// # fn f(plan: &polymul::NttPlan<u64>) -> polymul::Result<()> {
/// let mut graph = plan.capture(plan.zeros(1)?, |p, a| p.forward(a))?;
/// let _old = std::mem::replace(graph.state_mut(), *plan.zeros(1)?); // unsized: E0277
/// # Ok(()) }
/// ```
///
/// nor reached through interior mutability (a state that another handle
/// shares):
///
/// ```compile_fail,E0277
/// # use polymul::prelude::*;
/// # use std::{cell::RefCell, rc::Rc};
/// # fn f(plan: &polymul::NttPlan<u64>) -> polymul::Result<()> {
/// let shared = Rc::new(RefCell::new(plan.zeros(1)?));
/// // `Rc<RefCell<DeviceVec<u64>>>` is not a `GraphState`: E0277
/// let graph = plan.capture(shared.clone(), |p, a| p.forward(&mut *a.borrow_mut()))?;
/// # Ok(()) }
/// ```
///
/// Their twin, writing new words into the captured buffers, compiles:
///
/// ```
/// # use polymul::prelude::*;
/// # fn f(plan: &polymul::NttPlan<u64>, x: &[u64]) -> polymul::Result<()> {
/// let mut graph = plan.capture(plan.zeros(1)?, |p, a| p.forward(a))?;
/// plan.gpu().copy_into(graph.state_mut(), x)?;
/// graph.launch()?;
/// # Ok(()) }
/// ```
///
/// Capture while no other host thread allocates, frees or copies on the
/// same GPU: the driver does not guard such calls against a capture in
/// progress (plans' own graph caches stop capturing once a second thread
/// uses the GPU).
///
/// ```no_run
/// use polymul::prelude::*;
/// use polymul::{Gpu, NttParams, NttPlan};
/// let gpu = Gpu::new()?;
/// let plan = NttPlan::new(&gpu, NttParams::<u64>::with_prime_bits(1 << 16, 62)?)?;
/// let (a, b) = (plan.zeros(1)?, plan.zeros(1)?);
/// // Capture a ← a ⊗ b once ...
/// let mut graph = plan.capture((a, b), |plan, (a, b)| plan.polymul_in_place(a, b))?;
/// let q = plan.params().q();
/// for round in 0..3u64 {
///     let x: Vec<u64> = (0..1 << 16).map(|i| (i * round) % q).collect();
///     let (a, b) = graph.state_mut();
///     gpu.copy_into(a, &x)?;
///     gpu.copy_into(b, &x)?;
///     graph.launch()?; // ... and replay it on new inputs.
///     let product = gpu.download(&graph.state().0)?;
/// #   let _ = product;
/// }
/// # Ok::<(), polymul::Error>(())
/// ```
pub struct Graph<'p, S: GraphState> {
    gpu: &'p Gpu,
    /// The stream the operation was captured from, where replays queue
    /// (owned by the plan or its GPU, which outlive `'p`).
    stream: sys::CUstream,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    /// Plan memory the capture used that the plan may replace later (its
    /// product scratch): kept until the graph is destroyed. Dropped after
    /// `exec` (see `Drop`) and before `state`.
    _kept: Vec<Kept>,
    state: S,
}

/// Device memory a graph keeps alive for its replays.
pub(crate) type Kept = std::sync::Arc<dyn std::any::Any + Send + Sync + std::panic::RefUnwindSafe>;

/// A value held only to keep it alive (a graph's [`Kept`] memory): never
/// read through this, so a panic cannot leave it observed half-updated.
pub(crate) struct Hold<T>(#[allow(dead_code)] pub(crate) T);

impl<T> std::panic::RefUnwindSafe for Hold<T> {}

pub(crate) mod sealed {
    /// The device address ranges `[start, end)` of a graph state's buffers.
    pub trait Sealed {
        fn ranges(&self, out: &mut Vec<(u64, u64)>);
    }
}

/// What a [`Graph`] may own as its state: a [`DeviceVec`], a
/// [`crate::rns::DeviceLimbs`], `()`, an array of states, or a tuple of up
/// to six. Sealed: the crate implements it
/// only for types that own their buffers outright, with no interior
/// mutability, so that the buffers a graph captured can be neither
/// replaced nor freed while it lives.
pub trait GraphState: sealed::Sealed {
    /// What [`Graph::state_mut`] lends: the state's buffers as writable,
    /// unsized [`DeviceView`](super::DeviceView)s (the same shape as the
    /// state: a tuple of views for a tuple of buffers).
    type Views<'a>
    where
        Self: 'a;

    /// The buffers as writable views.
    fn views_mut(&mut self) -> Self::Views<'_>;
}

impl<W: Coeff> sealed::Sealed for DeviceVec<W> {
    fn ranges(&self, out: &mut Vec<(u64, u64)>) {
        if !self.is_empty() {
            out.push(self.span());
        }
    }
}

impl<W: Coeff> GraphState for DeviceVec<W> {
    type Views<'a> = &'a mut super::DeviceView<W>;
    fn views_mut(&mut self) -> Self::Views<'_> {
        self
    }
}

impl sealed::Sealed for () {
    fn ranges(&self, _: &mut Vec<(u64, u64)>) {}
}

impl GraphState for () {
    type Views<'a> = ();
    fn views_mut(&mut self) -> Self::Views<'_> {}
}

impl<T: GraphState, const K: usize> sealed::Sealed for [T; K] {
    fn ranges(&self, out: &mut Vec<(u64, u64)>) {
        self.iter().for_each(|t| t.ranges(out));
    }
}

impl<T: GraphState, const K: usize> GraphState for [T; K] {
    type Views<'a>
        = [T::Views<'a>; K]
    where
        T: 'a;
    fn views_mut(&mut self) -> Self::Views<'_> {
        self.each_mut().map(|t| t.views_mut())
    }
}

macro_rules! tuple_state {
    ($($t:ident $i:tt),+) => {
        impl<$($t: GraphState),+> sealed::Sealed for ($($t,)+) {
            fn ranges(&self, out: &mut Vec<(u64, u64)>) {
                $(self.$i.ranges(out);)+
            }
        }

        impl<$($t: GraphState),+> GraphState for ($($t,)+) {
            type Views<'a>
                = ($($t::Views<'a>,)+)
            where
                Self: 'a;
            fn views_mut(&mut self) -> Self::Views<'_> {
                ($(self.$i.views_mut(),)+)
            }
        }
    };
}

tuple_state!(A 0);
tuple_state!(A 0, B 1);
tuple_state!(A 0, B 1, C 2);
tuple_state!(A 0, B 1, C 2, D 3);
tuple_state!(A 0, B 1, C 2, D 3, E 4);
tuple_state!(A 0, B 1, C 2, D 3, E 4, F 5);

/// The explicit capture running on this thread ([`capture`]): whose work
/// may be queued, and on which buffers.
struct Scope {
    /// The capturing plan's address (its identity while it is borrowed).
    owner: usize,
    /// The state's buffers and the plan memory admitted so far.
    allowed: Vec<(u64, u64)>,
    /// Plan memory to keep alive with the graph.
    kept: Vec<Kept>,
    /// The first operand refused (`what`, `why`): the capture fails with it
    /// even if `work` swallowed the error and went on, since launches it
    /// queued before the refusal (a multi-step call that checks each step's
    /// operands as it goes) may use the refused words.
    refused: Option<(&'static str, &'static str)>,
}

thread_local! {
    /// Set while [`capture`] runs `work` on this thread.
    static SCOPE: std::cell::RefCell<Option<Scope>> = const { std::cell::RefCell::new(None) };
}

/// Whether an explicit capture is running on this thread.
pub(crate) fn capturing_here() -> bool {
    SCOPE.with_borrow(Option::is_some)
}

/// A device operand `what` (`bytes` bytes at `addr`) handed to plan
/// `owner` (its address): refused with [`Error::CaptureOutsideState`]
/// while an explicit capture runs on this thread, unless `owner` is the
/// capturing plan and the words lie inside the graph's state (or memory
/// the plan admitted, [`keep`]). Outside a capture: `Ok` at once.
/// A refusal is also recorded in the scope, and fails the capture
/// whatever `work` returns.
pub(crate) fn admit(owner: *const (), what: &'static str, addr: u64, bytes: u64) -> Result<()> {
    SCOPE.with_borrow_mut(|scope| {
        let Some(scope) = scope else { return Ok(()) };
        let end = addr.saturating_add(bytes);
        let why = if scope.owner != owner as usize {
            "it was handed to another plan than the capturing one"
        } else if bytes == 0 || scope.allowed.iter().any(|&(s, e)| s <= addr && end <= e) {
            return Ok(());
        } else {
            "its words are not in the graph's state"
        };
        scope.refused.get_or_insert((what, why));
        Err(Error::CaptureOutsideState { what, why })
    })
}

/// Plan memory `kept` (whose words are `range`) that the work being
/// captured on this thread uses: the graph keeps it alive and admits its
/// words. Outside a capture, nothing.
pub(crate) fn keep(kept: impl FnOnce() -> Kept, range: (u64, u64)) {
    SCOPE.with_borrow_mut(|scope| {
        if let Some(scope) = scope {
            scope.kept.push(kept());
            scope.allowed.push(range);
        }
    });
}

/// Ends the scope on drop, also when `work` panics.
struct ScopeGuard;

impl Drop for ScopeGuard {
    fn drop(&mut self) {
        SCOPE.with_borrow_mut(Option::take);
    }
}

impl<S: GraphState> std::fmt::Debug for Graph<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").finish_non_exhaustive()
    }
}

fn check(rc: CUresult, during: &'static str) -> Result<()> {
    if rc == CUDA_SUCCESS { Ok(()) } else { Err(Error::CudaCode { during, code: rc as i32 }) }
}

/// Captures what `work` queues on `q`'s stream into a graph that owns
/// `state`. `work` is a function, not a closure, so that it carries no
/// buffers of its own; what it reaches otherwise (a `static`) is refused
/// by [`admit`], which every plan's device call runs on its operands. A
/// `work` that waits for the GPU, copies from or to the host or allocates
/// with a zeroing copy fails (the driver refuses those while capturing);
/// its error is returned and nothing is captured.
pub(crate) fn capture<'p, P, S: GraphState>(
    q: Queue<'p>,
    plan: &'p P,
    mut state: S,
    work: fn(&P, &mut S) -> Result<()>,
) -> Result<Graph<'p, S>> {
    q.gpu.bind()?;
    if capturing_here() {
        return Err(Error::CaptureOutsideState {
            what: "a graph",
            why: "a capture is already running on this thread",
        });
    }
    let stream = q.stream.as_inner();
    let mut before = Vec::new();
    state.ranges(&mut before);
    let owner = plan as *const P as usize;
    SCOPE.with_borrow_mut(|s| {
        *s = Some(Scope { owner, allowed: before.clone(), kept: Vec::new(), refused: None })
    });
    let guard = ScopeGuard;
    let captured = capture_raw(stream, || {
        let worked = work(plan, &mut state);
        // A refused operand fails the capture even where `work` went on.
        if let Some((what, why)) = SCOPE.with_borrow(|s| s.as_ref().and_then(|s| s.refused)) {
            return Err(Error::CaptureOutsideState { what, why });
        }
        worked?;
        // The buffers the launches were recorded on must be the ones the
        // graph keeps: `work` may not have replaced any of them.
        let mut after = Vec::new();
        state.ranges(&mut after);
        if after == before {
            Ok(())
        } else {
            Err(Error::CaptureOutsideState { what: "the state", why: "the capture replaced its buffers" })
        }
    });
    let kept = SCOPE.with_borrow_mut(|s| s.take().map(|s| s.kept).unwrap_or_default());
    drop(guard);
    let (graph, exec) = captured?;
    Ok(Graph { gpu: q.gpu, stream, graph, exec, _kept: kept, state })
}

impl<S: GraphState> Graph<'_, S> {
    /// Queues one replay on the stream the operation was captured from
    /// (after the work queued there before; returns without waiting).
    pub fn launch(&self) -> Result<()> {
        self.gpu.bind()?;
        // SAFETY: `self.exec` is the executable graph `capture` instantiated
        // (destroyed only by `Drop`) and `self.stream` the stream it was captured
        // from, borrowed for `'p` through `capture`'s `Queue<'p>`, so still
        // alive; the context is current: `Gpu::bind` above. The graph touches
        // only the plan's memory and `self.state`'s buffers (`capture`: every
        // operand was admitted from the state or kept plan memory, and the
        // state's buffers were the same after `work`), and these outlive the
        // replay: the plan is borrowed for `'p`, its replaceable scratch is in
        // `self._kept`, and the state's buffers can be neither replaced
        // (`state_mut` lends unsized views; `GraphState` is sealed, with no
        // interior mutability) nor freed before `self` is dropped, whose
        // `Drop` destroys the graph first and whose buffers wait for the GPU
        // before they free (`DeviceVec`'s `Drop`).
        check(unsafe { sys::cuGraphLaunch(self.exec, self.stream) }, "launching a graph")
    }

    /// Waits for the replays queued on the graph's stream.
    pub fn synchronize(&self) -> Result<()> {
        self.gpu.bind()?;
        // SAFETY: `self.stream` is alive for `'p` (see `Graph::launch`) and of
        // the current context: `Gpu::bind` above.
        check(unsafe { sys::cuStreamSynchronize(self.stream) }, "waiting for a graph")
    }

    /// The buffers the operation runs on.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The buffers, to write new inputs into between replays, as writable
    /// views (wait for the queued replays first: [`Graph::synchronize`];
    /// [`Gpu::copy_into`] does). Views, not the buffers themselves: a
    /// buffer the graph captured cannot be replaced.
    pub fn state_mut(&mut self) -> S::Views<'_> {
        self.state.views_mut()
    }
}

impl<S: GraphState> Drop for Graph<'_, S> {
    fn drop(&mut self) {
        // Errors cannot be reported from drop; the context outlives the graph.
        let _ = self.gpu.bind();
        // SAFETY: `exec` and `graph` were made by `capture_raw` for this `Graph`
        // and are destroyed only here, once, with the context bound above (it
        // outlives the graph: `self.gpu` is borrowed for `'p`). The driver frees
        // an executable graph still running once its replays finish;
        // `self._kept` and `self.state`, dropped next, may still be in use by
        // them: each `DeviceVec` waits for the context's work before it frees
        // (`DeviceVec`'s `Drop`).
        unsafe {
            sys::cuGraphExecDestroy(self.exec);
            sys::cuGraphDestroy(self.graph);
        }
    }
}

/// A device buffer that grows on demand and never frees a smaller one while
/// its owner lives, so a graph captured on an earlier size never points at
/// freed memory: a plan's scratch and the fused kernels' control words.
pub(crate) struct GrowBuffer<W: Coeff> {
    inner: std::sync::Mutex<Grown<W>>,
}

/// The current buffer and the retired ones.
type Grown<W> = (Option<DeviceVec<W>>, Vec<DeviceVec<W>>);

impl<W: Coeff> GrowBuffer<W> {
    pub(crate) fn new() -> Self {
        Self { inner: std::sync::Mutex::new((None, Vec::new())) }
    }

    /// At least `len` words of `gpu`, zero when new. New words are zeroed
    /// before this returns, on a stream of their own that the host waits
    /// for, not on the caller's stream: while that stream captures a graph,
    /// a memset queued there would only be a node of the graph, and a
    /// capture that fails (or a graph never launched) would leave the
    /// plan's current buffer unzeroed for its next direct launch (the fused
    /// kernels' control words are ticket counters; the 8-thread soak of
    /// seed 11 stalled within a minute until this changed, docs/results/
    /// 2026-11-26-nvidia-h100-soak30). Not `Gpu::zeros`: its synchronous
    /// memset runs on the legacy stream, which a capturing blocking stream
    /// must not meet. Allocation and zeroing are legal while another stream
    /// captures in relaxed mode (`capture_raw`), and happen only when the
    /// buffer grows.
    pub(crate) fn at_least(&self, gpu: &Gpu, len: usize) -> Result<cust::memory::DevicePointer<W>> {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if g.0.as_ref().is_none_or(|v| v.len() < len) {
            gpu.bind()?;
            let bytes = len.max(1) * std::mem::size_of::<W>();
            // SAFETY: `uninitialized` is unsafe because the words are not
            // initialised: `zero_now` below zeroes all of them and waits for it
            // before the buffer is stored or its address returned, so nothing
            // reads them before. The context is current: `Gpu::bind` above.
            let buf = unsafe { cust::memory::DeviceBuffer::<W>::uninitialized(len.max(1)) }
                .map_err(Error::cuda("allocating", bytes))?;
            let v = DeviceVec::from_buffer(gpu, buf);
            zero_now(&v, bytes)?;
            if let Some(old) = g.0.replace(v) {
                g.1.push(old);
            }
        }
        Ok(g.0.as_ref().map_or(cust::memory::DevicePointer::null(), |v| v.ptr()))
    }

    /// Retires the current buffer (kept alive, not reused): the next
    /// [`GrowBuffer::at_least`] allocates new words.
    pub(crate) fn retire(&self) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = g.0.take() {
            g.1.push(old);
        }
    }
}

/// Zeroes the `bytes` bytes of `v` (a multiple of 4) on a new non-blocking
/// stream and waits for it: outside any capture, whatever stream captures.
/// The context must be current (the caller binds it).
fn zero_now<W: Coeff>(v: &DeviceVec<W>, bytes: usize) -> Result<()> {
    use cust::stream::{Stream, StreamFlags};
    let side = Stream::new(StreamFlags::NON_BLOCKING, None).map_err(Error::cuda("creating a stream", 0))?;
    check(
        // SAFETY: `v` is a live allocation of at least `bytes` bytes, a multiple of
        // 4 (words are 4 or 8 bytes), so `bytes / 4` 32-bit words lie inside it;
        // `side` is a live stream of the current context (the caller's
        // `Gpu::bind`), not capturing (made just now). `v` outlives the memset: the
        // stream is synchronized below before `v` can be dropped.
        unsafe { sys::cuMemsetD32Async(v.ptr().as_raw(), 0, bytes / 4, side.as_inner()) },
        "zeroing a grown buffer",
    )?;
    side.synchronize().map_err(Error::cuda("zeroing a grown buffer", bytes))
}

/// What identifies one call of a plan for [`GraphCache`]: the operation
/// and the device buffers it runs on (their addresses and lengths). Two
/// calls with the same key queue the same launches with the same
/// arguments, so a graph captured from one replays the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallKey {
    /// The operation (the caller's own numbering).
    pub op: u8,
    /// The first buffer's device address and length.
    pub a: (u64, usize),
    /// The second buffer's, or `(0, 0)`.
    pub b: (u64, usize),
    /// The third buffer's (the tensor product's output), or `(0, 0)`.
    pub c: (u64, usize),
}

impl CallKey {
    /// No operation on no buffers: the base of a key that names fewer than
    /// three buffers (`CallKey { op, a, ..CallKey::NONE }`).
    pub(crate) const NONE: CallKey = CallKey { op: 0, a: (0, 0), b: (0, 0), c: (0, 0) };
}

/// An instantiated graph of the cache, destroyed with it.
struct CachedExec {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

// SAFETY: `CUgraph` and `CUgraphExec` are plain driver handles with no thread
// affinity: the driver takes them on any thread whose current context is theirs.
// Every use binds the plan's context first (`capture_on` when creating,
// `GraphCache::run` before `cuGraphLaunch` and before dropping entries,
// `GraphCache`'s `Drop` before clearing), and the entries live behind
// `GraphCache::inner`'s mutex, so one thread uses them at a time.
unsafe impl Send for CachedExec {}

impl Drop for CachedExec {
    fn drop(&mut self) {
        // SAFETY: `exec` and `graph` were made by `capture_raw` (through
        // `capture_on`) for this entry and are destroyed only here, once; the
        // context is current: `GraphCache` binds it before it drops entries
        // (`GraphCache::run` before `truncate`, its `Drop` before `clear`). The
        // driver frees an executable graph still running once its replays finish.
        unsafe {
            sys::cuGraphExecDestroy(self.exec);
            sys::cuGraphDestroy(self.graph);
        }
    }
}

/// One key's entry: the calls seen, whether a capture was tried, and the
/// graph once captured.
struct CacheEntry {
    key: CallKey,
    calls: u32,
    tried: bool,
    exec: Option<CachedExec>,
}

/// The cache's private capture stream and its entries, most recent first.
type CacheState = (Option<cust::stream::Stream>, Vec<CacheEntry>);

/// The graphs a plan captured on its own from repeated calls, so that a
/// repeated call on the same buffers costs one `cuGraphLaunch` instead of
/// one launch per kernel (H100, one polynomial, `u64` N = 2^16 forward:
/// one graph replay 8.4 µs against 11.2–12.1 µs for its two launches;
/// docs/latency.md). The second call with a key captures its launches on
/// a private stream (nothing runs there) and every later one replays them
/// on the caller's stream; the first runs plainly, so that a workload over
/// more buffers than the cache keeps never pays a capture it cannot reuse.
/// At most [`GraphCache::CAPACITY`] keys, the least recently used out
/// first.
pub(crate) struct GraphCache {
    gpu: Gpu,
    inner: std::sync::Mutex<CacheState>,
    enabled: bool,
}

impl GraphCache {
    /// Keys kept.
    pub(crate) const CAPACITY: usize = 16;

    /// An empty cache; `enabled == false` (`PlanOptions::graph_cache`)
    /// turns it off: every call launches its kernels, for comparing the two.
    pub(crate) fn new(gpu: &Gpu, enabled: bool) -> Self {
        Self { gpu: gpu.clone(), inner: std::sync::Mutex::new((None, Vec::new())), enabled }
    }

    /// Turns the cache on or off for later calls (graphs already captured
    /// stay until the cache is dropped, unused while it is off).
    pub(crate) fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
    }

    /// Queues `record`'s launches on `q`: by replaying the cached graph of
    /// `key` where there is one, else by calling `record(q)`. `record` must
    /// queue the same kernel launches with the same arguments for every
    /// call with `key` (and nothing else: no copies, allocations or
    /// waits), touching only the buffers of `key` and memory that lives as
    /// long as the cache. A stream that is capturing a graph of its own
    /// gets the plain launches.
    pub(crate) fn run(
        &self,
        q: Queue<'_>,
        key: CallKey,
        record: impl Fn(Queue<'_>) -> Result<()>,
    ) -> Result<()> {
        if !self.enabled || is_capturing(q.stream) {
            return record(q);
        }
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (side, entries) = &mut *g;
        let mut e = match entries.iter().position(|e| e.key == key) {
            Some(i) => entries.remove(i),
            None => CacheEntry { key, calls: 0, tried: false, exec: None },
        };
        e.calls = e.calls.saturating_add(1);
        if e.exec.is_none() && !e.tried && e.calls >= 2 {
            // Tried once: a capture that fails leaves the key to plain
            // launches, as does a GPU other threads use too.
            e.tried = true;
            if let Some(_alone) = self.gpu.exclusive_capture() {
                e.exec = capture_on(&self.gpu, side, &record).ok();
            }
        }
        let replayed = e.exec.as_ref().map(|x| {
            self.gpu.bind()?;
            // SAFETY: `x.exec` is an executable graph `capture_on` instantiated
            // for this entry (alive: `e` is owned here) and `q.stream` a live
            // `Stream` borrowed for the call, of the plan's context, which is
            // current (`Gpu::bind` above). The replay repeats the launches
            // `record` queued for `key`: `GraphCache::run`'s contract on `record`
            // (same launches and arguments for every call with `key`, touching
            // only `key`'s buffers, alive for this call, and memory that lives as
            // long as the cache: the plan's tables, `GrowBuffer`s, `Scratch`), so
            // every pointer in it is live.
            check(unsafe { sys::cuGraphLaunch(x.exec, q.stream.as_inner()) }, "launching a cached graph")
        });
        entries.insert(0, e);
        if entries.len() > Self::CAPACITY {
            // Dropping a graph needs the context (bound above or by the capture).
            let _ = self.gpu.bind();
            entries.truncate(Self::CAPACITY);
        }
        drop(g);
        replayed.unwrap_or_else(|| record(q))
    }
}

impl Drop for GraphCache {
    fn drop(&mut self) {
        // Errors cannot be reported from drop; the context outlives the cache.
        let _ = self.gpu.bind();
        let g = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        g.1.clear();
        g.0 = None;
    }
}

/// Whether `stream` is capturing a graph (or its state cannot be read).
pub(crate) fn is_capturing(stream: &cust::stream::Stream) -> bool {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: `stream` is a live `Stream` borrowed for the call and `status` a
    // live out-parameter of the type the call writes; the driver only reads the
    // handle (an error counts as capturing).
    let rc = unsafe { sys::cuStreamIsCapturing(stream.as_inner(), &mut status) };
    rc != CUDA_SUCCESS || status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
}

/// Captures what `record` queues on the private stream `side` (created on
/// first use) into an instantiated graph.
fn capture_on(
    gpu: &Gpu,
    side: &mut Option<cust::stream::Stream>,
    record: &impl Fn(Queue<'_>) -> Result<()>,
) -> Result<CachedExec> {
    gpu.bind()?;
    if side.is_none() {
        let s = cust::stream::Stream::new(cust::stream::StreamFlags::NON_BLOCKING, None)
            .map_err(Error::cuda("creating a capture stream", 0))?;
        *side = Some(s);
    }
    let Some(stream) = side.as_ref() else { return Err(Error::CudaCode { during: "capturing", code: 0 }) };
    let (graph, exec) = capture_raw(stream.as_inner(), || record(Queue { gpu, stream }))?;
    Ok(CachedExec { graph, exec })
}

/// Begins a capture on `stream`, runs `work`, ends it and instantiates the
/// graph; on any error nothing is left behind.
fn capture_raw(
    stream: sys::CUstream,
    work: impl FnOnce() -> Result<()>,
) -> Result<(sys::CUgraph, sys::CUgraphExec)> {
    // Relaxed: launches that allocate (a plan's scratch growing on first
    // use) may do so while capturing; the allocation itself is not captured.
    check(
        // SAFETY: `stream` is a live stream of the current context: both callers take
        // it from a borrowed `Stream` (`capture`: the `Queue`'s; `capture_on`: the
        // cache's side stream) and call `Gpu::bind` first.
        unsafe {
            sys::cuStreamBeginCapture_v2(stream, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
        },
        "beginning a graph capture",
    )?;
    let queued = work();
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    // SAFETY: ends the capture begun on `stream` above (whatever `work` did);
    // `graph` is a live out-pointer for one `CUgraph`.
    let ended = unsafe { sys::cuStreamEndCapture(stream, &mut graph) };
    let destroy = |g: sys::CUgraph| {
        if !g.is_null() {
            // SAFETY: `g` is non-null: the graph `cuStreamEndCapture` gave this
            // function, not instantiated nor handed out, and destroyed only here,
            // on an error path, once.
            unsafe { sys::cuGraphDestroy(g) };
        }
    };
    if let Err(e) = queued.and_then(|()| check(ended, "capturing a graph")) {
        destroy(graph);
        return Err(e);
    }
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    if let Err(e) = check(
        // SAFETY: `graph` is the complete graph the capture returned (its status
        // checked above), `exec` a live out-pointer; flags 0.
        unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0) },
        "instantiating a graph",
    ) {
        destroy(graph);
        return Err(e);
    }
    Ok((graph, exec))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `admit` outside a capture lets everything through; inside, only the
    /// capturing plan's operands within the state or kept memory.
    #[test]
    fn admit_refuses_what_the_graph_cannot_keep() {
        let (plan, other) =
            (std::ptr::without_provenance::<()>(0x10), std::ptr::without_provenance::<()>(0x20));
        assert!(admit(other, "a", 0x5000, 8).is_ok(), "no capture: no check");
        SCOPE.with_borrow_mut(|s| {
            *s = Some(Scope {
                owner: plan as usize,
                allowed: vec![(0x1000, 0x2000)],
                kept: Vec::new(),
                refused: None,
            })
        });
        let guard = ScopeGuard;
        assert!(capturing_here());
        assert!(admit(plan, "a", 0x1000, 0x1000).is_ok());
        assert!(admit(plan, "a", 0x1800, 8).is_ok());
        assert_eq!(SCOPE.with_borrow(|s| s.as_ref().and_then(|s| s.refused)), None);
        let refused = |r: Result<()>| matches!(r, Err(Error::CaptureOutsideState { .. }));
        assert!(refused(admit(plan, "a", 0x1ffc, 8)), "past the state's end");
        assert_eq!(
            SCOPE.with_borrow(|s| s.as_ref().and_then(|s| s.refused)),
            Some(("a", "its words are not in the graph's state")),
            "a refusal is recorded for the capture, whatever `work` does with the error"
        );
        assert!(refused(admit(plan, "a", 0x3000, 8)), "a buffer of a static");
        assert!(refused(admit(other, "a", 0x1000, 8)), "another plan");
        assert!(refused(admit(plan, "a", u64::MAX - 4, 8)), "an overflowing range");
        keep(|| std::sync::Arc::new(7u8), (0x3000, 0x3100));
        assert!(admit(plan, "scratch", 0x3000, 0x100).is_ok(), "kept plan memory");
        assert_eq!(SCOPE.with_borrow(|s| s.as_ref().map(|s| s.kept.len())), Some(1));
        drop(guard);
        assert!(!capturing_here());
        assert!(admit(other, "a", 0x3000, 8).is_ok());
        keep(|| unreachable!("nothing is kept outside a capture"), (0, 8));
    }
}
