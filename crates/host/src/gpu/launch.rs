//! Every kernel launch of polymul, in one place.
//!
//! Each function takes validated arguments (the plan checked lengths, batch
//! sizes and moduli), computes the grid, fills the kernel's argument block
//! (the `#[repr(C)]` struct polymul-kernels defines for it) and queues the
//! kernel on the plan's stream through [`TypedKernel`], which was looked up
//! from the kernel's identifier (`polymul_kernels::names`) and takes only
//! that block. Launch errors are returned; errors inside a kernel surface at
//! the next synchronisation.

use super::cluster::ClusterLaunch;
use super::kernel::{Kernel, TypedKernel};
use super::{DeviceVec, Gpu};
use crate::plan::lazy::{LazyPass, LazySchedule};
use crate::reduction::{DevicePrepared, Reduction};
use crate::{Coeff, Error, Result};
use cust::function::{BlockSize, GridSize};
use cust::memory::DevicePointer;
use cust::stream::{Stream, StreamFlags};
use polymul_kernels::BLOCK_THREADS;
use polymul_kernels::arith::Barrett4;
use polymul_kernels::arith::harvey::ShoupPair;
use polymul_kernels::dgt::pass::{DgtArgs, DgtCodecArgs, DgtPointwiseArgs};
use polymul_kernels::microbench::ModMulBenchArgs;
use polymul_kernels::names;
use polymul_kernels::ntt::cluster::ClusterShape;
use polymul_kernels::ntt::lazy::{self, LaunchArgs};
use polymul_kernels::ntt::radix2::{Radix2Args, Twiddles};
use polymul_kernels::ntt::tiled::{self, TileGeometry, TiledArgs};
use polymul_kernels::pointwise::{FusedHadamardArgs, PointwiseArgs};
use polymul_kernels::smem::padded_words;
use polymul_kernels::towers::Towers;

/// Where a launch goes: the GPU (its context) and the stream to queue on
/// (the GPU's own, or one a plan was bound to).
#[derive(Clone, Copy)]
pub(crate) struct Queue<'a> {
    pub gpu: &'a Gpu,
    pub stream: &'a Stream,
}

impl<'a> Queue<'a> {
    /// The GPU's own stream.
    pub(crate) fn of(gpu: &'a Gpu) -> Self {
        Self { gpu, stream: gpu.stream() }
    }

    /// A plan's queue: its bound stream, else the GPU's own.
    pub(crate) fn on(gpu: &'a Gpu, stream: Option<&'a super::GpuStream>) -> Self {
        match stream {
            Some(s) => Self { gpu, stream: &s.inner },
            None => Self::of(gpu),
        }
    }

    /// Waits for the work queued here.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.gpu.bind()?;
        self.stream.synchronize().map_err(Error::cuda("waiting for the GPU", 0))
    }

    /// Copies `v` back after the work queued here.
    pub(crate) fn download<W: Coeff>(&self, v: &DeviceVec<W>) -> Result<Vec<W>> {
        self.synchronize()?;
        self.gpu.download(v)
    }
}

/// A device pointer as the raw pointer an argument block holds.
fn raw_mut<W: Coeff>(p: DevicePointer<W>) -> *mut W {
    p.as_raw() as *mut W
}

/// A device pointer as the raw pointer an argument block holds.
fn raw<W: Coeff>(p: DevicePointer<W>) -> *const W {
    p.as_raw() as *const W
}

/// Kernel handles one plan needs, looked up once at plan creation.
pub(crate) struct Radix2Kernels<W> {
    fwd: TypedKernel<Radix2Args<W>>,
    inv: TypedKernel<Radix2Args<W>>,
    mul: TypedKernel<PointwiseArgs<W>>,
}

impl<W: Coeff> Radix2Kernels<W> {
    pub(crate) fn new(gpu: &Gpu, reduction: Reduction) -> Result<Self> {
        let r = reduction.kind();
        Ok(Self {
            fwd: TypedKernel::get::<W, _>(gpu, names::Radix2Kernel { inverse: false, reduction: r })?,
            inv: TypedKernel::get::<W, _>(gpu, names::Radix2Kernel { inverse: true, reduction: r })?,
            mul: TypedKernel::get::<W, _>(gpu, names::PointwiseKernel)?,
        })
    }
}

/// The shared-memory pass kernels of one plan.
pub(crate) struct TiledKernels<W> {
    fwd: TypedKernel<TiledArgs<W>>,
    inv: TypedKernel<TiledArgs<W>>,
    /// Threads per block the kernels' register use allows.
    max_threads: u32,
}

