//! Batches of any size. One launch addresses at most
//! [`crate::params::max_batch`] polynomials per tower (`batch · N` below
//! 2^32 words), and a host-slice call needs its operands on the device; a
//! batch above either limit runs in **pieces**, and so does a host-slice
//! call above [`WHOLE_BYTES`] per operand ([`piece_target`]), whose pinned,
//! overlapped copies beat one whole call's pageable ones by far:
//!
//! - [`Pieces`] is the schedule, as data: the batch cut into ranges of at
//!   most `piece` polynomials per tower, chosen by [`Pieces::plan`] from the
//!   launch limit and the device's free memory (`cuMemGetInfo`, less a
//!   margin: [`budget`]).
//! - [`host_call`]: a host-slice call. Whole (small), the words are
//!   uploaded, computed on and downloaded. Split, piece `k` runs in slot
//!   `k mod 2` (two sets of device buffers and of pinned staging memory):
//!   its words are gathered (every tower's rows of the piece) into pinned
//!   memory by every core, uploaded on a second stream, computed on the
//!   plan's stream once the upload's event fired, and downloaded on the
//!   plan's stream; so piece `k + 1`'s upload overlaps piece `k`'s kernels
//!   and download, and the host gathers piece `k + 1` and scatters piece
//!   `k − 1` meanwhile. The same kernels run on every piece, so the words
//!   are those of the unsplit call.
//! - [`device_call`]: a device-view call over the launch limit: launches of
//!   at most `max_batch` polynomials on sub-views (one tower: no copies), or
//!   with several towers (whose rows of a piece are not contiguous) each
//!   piece gathered into a device buffer, computed and scattered back.
//!
//! **Out of memory.** A host call whose pieces do not fit after all
//! ([`Error::OutOfDeviceMemory`] from an allocation or from the plan)
//! halves its piece and goes on from the first polynomial whose result has
//! not been written yet; at the smallest piece ([`min_piece`]: one
//! polynomial, or 1 MiB per operand where polynomials are smaller) it
//! returns the error.
//!
//! **The smallest piece.** Pieces never shrink below [`min_piece`], whatever
//! the free memory says when the call starts: every piece costs a few tens
//! of µs of events, launches and copies, so a batch of small polynomials cut
//! to one per piece ran for minutes (an H100 soak, 2026-11-26: `u64` N = 2,
//! 11 million polynomials, planned while another allocation held nearly all
//! the device's memory, held the GPU's staging memory, and with it every
//! other thread's host-slice call, for about 284 s). A piece of 1 MiB per
//! operand needs a few MiB of device memory; where even that is missing the
//! call returns [`Error::OutOfDeviceMemory`] at once.
//! The output then holds the results of a leading part of the batch (the
//! same polynomials in every tower) and its other words are untouched; an
//! error before any piece finished leaves it untouched.

use super::launch::Queue;
use super::scratch::copy;
use super::{DeviceVec, DeviceView};
use crate::layout::{Layout, Towers};
use crate::{Coeff, Error, Result};
use cust::memory::AsyncCopyDestination;
use cust::stream::{Stream, StreamFlags};
use rayon::prelude::*;
use std::ops::Range;

/// Bytes per operand a split host call aims its pieces at: enough words
/// (2^23 `u64`) for the batched kernels' rates, few enough that the six
/// pinned pieces of the pipeline stay at 384 MiB.
pub(crate) const TARGET_PIECE_BYTES: usize = 64 << 20;

/// Bytes per operand up to which a host call runs whole: its copies are
/// pageable (the driver stages them) and it pays no pipeline set-up.
pub(crate) const WHOLE_BYTES: usize = 1 << 20;

/// The piece target of a host call whose operand has `operand` bytes: none
/// (0: whole, where it fits) up to [`WHOLE_BYTES`], else a quarter of the
/// operand, at least [`WHOLE_BYTES`] and at most [`TARGET_PIECE_BYTES`],
/// so that even a mid-sized call has pieces whose copies and kernels
/// overlap. Measured on an H100 (2026-11-26, u64 N = 2^16, 0.8 GiB per
/// operand): whole, with pageable copies one after the other, 1.13 s;
/// pipelined, 0.08 s (the pageable download alone, into a new `Vec`, took
/// 0.5 s).
pub(crate) fn piece_target(operand: usize) -> usize {
    if operand <= WHOLE_BYTES { 0 } else { (operand / 4).clamp(WHOLE_BYTES, TARGET_PIECE_BYTES) }
}

/// Bytes per operand below which a split's pieces do not shrink (module
/// docs, "The smallest piece").
pub(crate) const MIN_PIECE_BYTES: usize = WHOLE_BYTES;

/// Polynomials in the smallest piece of a split: [`MIN_PIECE_BYTES`] per
/// operand, at least one polynomial (of `poly_bytes` bytes in every tower).
pub(crate) fn min_piece(poly_bytes: usize) -> usize {
    (MIN_PIECE_BYTES / poly_bytes.max(1)).max(1)
}