impl<W: Coeff> TiledKernels<W> {
    /// Looks the kernels up and lets them use `tile_bytes` of dynamic shared
    /// memory (above 48 KiB a kernel must opt in).
    pub(crate) fn new(gpu: &Gpu, reduction: Reduction, log_radix: u32, tile_bytes: usize) -> Result<Self> {
        let reduction = reduction.kind();
        let kernel =
            |inverse| TypedKernel::get::<W, _>(gpu, names::TiledKernel { inverse, log_radix, reduction });
        let (fwd, inv) = (kernel(false)?, kernel(true)?);
        // The most threads a block may have with these kernels' registers.
        let max_threads = [&fwd, &inv]
            .iter()
            .map(|f| f.get_attribute(cust::function::FunctionAttribute::MaxThreadsPerBlock).unwrap_or(32))
            .min()
            .unwrap_or(32)
            .max(32) as u32;
        // A power of two, so that every step's units split evenly over the
        // block's threads.
        let max_threads = 1u32 << max_threads.ilog2();
        let k = Self { fwd, inv, max_threads };
        // The kernels pad the tile against bank conflicts.
        let w = std::mem::size_of::<W>();
        let tile_bytes = padded_words(tile_bytes / w, w) * w;
        if tile_bytes > 48 * 1024 {
            for f in [&k.fwd, &k.inv] {
                // The size was checked against the device's opt-in limit by the plan.
                if set_max_dynamic_smem(f, tile_bytes as u32) != cust::sys::cudaError_enum::CUDA_SUCCESS {
                    let max = gpu.info().max_shared_per_block;
                    return Err(Error::BadTile { bytes: tile_bytes, min: 2 * std::mem::size_of::<W>(), max });
                }
            }
        }
        Ok(k)
    }
}

/// How a tiled transform runs: geometry, radix and direct global I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TiledLaunch {
    pub geo: TileGeometry,
    pub log_radix: u32,
    pub direct: bool,
    /// Stages run: `log_n`, or `log_n − 1` for the fused polymul's
    /// truncated transforms.
    pub stop: u32,
}

/// The RNS tower arguments of a launch (`polymul_kernels::towers`): block
/// row `y` of the grid is tower `y`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TowerLaunch<W: Coeff> {
    /// The constants table, null for one tower.
    pub moduli: DevicePointer<W>,
    /// Towers = block rows of the grid.
    pub rows: u32,
    /// Words between consecutive towers' data.
    pub data_words: u64,
    /// Words between consecutive towers' twiddle tables.
    pub tw_words: u32,
}

impl<W: Coeff> TowerLaunch<W> {
    /// The kernels' tower arguments.
    fn towers(&self) -> Towers<W> {
        Towers { moduli: raw(self.moduli), data_words: self.data_words, tw_words: self.tw_words }
    }
}

/// A CUDA event owned through the raw driver API (cust's `Event` cannot be
/// waited on without being consumed).
struct RawEvent(cust::sys::CUevent);

// SAFETY: a driver handle, usable from any thread while its context is
// current (every use binds it first); `Pipeline`'s owner serialises use.
unsafe impl Send for RawEvent {}

impl RawEvent {
    fn new() -> Result<Self> {
        let mut e = std::ptr::null_mut();
        // SAFETY: out-parameter call; the context is current (caller).
        let rc = unsafe {
            cust::sys::cuEventCreate(&mut e, cust::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32)
        };
        check(rc, "creating an event")?;
        Ok(Self(e))
    }

    fn record(&self, stream: &Stream) -> Result<()> {
        // SAFETY: both handles are alive.
        check(unsafe { cust::sys::cuEventRecord(self.0, stream.as_inner()) }, "recording an event")
    }
}

impl Drop for RawEvent {
    fn drop(&mut self) {
        // SAFETY: created by cuEventCreate, destroyed once.
        unsafe { cust::sys::cuEventDestroy_v2(self.0) };
    }
}

/// Raises `f`'s dynamic shared-memory limit to `bytes` (above the default
/// 48 KiB needs this opt-in); the driver's status.
fn set_max_dynamic_smem(f: &Kernel, bytes: u32) -> cust::sys::CUresult {
    // SAFETY: `f` is a live function handle of a loaded module; the call
    // only sets one of its attributes.
    unsafe {
        cust::sys::cuFuncSetAttribute(
            f.to_raw(),
            cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    }
}

fn check(rc: cust::sys::CUresult, during: &'static str) -> Result<()> {
    if rc == cust::sys::cudaError_enum::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(Error::CudaCode { during, code: rc as i32 })
    }
}

/// Two streams and the events that fork work off the GPU's stream and join
/// it back: what the pipelined 2D NTT runs on.
pub(crate) struct Pipeline {
    // Events before streams: dropped first.
    fork: RawEvent,
    joins: [RawEvent; 2],
    streams: [Stream; 2],
}

impl Pipeline {
    pub(crate) fn new(gpu: &Gpu) -> Result<Self> {
        gpu.bind()?;
        let stream =
            || Stream::new(StreamFlags::NON_BLOCKING, None).map_err(Error::cuda("creating a stream", 0));
        Ok(Self {
            streams: [stream()?, stream()?],
            fork: RawEvent::new()?,
            joins: [RawEvent::new()?, RawEvent::new()?],
        })
    }
}

/// `stream` waits for `event`.
fn wait(stream: &Stream, event: &RawEvent) -> Result<()> {
    // SAFETY: both handles are alive; the driver only reads them.
    check(unsafe { cust::sys::cuStreamWaitEvent(stream.as_inner(), event.0, 0) }, "ordering streams")
}

/// Queues the passes of a shared-memory transform of `batch` polynomials
/// starting at `a` on `q`: forward = strided pass (if the geometry has
/// one) then contiguous pass; inverse = the reverse.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
fn tiled_passes<W: Coeff>(
    k: &TiledKernels<W>,
    dir: Direction,
    a: DevicePointer<W>,
    tw: &DevicePrepared<W>,
    batch: usize,
    cfg: &TiledLaunch,
    q: &Queue<'_>,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    let geo = &cfg.geo;
    let (f, order): (&TypedKernel<TiledArgs<W>>, &[u32]) = match (geo.l1 > 0, dir) {
        (false, Direction::Forward) => (&k.fwd, &[0]),
        (false, Direction::Inverse) => (&k.inv, &[0]),
        (true, Direction::Forward) => (&k.fwd, &[1, 0]),
        (true, Direction::Inverse) => (&k.inv, &[0, 1]),
    };
    let grid = ((batch * geo.blocks_per_poly()) as u32, towers.rows);
    let threads = tiled::block_threads(geo.log_tile, cfg.log_radix).min(k.max_threads);
    let w = std::mem::size_of::<W>();
    let smem = (padded_words(1usize << geo.log_tile, w) * w) as u32;
    let (q_, k_, m) = tw.parts;
    let mut args = TiledArgs {
        a: raw_mut(a),
        tw: twiddles(tw),
        towers: towers.towers(),
        geo: *geo,
        strided: 0,
        log_radix: cfg.log_radix,
        direct: u32::from(cfg.direct),
        stop: cfg.stop,
        m,
        q: q_,
        k: k_,
    };
    for &strided in order {
        args.strided = strided;
        // SAFETY: the plan validated the geometry (tile within the device's
        // shared memory, l1 <= log_tile, radix 2..=16) and `a` points at
        // batch·N words.
        unsafe { f.launch(q, grid, threads, smem, &args, "launching a shared-memory NTT pass")? };
    }
    Ok(())
}

/// Queues a shared-memory transform of the whole batch on the GPU's stream.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn tiled_ntt<W: Coeff>(
    q: Queue<'_>,
    k: &TiledKernels<W>,
    dir: Direction,
    data: &mut DeviceVec<W>,
    tw: &DevicePrepared<W>,
    batch: usize,
    cfg: &TiledLaunch,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    tiled_passes(k, dir, data.buf.as_device_ptr(), tw, batch, cfg, &q, towers)
}

/// Queues a transform polynomial by polynomial, alternating between the
/// pipeline's two streams, so that one polynomial's second pass overlaps the
/// next one's first pass; the GPU's stream waits for both at the end.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn tiled_ntt_pipelined<W: Coeff>(
    q: Queue<'_>,
    k: &TiledKernels<W>,
    dir: Direction,
    data: &mut DeviceVec<W>,
    tw: &DevicePrepared<W>,
    batch: usize,
    cfg: &TiledLaunch,
    pipe: &Pipeline,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    pipe.fork.record(q.stream)?;
    for s in &pipe.streams {
        wait(s, &pipe.fork)?;
    }
    let n = 1usize << cfg.geo.log_n;
    let base = data.buf.as_device_ptr();
    for i in 0..batch {
        // Polynomial i of the batch in every tower (i·N < one tower's
        // words, checked by the plan).
        let a = base.wrapping_add(i * n);
        let on = Queue { gpu: q.gpu, stream: &pipe.streams[i % 2] };
        tiled_passes(k, dir, a, tw, 1, cfg, &on, towers)?;
    }
    for (s, e) in pipe.streams.iter().zip(&pipe.joins) {
        e.record(s)?;
        wait(q.stream, e)?;
    }
    Ok(())
}

fn blocks(threads: u32) -> u32 {
    threads.div_ceil(BLOCK_THREADS)
}

fn aux_ptr<W: Coeff>(aux: &Option<DeviceVec<W>>) -> DevicePointer<W> {
    aux.as_ref().map_or(DevicePointer::null(), |a| a.buf.as_device_ptr())
}

/// A prepared table as the kernels' [`Twiddles`] (a null auxiliary table
/// where the reduction needs none).
fn twiddles<W: Coeff>(tw: &DevicePrepared<W>) -> Twiddles<W> {
    Twiddles { main: raw(tw.main.buf.as_device_ptr()), aux: raw(aux_ptr(&tw.aux)) }
}

/// Direction of a transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Forward,
    Inverse,
}