/// The limits a split respects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Most polynomials per tower one launch takes ([`crate::params::max_batch`]).
    pub max_batch: usize,
    /// Bytes of one polynomial in every tower (`towers · N · word`).
    pub poly_bytes: usize,
    /// Device buffers of the whole batch's size an unsplit call holds.
    pub whole_buffers: usize,
    /// Device buffers of one piece's size a split call holds (both slots).
    pub piece_buffers: usize,
    /// Device bytes the call may allocate ([`budget`]).
    pub budget: usize,
    /// Bytes per operand to cut a split batch's pieces at (0: no cap).
    pub target: usize,
}

/// A batch of polynomials from `start` to `batch` cut into consecutive
/// ranges of `piece` polynomials (the last one shorter if it must).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pieces {
    start: usize,
    batch: usize,
    piece: usize,
}

impl Pieces {
    /// Polynomials `start..batch` in pieces of `piece` (at least 1).
    pub(crate) fn from(start: usize, batch: usize, piece: usize) -> Self {
        Self { start: start.min(batch), batch, piece: piece.max(1) }
    }

    /// The schedule of `batch` polynomials under `limits`: one piece if the
    /// batch fits one launch and the memory budget and its operand is at
    /// most `target` bytes (a larger one runs pipelined: its copies overlap
    /// each other, the kernels and the host's gathering, through pinned
    /// memory, where one unsplit call would copy pageable memory one
    /// direction after the other); else pieces of at most
    /// `max_batch`, of what two slots of `piece_buffers` allow in the
    /// budget (but never below [`min_piece`]: should the memory not be
    /// there after all, the call's allocation fails and it shrinks on
    /// [`Error::OutOfDeviceMemory`] as the module docs say), and of `target`
    /// bytes per operand — at least one polynomial.
    pub(crate) fn plan(batch: usize, l: &Limits) -> Self {
        let need = |p: usize, buffers: usize| p.saturating_mul(l.poly_bytes).saturating_mul(buffers);
        let small = l.target == 0 || need(batch, 1) <= l.target;
        if batch <= l.max_batch && need(batch, l.whole_buffers) <= l.budget && small {
            return Self::from(0, batch, batch);
        }
        let by_memory = l.budget / need(1, l.piece_buffers).max(1);
        let by_target = if l.target == 0 { usize::MAX } else { l.target / l.poly_bytes.max(1) };
        Self::from(0, batch, l.max_batch.min(by_memory.max(min_piece(l.poly_bytes))).min(by_target))
    }

    /// The schedule after running out of memory with polynomials up to
    /// `done` written: the rest of the batch in pieces of half the size
    /// (rounded up), never below `floor` ([`min_piece`]); `None` once the
    /// pieces are at the floor (or one polynomial), when the call returns
    /// the error.
    pub(crate) fn shrunk(&self, done: usize, floor: usize) -> Option<Self> {
        let floor = floor.max(1);
        (self.piece.min(self.batch) > floor)
            .then(|| Self::from(done, self.batch, self.piece.min(self.batch).div_ceil(2).max(floor)))
    }

    /// Polynomials per piece (the last may have fewer).
    pub(crate) fn piece(&self) -> usize {
        self.piece
    }

    /// Number of pieces.
    pub(crate) fn len(&self) -> usize {
        (self.batch - self.start).div_ceil(self.piece)
    }

    /// Whether the call runs as one piece of the whole batch.
    pub(crate) fn is_whole(&self) -> bool {
        self.start == 0 && self.piece >= self.batch
    }

    /// The polynomials of piece `i` (`i < len()`).
    pub(crate) fn get(&self, i: usize) -> Range<usize> {
        let s = self.start + i * self.piece;
        s..s.saturating_add(self.piece).min(self.batch)
    }

    /// Every piece, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// The device bytes a call may allocate: free memory (`cuMemGetInfo`) less
/// a margin of 1/16 of it and at least 256 MiB (the driver's and the plan's
/// own allocations: graphs, the fused kernels' control words, the DGT's
/// scratch grow outside the budget). The context must be current.
pub(crate) fn budget(q: &Queue<'_>) -> Result<usize> {
    q.gpu.bind()?;
    let (free, _) = cust::memory::mem_get_info().map_err(Error::cuda("reading free device memory", 0))?;
    Ok(free.saturating_sub((free / 16).max(256 << 20)))
}

/// What a host-slice call computes on each piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `a ← a ⊗ b` (b clobbered).
    Product,
    /// The forward NTT of `a`.
    Forward,
    /// The inverse NTT of `a`.
    Inverse,
    /// `a ← a ⊙ b`.
    Pointwise,
}

impl Op {
    /// Device operands of one piece.
    fn operands(self) -> usize {
        match self {
            Op::Forward | Op::Inverse => 1,
            Op::Product | Op::Pointwise => 2,
        }
    }
}