/// Queues stages `stages` of a radix-2 transform of `batch` polynomials per
/// tower in `data` (forward in increasing, inverse in decreasing order).
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn radix2_ntt<W: Coeff>(
    q: Queue<'_>,
    k: &Radix2Kernels<W>,
    dir: Direction,
    data: &mut DeviceVec<W>,
    tw: &DevicePrepared<W>,
    batch: usize,
    log_n: u32,
    stages: std::ops::Range<u32>,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let total = (batch << (log_n - 1)) as u32;
    let (f, stages): (_, Vec<u32>) = match dir {
        Direction::Forward => (&k.fwd, stages.collect()),
        Direction::Inverse => (&k.inv, stages.rev().collect()),
    };
    let grid = (blocks(total), towers.rows);
    let (q_, k_, m) = tw.parts;
    let mut args = Radix2Args {
        a: raw_mut(data.buf.as_device_ptr()),
        tw: twiddles(tw),
        towers: towers.towers(),
        total,
        log_n,
        log_m: 0,
        m,
        q: q_,
        k: k_,
    };
    for log_m in stages {
        args.log_m = log_m;
        // SAFETY: the plan sized `data` to batch·N and the twiddle tables to N
        // words; the kernel touches only indices below those.
        unsafe { f.launch(&q, grid, BLOCK_THREADS, 0, &args, "launching an NTT stage")? };
    }
    Ok(())
}

/// The lazy NTT's pass kernels of one plan (`plan::lazy`), looked up once,
/// with their dynamic shared-memory limit raised where a tile needs it.
pub(crate) struct LazyKernels<W> {
    forward: Vec<LazyPassKernel<W>>,
    inverse: Vec<LazyPassKernel<W>>,
    product: LazyPassKernel<W>,
}

/// One lazy pass's kernel and the pass it runs.
type LazyPassKernel<W> = (TypedKernel<LaunchArgs<W>>, LazyPass);

impl<W: Coeff> LazyKernels<W> {
    pub(crate) fn new(gpu: &Gpu, sched: &LazySchedule) -> Result<Self> {
        let lookup = |passes: &[LazyPass]| -> Result<Vec<LazyPassKernel<W>>> {
            passes
                .iter()
                .map(|p| {
                    let f = TypedKernel::get::<W, _>(gpu, p.kernel)?;
                    let bytes = p.smem_bytes::<W>();
                    if bytes > 48 * 1024 {
                        // At most 128 KiB plus padding (the `u32` product
                        // pass of 2^14 words, `b` in a second tile): the plan
                        // checked it against the GPU's opt-in limit.
                        check(
                            set_max_dynamic_smem(&f, bytes),
                            "raising a lazy kernel's shared-memory limit",
                        )?;
                    }
                    Ok((f, *p))
                })
                .collect()
        };
        let mut product = lookup(std::slice::from_ref(&sched.product))?;
        Ok(Self {
            forward: lookup(&sched.forward)?,
            inverse: lookup(&sched.inverse)?,
            product: product.remove(0),
        })
    }

    /// Passes of one direction.
    pub(crate) fn passes(&self, inverse: bool) -> usize {
        if inverse { self.inverse.len() } else { self.forward.len() }
    }

    /// `log2` of the row pass's radix.
    pub(crate) fn row_log_r(&self) -> u32 {
        self.forward.last().map_or(0, |(_, p)| p.kernel.log_r)
    }
}

/// The device side of a lazy plan's launches: both directions' tables
/// (`tw_pairs` pairs per tower), the tower table and tower 0's constants.
#[derive(Clone, Copy)]
pub(crate) struct LazyTables<W: Coeff> {
    pub fwd: DevicePointer<W>,
    pub inv: DevicePointer<W>,
    pub tw_pairs: u32,
    /// Tower 0's modulus and Algorithm-4 constants (the scalars of a
    /// one-tower launch).
    pub barrett: Barrett4<W>,
}

impl<W: Coeff> LazyTables<W> {
    /// The argument block of a lazy or cluster launch over `data` (`b`: the
    /// second operand, or null) with these tables and `towers`.
    fn launch_args(
        &self,
        data: DevicePointer<W>,
        b: DevicePointer<W>,
        log_n: u32,
        subs: u32,
        log_polys: u32,
        towers: &TowerLaunch<W>,
    ) -> LaunchArgs<W> {
        LaunchArgs {
            data: data.as_raw() as *mut W,
            tw: self.fwd.as_raw() as *const ShoupPair<W>,
            tw_inv: self.inv.as_raw() as *const ShoupPair<W>,
            moduli: towers.moduli.as_raw() as *const W,
            data_words: towers.data_words,
            tw_pairs: self.tw_pairs,
            log_n,
            subs,
            qbits: self.barrett.m,
            log_polys,
            q: self.barrett.q,
            mu: self.barrett.mu,
            b: b.as_raw() as *const W,
            ctrl: std::ptr::null_mut(),
            lag: 0,
        }
    }
}

/// Queues one lazy pass kernel over `batch` polynomials per tower of `data`
/// (`b`: the product pass's second operand, else null).
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
fn lazy_pass<W: Coeff>(
    q: &Queue<'_>,
    (f, p): &LazyPassKernel<W>,
    data: DevicePointer<W>,
    b: DevicePointer<W>,
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    let args = t.launch_args(data, b, log_n, p.subs(log_n, batch), p.log_polys(log_n, batch), towers);
    // A forward pass with a second operand transforms both (twice the blocks).
    let operands = if p.kernel.mode == lazy::FORWARD && !b.is_null() { 2 } else { 1 };
    let blocks = p.blocks(log_n, batch) * operands;
    let (threads, smem) = (p.shape.threads(), p.smem_bytes::<W>());
    // SAFETY: the plan sized `data` (and `b`) to batch·N words per tower,
    // the tables to `tw_pairs` pairs per tower and the constants table to
    // the grid's rows. A pass kernel waits for its predecessor before any
    // global access (`grid_dependency_sync`), so it may be a programmatic
    // dependent.
    unsafe { f.launch_dependent(q, (blocks, towers.rows), threads, smem, &args, "launching a lazy NTT pass") }
}

/// Queues a lazy transform of `batch` polynomials per tower of `a` (the
/// plan sized it to `batch · N` words per tower): its one or two passes,
/// each one launch over every tower.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn lazy_ntt<W: Coeff>(
    q: Queue<'_>,
    k: &LazyKernels<W>,
    dir: Direction,
    a: DevicePointer<W>,
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let passes = match dir {
        Direction::Forward => &k.forward,
        Direction::Inverse => &k.inverse,
    };
    for p in passes {
        lazy_pass(&q, p, a, DevicePointer::null(), t, batch, log_n, towers)?;
    }
    Ok(())
}

/// The fused two-pass kernels of a plan (`lazy::fused_item`: both passes
/// in one launch, the intermediate words in L2) and the control words they
/// count in.
pub(crate) struct FusedKernels<W> {
    fwd: TypedKernel<LaunchArgs<W>>,
    inv: TypedKernel<LaunchArgs<W>>,
    smem: u32,
    per_poly: u32,
    /// The row pass's shape (its blocks may hold rows of several
    /// polynomials; both passes have its threads).
    row: lazy::Shape,
    /// Whether row blocks take rows of several polynomials (`lazy::row_of`).
    several_polys: bool,
    /// Blocks of one kernel that fit the GPU at once.
    resident: u32,
    /// `lazy::fused_ctrl_words(batch)` zero words per tower, for the
    /// largest `batch · towers` launched so far (grown on demand, zeroed on
    /// the launch's stream; the kernels leave them zero).
    ctrl: super::graph::GrowBuffer<u32>,
}

/// `POLYMUL_LAZY_FUSED`, read when a plan is created (for comparing
/// variants in one process): `0` = no fused kernels, `one` = one polynomial
/// per row block, anything else or unset = the default.
fn fused_setting() -> String {
    std::env::var("POLYMUL_LAZY_FUSED").unwrap_or_default()
}

impl<W: Coeff> FusedKernels<W> {
    /// The fused kernels for `sched` (their passes must be the schedule's:
    /// one radix for both, the row pass's, so the tables fit), or `None`.
    pub(crate) fn new(gpu: &Gpu, sched: &LazySchedule) -> Result<Option<Self>> {
        let w = std::mem::size_of::<W>();
        let log_r = sched.row_shape().log_r;
        let setting = fused_setting();
        if setting == "0" || sched.forward.len() != 2 || !lazy::fused_sizes(w).contains(&sched.log_n) {
            return Ok(None);
        }
        let kernel = |inverse| {
            TypedKernel::get::<W, _>(gpu, names::FusedKernel { inverse, log_n: sched.log_n, log_r })
        };
        let (Ok(fwd), Ok(inv)) = (kernel(false), kernel(true)) else {
            return Ok(None);
        };
        let (col, row) = (sched.forward[0].shape, sched.row_shape());
        let col = lazy::Shape::new(col.l, log_r, true, w);
        let smem = lazy::fused_smem_words(col, row, w) * w as u32 + 16;
        let mut per_sm = u32::MAX;
        for f in [&fwd, &inv] {
            if smem > 48 * 1024 {
                check(set_max_dynamic_smem(f, smem), "raising a fused kernel's shared-memory limit")?;
            }
            let n = f
                .max_active_blocks_per_multiprocessor(BlockSize::x(row.threads()), smem as usize)
                .map_err(Error::cuda("sizing a fused lazy kernel", 0))?;
            per_sm = per_sm.min(n);
        }
        let resident = per_sm.max(1) * gpu.info().multiprocessors.max(1) as u32;
        Ok(Some(Self {
            fwd,
            inv,
            smem,
            per_poly: lazy::fused_per_poly(sched.log_n, w),
            row,
            several_polys: setting != "one",
            resident,
            ctrl: super::graph::GrowBuffer::new(),
        }))
    }

    /// The lag (polynomials) between a polynomial's two passes: its
    /// first-pass blocks take their tickets about 1.5 GPUs' worth of blocks
    /// before its second-pass blocks do, so the second pass rarely waits
    /// (H100, `u32` N = 2^16, batch 512: a lag of 24 to 48 polynomials ran
    /// the same, 12 and 4 were 13% and 24% slower).
    fn lag(&self) -> u32 {
        // At least a row block's polynomials (`lazy::fused_item`).
        (3 * self.resident).div_ceil(4 * self.per_poly).max(1 << lazy::ROW_POLYS_LOG_MAX)
    }