/// A GPU plan whose host-slice calls split: its moduli, its queue and its
/// device computation of one piece (within the launch limit).
pub(crate) trait SplitPlan<W: Coeff> {
    /// The moduli and input checks.
    fn split_towers(&self) -> &Towers<W>;
    /// The plan's queue (the kernels' stream).
    fn split_queue(&self) -> Queue<'_>;
    /// Queues `op` on device words of at most `max_batch` polynomials per
    /// tower (`b` for the two-operand ops).
    fn run_piece(&self, op: Op, a: &mut DeviceView<W>, b: Option<&mut DeviceView<W>>) -> Result<()>;
    /// Operand-sized device buffers the plan allocates itself per call
    /// (the DGT's scratch).
    fn own_buffers(&self) -> usize {
        0
    }
}

/// The host words of a call: the first operand (`None`: `out` itself, read
/// piece by piece before its results are written), the second, and where
/// the result goes (all of one validated layout).
pub(crate) struct HostIo<'a, W> {
    pub a: Option<&'a [W]>,
    pub b: Option<&'a [W]>,
    pub out: &'a mut [W],
}

impl<W: Coeff> HostIo<'_, W> {
    fn first(&self) -> &[W] {
        self.a.unwrap_or(self.out)
    }
}

/// Runs `op` on validated host words of `layout`, split as memory and the
/// launch limit require (module docs). The output is written only with
/// results; see the module docs on running out of memory.
pub(crate) fn host_call<W: Coeff, P: SplitPlan<W> + ?Sized>(
    plan: &P,
    op: Op,
    mut io: HostIo<'_, W>,
    layout: Layout,
) -> Result<()> {
    let q = plan.split_queue();
    let ops = op.operands();
    let limits = Limits {
        max_batch: crate::params::max_batch(layout.n),
        poly_bytes: layout.towers * layout.n * std::mem::size_of::<W>(),
        whole_buffers: ops + plan.own_buffers(),
        piece_buffers: 2 * (ops + plan.own_buffers()),
        budget: budget(&q)?,
        target: piece_target(
            layout.batch.saturating_mul(layout.towers * layout.n * std::mem::size_of::<W>()),
        ),
    };
    let floor = min_piece(limits.poly_bytes);
    let mut pieces = Pieces::plan(layout.batch, &limits);
    if pieces.is_whole() {
        match whole(plan, op, &mut io) {
            Err(e @ Error::OutOfDeviceMemory { .. }) => match pieces.shrunk(0, floor) {
                Some(p) => pieces = p,
                None => return Err(e),
            },
            r => return r,
        }
    }
    loop {
        let mut done = pieces.start;
        match pipeline(plan, op, &mut io, layout, pieces, &mut done) {
            Err(e @ Error::OutOfDeviceMemory { .. }) => match pieces.shrunk(done, floor) {
                Some(p) => pieces = p,
                None => return Err(e),
            },
            r => return r,
        }
    }
}

/// The unsplit call: upload, compute, download.
fn whole<W: Coeff, P: SplitPlan<W> + ?Sized>(plan: &P, op: Op, io: &mut HostIo<'_, W>) -> Result<()> {
    let q = plan.split_queue();
    let mut a = q.gpu.upload(io.first())?;
    let mut b = io.b.map(|b| q.gpu.upload(b)).transpose()?;
    plan.run_piece(op, &mut a, b.as_deref_mut())?;
    let c = q.download(&a)?;
    io.out.copy_from_slice(&c);
    Ok(())
}

/// `dst ← src` on every core.
fn par_copy<W: Coeff>(dst: &mut [W], src: &[W]) {
    const TASK: usize = 1 << 15;
    dst.par_chunks_mut(TASK).zip(src.par_chunks(TASK)).for_each(|(d, s)| d.copy_from_slice(s));
}

/// The words of polynomials `r` of every tower of `layout` in `words`
/// (tower-major), as `(offset in words, offset in a piece buffer, len)`.
fn rows(layout: Layout, r: &Range<usize>) -> impl Iterator<Item = (usize, usize, usize)> {
    let (n, batch, len) = (layout.n, layout.batch, r.len() * layout.n);
    (0..layout.towers).map(move |t| (t * batch * n + r.start * n, t * len, len))
}

/// The host's copy rates `(pageable → pinned, pinned → pageable)` in GB/s
/// of `words` `u64` words, copied as the pipeline's gathers and scatters
/// copy a one-tower piece (one [`par_copy`] on every core) into and out of
/// a buffer of the GPU's staging pool: the wall-clock median of `reps`
/// copies each way, after one warm-up that touches every page.
pub(crate) fn staging_copy_gbs(gpu: &super::Gpu, words: usize, reps: usize) -> Result<(f64, f64)> {
    gpu.bind()?;
    let mut host: Vec<u64> = (0..words as u64).collect();
    gpu.staging().with_words::<u64, _>(words, |pin| {
        let time = |f: &mut dyn FnMut()| {
            f();
            let mut v: Vec<f64> = (0..reps.max(1))
                .map(|_| {
                    let t0 = std::time::Instant::now();
                    f();
                    t0.elapsed().as_secs_f64()
                })
                .collect();
            (words * 8) as f64 / super::timing::median(&mut v) / 1e9
        };
        let to_pinned = time(&mut || {
            par_copy(&mut pin[..words], &host);
            std::hint::black_box(&mut *pin);
        });
        let from_pinned = time(&mut || {
            par_copy(&mut host, &pin[..words]);
            std::hint::black_box(&mut host);
        });
        Ok((to_pinned, from_pinned))
    })
}