    /// Retires the control words (the next fused launch allocates new ones,
    /// the old stay allocated while the plan lives), so launches on
    /// different streams never count in the same words.
    pub(crate) fn release_ctrl(&self) {
        self.ctrl.retire();
    }

    /// Whether a transform of `batch` polynomials per tower runs fused: when
    /// most of its polynomials' passes overlap (at least twice the lag).
    /// Below, every second-pass block would wait for first-pass blocks that
    /// started with it (H100, `u32` N = 2^16, batch 32: fused 27.2 / 26.4
    /// µs against 25.3 / 22.5 µs for the two launches).
    pub(crate) fn wants(&self, batch: usize) -> bool {
        batch >= 2 * self.lag() as usize
    }
}

/// Queues a fused lazy transform of `batch` polynomials per tower.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn fused_ntt<W: Coeff>(
    q: Queue<'_>,
    k: &FusedKernels<W>,
    dir: Direction,
    data: &mut DeviceVec<W>,
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let words = lazy::fused_ctrl_words(batch) * towers.rows as usize;
    let ctrl = k.ctrl.at_least(&q, words)?;
    let lp = if k.several_polys { lazy::row_polys_log(k.row, log_n, batch) } else { 0 };
    let mut args =
        t.launch_args(data.buf.as_device_ptr(), DevicePointer::null(), log_n, batch as u32, lp, towers);
    args.ctrl = ctrl.as_raw() as *mut u32;
    args.lag = k.lag();
    let f = match dir {
        Direction::Forward => &k.fwd,
        Direction::Inverse => &k.inv,
    };
    let grid = GridSize::xy(2 * batch as u32 * k.per_poly, towers.rows);
    // SAFETY: the plan sized `data` to batch·N words per tower and the
    // tables to `tw_pairs` pairs per tower; `ctrl` holds
    // fused_ctrl_words(batch) zero words per tower (zeroed on this stream
    // when allocated; the kernels leave them zero), and stays allocated
    // while the plan lives (`GrowBuffer`); the grid is every ticket of
    // every tower.
    unsafe { f.launch(&q, grid, k.row.threads(), k.smem, &args, "launching a fused lazy NTT") }
}

/// The one-pass cluster kernels of a plan (`polymul_kernels::ntt::cluster`)
/// and the driver entry point that launches them.
pub(crate) struct ClusterKernels<W> {
    fwd: TypedKernel<LaunchArgs<W>>,
    inv: TypedKernel<LaunchArgs<W>>,
    shape: ClusterShape,
    launcher: ClusterLaunch,
}

impl<W: Coeff> ClusterKernels<W> {
    /// The kernels for `2^log_n` words at radix `2^log_r`, or `None` where
    /// there are none: no cluster shape for N, no cluster launch on this
    /// GPU or driver, or a module without them (PTX below sm_90).
    pub(crate) fn new(gpu: &Gpu, log_n: u32, log_r: u32) -> Result<Option<Self>> {
        let Some(&(_, l1, log_cs)) = polymul_kernels::ntt::cluster::SHAPES.iter().find(|s| s.0 == log_n)
        else {
            return Ok(None);
        };
        let Some(launcher) = gpu.cluster_launch() else { return Ok(None) };
        let kernel = |inverse| TypedKernel::get::<W, _>(gpu, names::ClusterKernel { inverse, log_n, log_r });
        let (Ok(fwd), Ok(inv)) = (kernel(false), kernel(true)) else {
            return Ok(None);
        };
        let shape = ClusterShape::new(log_n, l1, log_cs, log_r);
        let bytes = Self::smem_bytes(&shape);
        for f in [&fwd, &inv] {
            // At most 2 × 66 KiB, below sm_90's 227 KiB opt-in limit.
            if set_max_dynamic_smem(f, bytes) != cust::sys::cudaError_enum::CUDA_SUCCESS {
                return Ok(None);
            }
        }
        Ok(Some(Self { fwd, inv, shape, launcher }))
    }

    fn smem_bytes(shape: &ClusterShape) -> u32 {
        let w = std::mem::size_of::<W>();
        shape.smem_words(w) * w as u32
    }
}

/// Queues a one-pass cluster transform of `batch` polynomials per tower.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn cluster_ntt<W: Coeff>(
    q: Queue<'_>,
    k: &ClusterKernels<W>,
    dir: Direction,
    data: &mut DeviceVec<W>,
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let f = match dir {
        Direction::Forward => &k.fwd,
        Direction::Inverse => &k.inv,
    };
    // The cluster kernels take the batch and derive both passes' counts.
    let args = t.launch_args(data.buf.as_device_ptr(), DevicePointer::null(), log_n, batch as u32, 0, towers);
    let cs = k.shape.cluster_blocks();
    let (threads, smem) = (k.shape.threads(), ClusterKernels::<W>::smem_bytes(&k.shape));
    // SAFETY: the grid is a whole number of clusters; the plan sized `data`
    // to batch·N words per tower and the tables to `tw_pairs` pairs per
    // tower; the context is bound above.
    unsafe { f.launch_cluster(&k.launcher, &q, (batch as u32 * cs, towers.rows), threads, smem, cs, &args) }
}

/// Queues `a ← a ⊗ b` (buffers of `batch · N` words per tower, sized by
/// the plan) through the lazy kernels: both operands' forward
/// column passes in one launch (if any), the product row pass (`b`'s
/// forward row steps, `a`'s, the pointwise product and the inverse row
/// steps in one kernel) and `a`'s inverse column pass; `b` is left
/// column-transformed.
pub(crate) fn lazy_polymul<W: Coeff>(
    q: Queue<'_>,
    k: &LazyKernels<W>,
    (pa, pb): (DevicePointer<W>, DevicePointer<W>),
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    let null = DevicePointer::null();
    let cols = k.forward.len() > 1;
    if cols {
        // Both operands' column passes in one launch.
        lazy_pass(&q, &k.forward[0], pa, pb, t, batch, log_n, towers)?;
    }
    lazy_pass(&q, &k.product, pa, pb, t, batch, log_n, towers)?;
    if cols {
        lazy_pass(&q, &k.inverse[1], pa, null, t, batch, log_n, towers)?;
    }
    Ok(())
}

/// Queues the fused Hadamard step of the fused polymul over `batch · N/2`
/// pairs: `a ← fused(a, b)` with the plan's reduction and prepared forward
/// twiddles (first half).
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn fused_hadamard<W: Coeff>(
    q: Queue<'_>,
    f: &TypedKernel<FusedHadamardArgs<W>>,
    a: &mut DeviceVec<W>,
    b: &DeviceVec<W>,
    tw: &DevicePrepared<W>,
    batch: usize,
    log_n: u32,
    b4: &Barrett4<W>,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let total = (batch << (log_n - 1)) as u32;
    let grid = (blocks(total), towers.rows);
    let (q_, k_, m) = tw.parts;
    let args = FusedHadamardArgs {
        a: raw_mut(a.buf.as_device_ptr()),
        b: raw(b.buf.as_device_ptr()),
        tw: twiddles(tw),
        towers: towers.towers(),
        total,
        log_n,
        m,
        qbits: b4.m,
        q: q_,
        k: k_,
        mu: b4.mu,
    };
    // SAFETY: both buffers hold batch·N words and the table at least N/2
    // (checked by the plan); the kernel touches only those.
    unsafe { f.launch(&q, grid, BLOCK_THREADS, 0, &args, "launching the fused Hadamard step") }
}

/// Looks up the fused Hadamard kernel of a reduction and word.
pub(crate) fn fused_kernel<W: Coeff>(
    gpu: &Gpu,
    reduction: Reduction,
) -> Result<TypedKernel<FusedHadamardArgs<W>>> {
    TypedKernel::get::<W, _>(gpu, names::FusedHadamardKernel { reduction: reduction.kind() })
}

/// Queues `acc[i] ← acc[i] · other[i] mod q_t` over every tower `t`'s
/// `towers.data_words` words (`red`: tower 0's constants).
pub(crate) fn pointwise_mul<W: Coeff>(
    q: Queue<'_>,
    k: &Radix2Kernels<W>,
    acc: &mut DeviceVec<W>,
    other: &DeviceVec<W>,
    red: &Barrett4<W>,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let out = acc.buf.as_device_ptr();
    let len = towers.data_words as u32;
    let args = PointwiseArgs {
        out: raw_mut(out),
        a: raw(out),
        b: raw(other.buf.as_device_ptr()),
        // The kernel reads no twiddles: only the data stride and the table.
        towers: Towers { tw_words: 0, ..towers.towers() },
        len,
        qbits: red.m,
        q: red.q,
        mu: red.mu,
    };
    // SAFETY: both buffers hold `rows` towers of `len` words (checked by the
    // plan), the table `rows` rows when not null.
    unsafe {
        k.mul.launch(
            &q,
            (blocks(len), towers.rows),
            BLOCK_THREADS,
            0,
            &args,
            "launching the pointwise product",
        )
    }
}

/// Queues one run of the modular-multiplication microbenchmark.
pub(crate) fn modmul_bench<W: Coeff>(
    q: Queue<'_>,
    reduction: Reduction,
    select: bool,
    data: &mut DeviceVec<W>,
    ops: &DevicePrepared<W>,
    threads: u32,
    iters: u32,
) -> Result<()> {
    q.gpu.bind()?;
    let id = names::ModMulBenchKernel { select, reduction: reduction.kind() };
    let f = TypedKernel::get::<W, _>(q.gpu, id)?;
    let (q_, k, m) = ops.parts;
    let args = ModMulBenchArgs {
        data: raw_mut(data.buf.as_device_ptr()),
        ops: raw(ops.main.buf.as_device_ptr()),
        ops_aux: raw(aux_ptr(&ops.aux)),
        threads,
        iters,
        m,
        q: q_,
        k,
    };
    // SAFETY: ModMulBench sized `data` to 4·threads and the tables to threads.
    unsafe {
        f.launch(&q, blocks(threads), BLOCK_THREADS, 0, &args, "launching the reduction microbenchmark")
    }
}