/// A CUDA event made and destroyed within one split call.
struct Event(cust::sys::CUevent);

impl Event {
    /// A new event; the context must be current (the pipeline binds it).
    fn new() -> Result<Self> {
        let mut e = std::ptr::null_mut();
        // SAFETY: `e` is a live out-pointer for one `CUevent`; the context is
        // current: `pipeline` calls `budget`/`Gpu::bind` before making events.
        let rc = unsafe {
            cust::sys::cuEventCreate(&mut e, cust::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32)
        };
        super::launch::check(rc, "creating an event")?;
        Ok(Self(e))
    }

    /// Records the work queued on `stream` so far.
    fn record(&self, stream: &Stream) -> Result<()> {
        // SAFETY: `self.0` is a live event (destroyed only by `Drop`) and
        // `stream` a live stream borrowed for the call, both of the current
        // context (the pipeline's, bound before the events were made, on this
        // thread).
        super::launch::check(
            unsafe { cust::sys::cuEventRecord(self.0, stream.as_inner()) },
            "recording an event",
        )
    }

    /// `stream` waits for the work this event recorded.
    fn wait_on(&self, stream: &Stream) -> Result<()> {
        // SAFETY: as in `record`: a live event and stream of the current context.
        super::launch::check(
            unsafe { cust::sys::cuStreamWaitEvent(stream.as_inner(), self.0, 0) },
            "ordering streams",
        )
    }

    /// The host waits for the work this event recorded.
    fn synchronize(&self) -> Result<()> {
        // SAFETY: a live event of the current context (see `record`).
        super::launch::check(unsafe { cust::sys::cuEventSynchronize(self.0) }, "waiting for the GPU")
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: `self.0` was made by `cuEventCreate` in `Event::new` and is
        // destroyed only here, once, within the pipeline's call, while its
        // `Gpu` (and so the context) is alive; a pending event is released by
        // the driver once it fires.
        unsafe { cust::sys::cuEventDestroy_v2(self.0) };
    }
}

/// One slot of the pipeline: device buffers for a piece's operands and the
/// events of its last piece.
struct Slot<W: Coeff> {
    a: DeviceVec<W>,
    b: Option<DeviceVec<W>>,
    uploaded: Event,
    downloaded: Event,
    /// The piece whose download is queued and not yet scattered.
    pending: Option<Range<usize>>,
}