/// The DGT kernels of one word.
pub(crate) struct DgtKernels<W> {
    /// The pass kernels, by `Op`.
    pass: [TypedKernel<DgtArgs<W>>; 3],
    encode: TypedKernel<DgtCodecArgs<W>>,
    decode: TypedKernel<DgtCodecArgs<W>>,
    pointwise: TypedKernel<DgtPointwiseArgs<W>>,
}

impl<W: Coeff> DgtKernels<W> {
    /// Looks the kernels up and lets the pass kernel use `pass_smem_bytes`
    /// of dynamic shared memory (checked by the plan against the device's
    /// limit; above 48 KiB a kernel must opt in).
    pub(crate) fn new(gpu: &Gpu, pass_smem_bytes: usize) -> Result<Self> {
        use polymul_kernels::dgt::pass::Op;
        let pass = |op| TypedKernel::get::<W, _>(gpu, names::DgtPassKernel { op });
        let codec = |decode| TypedKernel::get::<W, _>(gpu, names::DgtCodecKernel { decode });
        let k = Self {
            // Indexed by `Op as usize`.
            pass: [pass(Op::Forward)?, pass(Op::Inverse)?, pass(Op::Polymul)?],
            encode: codec(false)?,
            decode: codec(true)?,
            pointwise: TypedKernel::get::<W, _>(gpu, names::DgtPointwiseKernel)?,
        };
        if pass_smem_bytes > 48 * 1024 {
            for f in &k.pass {
                check(set_max_dynamic_smem(f, pass_smem_bytes as u32), "raising a DGT pass's shared memory")?;
            }
        }
        Ok(k)
    }
}

/// One DGT launch's buffers and tower arguments: `batch` polynomials per
/// tower, `rows` towers on the grid's z axis.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DgtLaunch<W: Coeff> {
    pub batch: usize,
    pub towers: TowerLaunch<W>,
    /// Tower 0's prime and Algorithm-4 constants (the scalar arguments).
    pub p: W,
    pub mu: W,
    pub qbits: u32,
}

/// Queues one DGT pass kernel launch (`args` built by the plan from its
/// schedule) over `rows` towers, as a programmatic dependent of the
/// previous kernel where the GPU allows (the kernel waits for it first).
pub(crate) fn dgt_pass<W: Coeff>(q: Queue<'_>, k: &DgtKernels<W>, args: DgtArgs<W>, rows: u32) -> Result<()> {
    q.gpu.bind()?;
    let w = std::mem::size_of::<W>();
    let smem = (padded_words(args.shared_words(), w) * w) as u32;
    let f = &k.pass[args.op as usize];
    // SAFETY: the kernel is the one of `args.op`; the plan validated the
    // geometry (≤ 1024 threads, shared memory within the limit it raised
    // the kernel to) and sized the buffers and tables for batch × towers.
    // The kernel waits for its predecessor before any global access.
    unsafe {
        f.launch_dependent(&q, (args.blocks(), rows), args.threads(), smem, &args, "launching a DGT pass")
    }
}

/// Queues DGT encoding (`decode = false`) or decoding of every polynomial,
/// `src → dst` (distinct buffers), with the weights table `w`.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn dgt_code<W: Coeff>(
    q: Queue<'_>,
    k: &DgtKernels<W>,
    decode: bool,
    log_m: u32,
    s1: u32,
    src: DevicePointer<W>,
    dst: DevicePointer<W>,
    w: DevicePointer<W>,
    l: &DgtLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let f = if decode { &k.decode } else { &k.encode };
    let total = (l.batch << log_m) as u32;
    let grid = (blocks(total), 1, l.towers.rows);
    let args = DgtCodecArgs {
        src: raw(src),
        dst: raw_mut(dst),
        table: raw(w),
        towers: l.towers.towers(),
        total,
        log_m,
        s1,
        p: l.p,
    };
    // SAFETY: buffers of batch × 2M words per tower, tables of M entries.
    unsafe { f.launch(&q, grid, BLOCK_THREADS, 0, &args, "launching DGT encoding/decoding") }
}

/// Queues the pointwise Gaussian product `a ← a · b`.
pub(crate) fn dgt_pointwise<W: Coeff>(
    q: Queue<'_>,
    k: &DgtKernels<W>,
    log_m: u32,
    a: DevicePointer<W>,
    b: DevicePointer<W>,
    l: &DgtLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let total = (l.batch << log_m) as u32;
    let grid = (blocks(total), 1, l.towers.rows);
    let args = DgtPointwiseArgs {
        a: raw_mut(a),
        b: raw(b),
        // The kernel reads no tables: only the data stride and the constants.
        towers: Towers { tw_words: 0, ..l.towers.towers() },
        total,
        log_m,
        qbits: l.qbits,
        p: l.p,
        mu: l.mu,
    };
    // SAFETY: both buffers hold batch × 2M words per tower.
    unsafe { k.pointwise.launch(&q, grid, BLOCK_THREADS, 0, &args, "launching the DGT pointwise product") }
}