/// The split call (module docs); `done` is raised past every piece whose
/// results are written to `io.out`.
fn pipeline<W: Coeff, P: SplitPlan<W> + ?Sized>(
    plan: &P,
    op: Op,
    io: &mut HostIo<'_, W>,
    layout: Layout,
    pieces: Pieces,
    done: &mut usize,
) -> Result<()> {
    let q = plan.split_queue();
    q.gpu.bind()?;
    let words = layout.towers * pieces.piece() * layout.n;
    let two = op.operands() == 2;
    let mut slots = Vec::with_capacity(2);
    for _ in 0..2.min(pieces.len()) {
        slots.push(Slot {
            a: q.gpu.zeros::<W>(words)?,
            b: if two { Some(q.gpu.zeros::<W>(words)?) } else { None },
            uploaded: Event::new()?,
            downloaded: Event::new()?,
            pending: None,
        });
    }
    let up = Stream::new(StreamFlags::NON_BLOCKING, None).map_err(Error::cuda("creating a stream", 0))?;
    // Pinned memory: per slot, the operands' upload pieces and the result's.
    let per_slot = if two { 3 } else { 2 };
    q.gpu.staging().with_words::<W, _>(slots.len() * per_slot * words, |st| {
        let mut st: Vec<&mut [W]> = st.chunks_mut(words).collect();
        let run = (|| {
            for (k, r) in pieces.iter().enumerate() {
                let s = k % 2;
                let slot = &mut slots[s];
                let (pin_a, mut pin_b, pin_out) = pins(&mut st, s, per_slot);
                // The slot's last piece: its download done, its results out.
                if let Some(prev) = slot.pending.take() {
                    slot.downloaded.synchronize()?;
                    scatter(layout, &prev, pin_out, io.out);
                    *done = prev.end;
                }
                let len = r.len() * layout.n * layout.towers;
                gather(layout, &r, io.first(), pin_a);
                if let (Some(b), Some(pb)) = (io.b, pin_b.as_deref_mut()) {
                    gather(layout, &r, b, pb);
                }
                // The device buffers are free: the slot's previous download
                // (after its kernels, on the plan's stream) has finished.
                let mut da = slot.a.slice().index(0..len);
                // SAFETY: `pin_a[..len]` is pinned memory lent to this call
                // alone by the staging pool for this whole call (`Pool::with`,
                // gpu/staging.rs) and not written again until
                // the slot's `downloaded` event (recorded after this upload's
                // `uploaded` event was waited for, on the plan's stream) has
                // fired; `da` is the slot's device buffer's first `len` words
                // (`words ≥ len`). Should anything fail, both streams are
                // drained before the buffer is given back (below).
                unsafe { da.async_copy_from(&pin_a[..len], &up) }.map_err(Error::cuda("uploading", len))?;
                if let (Some(db), Some(pb)) = (slot.b.as_mut(), pin_b.as_deref()) {
                    let mut db = db.slice().index(0..len);
                    // SAFETY: as for `a` above.
                    unsafe { db.async_copy_from(&pb[..len], &up) }.map_err(Error::cuda("uploading", len))?;
                }
                slot.uploaded.record(&up)?;
                slot.uploaded.wait_on(q.stream)?;
                let va = slot.a.get_mut(0..len).ok_or(Error::LengthMismatch {
                    what: "piece",
                    got: len,
                    expected: words,
                })?;
                let vb = match slot.b.as_mut() {
                    Some(b) => Some(b.get_mut(0..len).ok_or(Error::LengthMismatch {
                        what: "piece",
                        got: len,
                        expected: words,
                    })?),
                    None => None,
                };
                plan.run_piece(op, va, vb)?;
                let da = slot.a.slice().index(0..len);
                // SAFETY: `pin_out[..len]` is pinned memory lent to this call
                // alone by the staging pool; the host reads it only after this slot's
                // `downloaded` event (recorded just below) has fired, and the
                // streams are drained on failure before the buffer is given back.
                // `da` is the slot buffer's first `len` words.
                unsafe { da.async_copy_to(&mut pin_out[..len], q.stream) }
                    .map_err(Error::cuda("downloading", len))?;
                slot.downloaded.record(q.stream)?;
                slot.pending = Some(r);
            }
            // The last two pieces, in order.
            let mut last: Vec<usize> = (0..slots.len()).filter(|&s| slots[s].pending.is_some()).collect();
            last.sort_by_key(|&s| slots[s].pending.as_ref().map_or(0, |r| r.start));
            for s in last {
                let (_, _, pin_out) = pins(&mut st, s, per_slot);
                if let Some(prev) = slots[s].pending.take() {
                    slots[s].downloaded.synchronize()?;
                    scatter(layout, &prev, pin_out, io.out);
                    *done = prev.end;
                }
            }
            Ok(())
        })();
        // No copy may still touch the staging memory (or the slots) once
        // this returns, also after an error (the error to report is `run`'s).
        let drained = up.synchronize().map_err(Error::cuda("waiting for the GPU", 0));
        let drained = drained.and(q.synchronize());
        run.and(drained)
    })
}

/// Slot `s`'s pinned pieces: the first operand's, the second's (two-operand
/// ops: `per_slot = 3`) and the result's.
fn pins<'s, W>(st: &'s mut [&mut [W]], s: usize, per_slot: usize) -> Pins<'s, W> {
    let mine = &mut st[s * per_slot..(s + 1) * per_slot];
    let (first, rest) = mine.split_at_mut(1);
    let (second, out) = rest.split_at_mut(per_slot - 2);
    (&mut *first[0], second.first_mut().map(|p| &mut **p), &mut *out[0])
}

/// A slot's pinned pieces ([`pins`]).
type Pins<'s, W> = (&'s mut [W], Option<&'s mut [W]>, &'s mut [W]);

/// Every tower's rows of polynomials `r` of `src` into the piece buffer `dst`.
fn gather<W: Coeff>(layout: Layout, r: &Range<usize>, src: &[W], dst: &mut [W]) {
    for (at, to, len) in rows(layout, r) {
        par_copy(&mut dst[to..to + len], &src[at..at + len]);
    }
}

/// The piece buffer `src` back into every tower's rows of polynomials `r`
/// of `dst`.
fn scatter<W: Coeff>(layout: Layout, r: &Range<usize>, src: &[W], dst: &mut [W]) {
    for (at, from, len) in rows(layout, r) {
        par_copy(&mut dst[at..at + len], &src[from..from + len]);
    }
}

/// The second operand of a split device call.
pub(crate) enum Second<'a, W: Coeff> {
    /// Read only (`pointwise_mul`'s `other`, `polymul_into`'s `b`).
    Shared(&'a DeviceView<W>),
    /// Scratch afterwards (`polymul_in_place`'s `b`).
    Clobbered(&'a mut DeviceView<W>),
}

/// The second operand of one piece, as the piece's computation gets it.
pub(crate) enum PieceB<'a, W: Coeff> {
    /// A one-operand call.
    None,
    /// Read only.
    Ref(&'a DeviceView<W>),
    /// Writable (a copy, or a sub-view of a clobbered operand).
    Mut(&'a mut DeviceView<W>),
}

impl<'a, W: Coeff> PieceB<'a, W> {
    /// The writable second operand of a product's piece (`device_call`
    /// hands one to calls that ask, `second_mut`); anything else is
    /// [`Error::LengthMismatch`] against `expected` words.
    pub(crate) fn writable(self, expected: usize) -> Result<&'a mut DeviceView<W>> {
        match self {
            PieceB::Mut(b) => Ok(b),
            PieceB::Ref(_) | PieceB::None => Err(Error::LengthMismatch { what: "b", got: 0, expected }),
        }
    }
}

/// A device-view call of `layout` (its batch above `max_batch`): `f` on
/// each piece of at most `max_batch` polynomials per tower — the first
/// operand `dst` (after `dst ← src` where `src` is given: an out-of-place
/// call), the second `second`'s (copied into a writable piece buffer if
/// `second_mut` and it is shared) — queued on `q`. One tower: sub-views,
/// no copies but those. Several towers (a piece's rows are not contiguous):
/// every piece gathered into device buffers, computed, the first operand
/// scattered back. Piece buffers are sized by [`budget`] (never below
/// [`min_piece`]: module docs); a call that made
/// any waits for its work before it frees them.
#[allow(clippy::too_many_arguments)] // one call's operands and its launcher
pub(crate) fn device_call<W: Coeff>(
    q: &Queue<'_>,
    layout: Layout,
    max_batch: usize,
    src: Option<&DeviceView<W>>,
    dst: &mut DeviceView<W>,
    mut second: Option<Second<'_, W>>,
    second_mut: bool,
    mut f: impl FnMut(&mut DeviceView<W>, PieceB<'_, W>) -> Result<()>,
) -> Result<()> {
    let n = layout.n;
    let strided = layout.towers > 1;
    // Piece buffers: the first operand's where strided; the second's where
    // strided or shared but written.
    let copy_b = match &second {
        Some(Second::Shared(_)) => strided || second_mut,
        Some(Second::Clobbered(_)) => strided,
        None => false,
    };
    let temps = usize::from(strided) + usize::from(copy_b);
    let piece = if temps == 0 {
        max_batch
    } else {
        let poly = layout.towers * n * std::mem::size_of::<W>();
        let by_memory = budget(q)? / poly.saturating_mul(temps).max(1);
        max_batch.min(by_memory.max(min_piece(poly)))
    };
    let pieces = Pieces::from(0, layout.batch, piece);
    let words = layout.towers * pieces.piece() * n;
    let bad = |len| Error::LengthMismatch { what: "piece", got: len, expected: layout.words() };
    let mut ta = if strided { Some(q.gpu.zeros::<W>(words)?) } else { None };
    let mut tb = if copy_b { Some(q.gpu.zeros::<W>(words)?) } else { None };
    let run = (|| {
        for r in pieces.iter() {
            let len = layout.towers * r.len() * n;
            let span = r.start * n..r.end * n;
            let b_piece = match (&mut second, tb.as_mut()) {
                (Some(Second::Shared(b)), Some(t)) => {
                    let t = t.get_mut(0..len).ok_or(bad(len))?;
                    gather_device(q, layout, &r, b, t)?;
                    PieceB::Mut(t)
                }
                (Some(Second::Clobbered(b)), Some(t)) => {
                    let t = t.get_mut(0..len).ok_or(bad(len))?;
                    gather_device(q, layout, &r, b, t)?;
                    PieceB::Mut(t)
                }
                (Some(Second::Clobbered(b)), None) => {
                    PieceB::Mut(b.get_mut(span.clone()).ok_or(bad(span.end))?)
                }
                (Some(Second::Shared(b)), None) => PieceB::Ref(b.get(span.clone()).ok_or(bad(span.end))?),
                (None, _) => PieceB::None,
            };
            match ta.as_mut() {
                Some(t) => {
                    let t = t.get_mut(0..len).ok_or(bad(len))?;
                    gather_device(q, layout, &r, src.unwrap_or(dst), t)?;
                    f(t, b_piece)?;
                    for (at, to, l) in rows(layout, &r) {
                        copy(
                            q,
                            t.get(to..to + l).ok_or(bad(l))?,
                            dst.get_mut(at..at + l).ok_or(bad(at + l))?,
                        )?;
                    }
                }
                None => {
                    let d = dst.get_mut(span.clone()).ok_or(bad(span.end))?;
                    if let Some(s) = src {
                        copy(q, s.get(span.clone()).ok_or(bad(span.end))?, d)?;
                    }
                    f(d, b_piece)?;
                }
            }
        }
        Ok(())
    })();
    if ta.is_some() || tb.is_some() {
        // The piece buffers are freed below: their work first.
        let drained = q.synchronize();
        return run.and(drained);
    }
    run
}

/// Queues every tower's rows of polynomials `r` of `src` into the piece
/// buffer `dst` (device copies on `q`).
fn gather_device<W: Coeff>(
    q: &Queue<'_>,
    layout: Layout,
    r: &Range<usize>,
    src: &DeviceView<W>,
    dst: &mut DeviceView<W>,
) -> Result<()> {
    for (at, to, l) in rows(layout, r) {
        let bad = Error::LengthMismatch { what: "piece", got: at + l, expected: src.len() };
        let from = src.get(at..at + l).ok_or(bad)?;
        let into =
            dst.get_mut(to..to + l).ok_or(Error::LengthMismatch { what: "piece", got: l, expected: 0 })?;
        copy(q, from, into)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every polynomial exactly once, in order, no piece empty or above
    /// `piece`.
    fn covers(p: &Pieces, batch: usize) {
        let mut next = p.start;
        for r in p.iter() {
            assert_eq!(r.start, next, "{p:?}");
            assert!(!r.is_empty() && r.len() <= p.piece(), "{p:?}: {r:?}");
            next = r.end;
        }
        assert_eq!(next, batch, "{p:?}");
    }

    fn limits(max_batch: usize, poly_bytes: usize, budget: usize) -> Limits {
        Limits { max_batch, poly_bytes, whole_buffers: 2, piece_buffers: 4, budget, target: 0 }
    }

    #[test]
    fn pieces_cover_every_polynomial_once() {
        for batch in [1usize, 2, 3, 7, 64, 4095, 4096, 4097, 1 << 20] {
            for piece in [1usize, 2, 3, 5, 64, 4095, 4096, usize::MAX] {
                let p = Pieces::from(0, batch, piece);
                covers(&p, batch);
                assert_eq!(p.len(), batch.div_ceil(piece.min(batch).max(1)));
            }
            for start in [0, 1, batch / 2, batch] {
                covers(&Pieces::from(start, batch, 3), batch);
            }
        }
        // A piece of 0 is one polynomial, never an endless schedule.
        assert_eq!(Pieces::from(0, 5, 0).len(), 5);
    }

    #[test]
    fn plan_keeps_a_batch_that_fits_whole() {
        // N = 2^20 u32: 4 MiB per polynomial, 4095 per launch.
        let max = crate::params::max_batch(1 << 20);
        assert_eq!(max, 4095);
        let l = limits(max, 4 << 20, usize::MAX);
        for batch in [1, 2, max - 1, max] {
            let p = Pieces::plan(batch, &l);
            assert!(p.is_whole() && p.len() == 1, "{batch}: {p:?}");
        }
    }

    #[test]
    fn plan_splits_above_the_launch_limit() {
        let max = crate::params::max_batch(1 << 20);
        let l = limits(max, 4 << 20, usize::MAX);
        for batch in [max + 1, 2 * max, 2 * max + 1, 10 * max + 7, usize::MAX / 2] {
            let p = Pieces::plan(batch, &l);
            assert!(!p.is_whole() && p.piece() <= max, "{batch}: {p:?}");
            assert_eq!(p.len(), batch.div_ceil(max));
            if batch < 1 << 20 {
                covers(&p, batch);
            }
        }
    }

    #[test]
    fn plan_splits_what_does_not_fit_the_memory() {
        // 1 MiB polynomials, a 100 MiB budget: 50 fit whole (2 buffers),
        // pieces of 25 (two slots of 2 buffers).
        let l = limits(1 << 30, 1 << 20, 100 << 20);
        assert!(Pieces::plan(50, &l).is_whole());
        let p = Pieces::plan(51, &l);
        assert_eq!(p.piece(), 25);
        covers(&p, 51);
        // Within the budget at every piece: 4 buffers of 25 MiB.
        assert!(p.piece() * (1 << 20) * l.piece_buffers <= l.budget);
        // No memory at all still makes progress, one polynomial at a time
        // where a polynomial is at least the smallest piece (1 MiB).
        let none = limits(1 << 30, 1 << 20, 0);
        let p = Pieces::plan(3, &none);
        assert_eq!((p.piece(), p.len()), (1, 3));
        // The target caps the pieces: a batch of at most `target` bytes per
        // operand runs whole, a larger one pipelined even where it fits.
        let t = Limits { target: 8 << 20, ..limits(1 << 30, 1 << 20, 100 << 20) };
        assert!(Pieces::plan(8, &t).is_whole());
        for batch in [9, 50, 51] {
            let p = Pieces::plan(batch, &t);
            assert!(!p.is_whole() && p.piece() == 8, "{batch}: {p:?}");
            covers(&p, batch);
        }
        // A polynomial above the target is still a piece of one.
        let big = Limits { target: 1, ..t };
        assert_eq!(Pieces::plan(51, &big).piece(), 1);
    }

    #[test]
    fn pieces_of_small_polynomials_do_not_shrink_below_a_mib() {
        // The soak's stalled call (2026-11-26): u64 N = 2 (16 bytes per
        // polynomial), 11,351,867 polynomials, planned with no memory free.
        let batch = 11_351_867;
        let l = Limits { target: piece_target(batch * 16), ..limits(1 << 31, 16, 0) };
        let p = Pieces::plan(batch, &l);
        assert_eq!(min_piece(16), 1 << 16);
        assert_eq!(p.piece(), 1 << 16, "{p:?}");
        assert_eq!(p.len(), batch.div_ceil(1 << 16));
        covers(&p, batch);
        // The floor is per operand of every tower: 40 towers of u32 N = 2^4
        // are 2560 bytes a polynomial.
        assert_eq!(min_piece(40 * 16 * 4), (1 << 20) / 2560);
        // Polynomials of a MiB or more: one per piece at the least.
        assert_eq!(min_piece(1 << 20), 1);
        assert_eq!(min_piece(usize::MAX), 1);
        assert_eq!(min_piece(0), 1 << 20);
        // The launch limit still caps the floor.
        assert_eq!(Pieces::plan(1 << 20, &limits(1000, 16, 0)).piece(), 1000);
    }

    #[test]
    fn running_out_of_memory_halves_down_to_the_floor() {
        // From a whole batch of 1000: 500, 250, 125, 63, 32, then the floor
        // of 20, then the error.
        let mut p = Pieces::from(0, 1000, 1000);
        let mut seen = Vec::new();
        let mut done = 0;
        while let Some(next) = p.shrunk(done, 20) {
            assert!(next.piece() < p.piece().min(1000) && next.piece() >= 20, "{p:?} → {next:?}");
            assert_eq!(next.get(0).start, done);
            covers(&next, 1000);
            seen.push(next.piece());
            p = next;
            done = (done + 7).min(1000);
        }
        assert_eq!(seen, [500, 250, 125, 63, 32, 20]);
        // At one polynomial (a floor of 1 or 0) the call gives up.
        assert_eq!(Pieces::from(0, 9, 1).shrunk(0, 1), None);
        assert_eq!(Pieces::from(0, 9, 1).shrunk(0, 0), None);
        assert_eq!(Pieces::from(0, 9, 2).shrunk(4, 0), Some(Pieces::from(4, 9, 1)));
        // A batch at or below the floor is not split at all.
        assert_eq!(Pieces::from(0, 15, 15).shrunk(0, 20), None);
    }

    #[test]
    fn small_calls_run_whole_and_larger_ones_in_at_least_two_pieces() {
        assert_eq!(piece_target(0), 0);
        assert_eq!(piece_target(WHOLE_BYTES), 0);
        assert_eq!(piece_target(WHOLE_BYTES + 1), WHOLE_BYTES);
        assert_eq!(piece_target(32 << 20), 8 << 20);
        assert_eq!(piece_target(1 << 40), TARGET_PIECE_BYTES);
        // u64 N = 2^12 (32 KiB polynomials) in a budget that fits anything.
        let l = |batch: usize| Limits {
            target: piece_target(batch * (32 << 10)),
            ..limits(usize::MAX, 32 << 10, usize::MAX)
        };
        assert!(Pieces::plan(32, &l(32)).is_whole());
        for batch in [33, 100, 1000, 1 << 20] {
            let p = Pieces::plan(batch, &l(batch));
            assert!(!p.is_whole() && p.len() >= 2, "{batch}: {p:?}");
            assert!(p.piece() * (32 << 10) <= TARGET_PIECE_BYTES);
            covers(&p, batch);
        }
    }

    #[test]
    fn plan_never_overflows() {
        let l = Limits {
            max_batch: usize::MAX,
            poly_bytes: usize::MAX,
            whole_buffers: usize::MAX,
            piece_buffers: usize::MAX,
            budget: usize::MAX - 1,
            target: usize::MAX,
        };
        // Every product saturates: above the budget, so split, one at a time.
        let p = Pieces::plan(usize::MAX, &l);
        assert_eq!(p.piece(), 1);
        assert_eq!(p.get(0), 0..1);
        assert_eq!(p.get(p.len() - 1).end, usize::MAX);
        // A huge batch of small polynomials: pieces of max_batch, the last
        // one ends at the batch.
        let p = Pieces::plan(usize::MAX, &limits(4095, 1, usize::MAX));
        assert_eq!((p.piece(), p.len()), (4095, usize::MAX.div_ceil(4095)));
        assert_eq!(p.get(p.len() - 1).end, usize::MAX);
        assert!(p.get(p.len() - 1).len() <= 4095);
    }

    #[test]
    fn rows_address_every_tower() {
        let layout = Layout { n: 4, towers: 3, batch: 5 };
        let r: Vec<_> = rows(layout, &(2..4)).collect();
        // Tower t's polynomials 2..4 start at t·20 + 8; in the piece at t·8.
        assert_eq!(r, vec![(8, 0, 8), (28, 8, 8), (48, 16, 8)]);
        // Gather then scatter is the identity on those words, and only those.
        let src: Vec<u32> = (0..60).collect();
        let mut piece = vec![0u32; 24];
        gather(layout, &(2..4), &src, &mut piece);
        assert_eq!(&piece[..8], &src[8..16]);
        assert_eq!(&piece[16..], &src[48..56]);
        let mut back = vec![u32::MAX; 60];
        scatter(layout, &(2..4), &piece, &mut back);
        for (i, (&b, &s)) in back.iter().zip(&src).enumerate() {
            let inside = (8..16).contains(&(i % 20));
            assert_eq!(b, if inside { s } else { u32::MAX }, "word {i}");
        }
    }
}
