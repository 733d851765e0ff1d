//! Every NTT kernel launch (radix-2, tiled, 2D and pipelined 2D, lazy,
//! fused, cluster, pointwise, fused Hadamard): each function takes validated
//! arguments (the plan checked lengths, batch sizes and moduli), computes
//! the grid, fills the kernel's argument block (the `#[repr(C)]` struct
//! polymul-kernels defines for it) and queues the kernel on the plan's
//! stream through [`TypedKernel`], looked up from the kernel's identifier
//! (`polymul_kernels::names`), which takes only that block. Launch errors
//! are returned; errors inside a kernel surface at the next synchronisation.

use super::LazyFused;
use super::lazy::{LazyPass, LazySchedule};
use super::twiddles::DeviceMultiplicands;
use crate::gpu::cluster::ClusterLaunch;
use crate::gpu::kernel::TypedKernel;
use crate::gpu::launch::{
    Queue, TowerLaunch, blocks, buf, check, raise_max_dynamic_smem, refused, spread_for, spread_table, view,
};
use crate::gpu::{DeviceView, Gpu};
use crate::reduction::Reduction;
use crate::{Coeff, Error, Result};
use cust::function::{BlockSize, GridSize};
use cust::memory::DevicePointer;
use cust::stream::{Stream, StreamFlags};
use polymul_kernels::BLOCK_THREADS;
use polymul_kernels::args::{Buf, TowerGrid};
use polymul_kernels::arith::Barrett4;
use polymul_kernels::arith::harvey::ShoupPair;
use polymul_kernels::names;
use polymul_kernels::ntt::cluster::ClusterShape;
use polymul_kernels::ntt::lazy::{self, LaunchArgs, LazyTwiddles};
use polymul_kernels::ntt::radix2::Radix2Args;
use polymul_kernels::ntt::tiled::{self, TileGeometry, TiledArgs, TiledPass};
use polymul_kernels::pointwise::{FusedHadamardArgs, PointwiseArgs};
use polymul_kernels::smem::padded_words;
use polymul_kernels::tensor::TensorArgs;
/// Kernel handles one plan needs, looked up once at plan creation.
pub(crate) struct Radix2Kernels<W> {
    fwd: TypedKernel<Radix2Args<W>>,
    inv: TypedKernel<Radix2Args<W>>,
    mul: TypedKernel<PointwiseArgs<W>>,
    tensor: TypedKernel<TensorArgs<W>>,
}

impl<W: Coeff> Radix2Kernels<W> {
    pub(crate) fn new(gpu: &Gpu, reduction: Reduction) -> Result<Self> {
        let r = reduction.kind();
        Ok(Self {
            fwd: TypedKernel::get::<W, _>(gpu, names::Radix2Kernel { inverse: false, reduction: r })?,
            inv: TypedKernel::get::<W, _>(gpu, names::Radix2Kernel { inverse: true, reduction: r })?,
            mul: TypedKernel::get::<W, _>(gpu, names::PointwiseKernel)?,
            tensor: TypedKernel::get::<W, _>(gpu, names::TensorKernel)?,
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
                if raise_max_dynamic_smem(f, tile_bytes as u32) != cust::sys::cudaError_enum::CUDA_SUCCESS {
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

/// A CUDA event owned through the raw driver API (cust's `Event` cannot be
/// waited on without being consumed).
struct RawEvent(cust::sys::CUevent);

// SAFETY: a `CUevent` is a plain driver handle with no thread affinity: the
// driver API takes it on any thread whose current context is the one it was made
// in. Every call on it is made with that context current (`RawEvent::new` and
// `RawEvent::record` / `wait`: their callers `Pipeline::new` and
// `tiled_ntt_pipelined` call `Gpu::bind` first), and the `Pipeline` holding it
// sits behind `NttEngine::pipeline`'s mutex (plan/engine/mod.rs), so one thread
// uses it at a time.
unsafe impl Send for RawEvent {}

impl RawEvent {
    fn new() -> Result<Self> {
        let mut e = std::ptr::null_mut();
        // SAFETY: `e` is a live out-pointer for one `CUevent`; the GPU's context
        // is current: the only caller, `Pipeline::new` (below), calls `Gpu::bind`
        // (gpu/mod.rs) before creating the events.
        let rc = unsafe {
            cust::sys::cuEventCreate(&mut e, cust::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32)
        };
        check(rc, "creating an event")?;
        Ok(Self(e))
    }

    fn record(&self, stream: &Stream) -> Result<()> {
        // SAFETY: `self.0` is a live event (made by `RawEvent::new`, destroyed
        // only by `Drop`) and `stream` a `Stream` borrowed for the call, both of
        // the GPU's context, which is current: the only caller,
        // `tiled_ntt_pipelined`, calls `Gpu::bind` first.
        check(unsafe { cust::sys::cuEventRecord(self.0, stream.as_inner()) }, "recording an event")
    }
}

impl Drop for RawEvent {
    fn drop(&mut self) {
        // SAFETY: `self.0` was made by `cuEventCreate` in `RawEvent::new` and is
        // destroyed only here, once. Its context still exists: the engine's
        // kernel handles (`NttEngine::kernels`, declared after `pipeline` in
        // plan/engine/mod.rs, so dropped later) hold `Gpu` clones that keep it
        // alive. A pending event is released by the driver once it fires.
        unsafe { cust::sys::cuEventDestroy_v2(self.0) };
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
    // SAFETY: `stream` is a live `Stream` and `event` a live `RawEvent`
    // (destroyed only by its `Drop`), both borrowed for the call and of the GPU's
    // context, which is current: the only caller, `tiled_ntt_pipelined`, calls
    // `Gpu::bind` first. The driver only reads them.
    check(unsafe { cust::sys::cuStreamWaitEvent(stream.as_inner(), event.0, 0) }, "ordering streams")
}

/// Queues the passes of a shared-memory transform of `batch` polynomials
/// starting at `a` on `q`: forward = strided pass (if the geometry has
/// one) then contiguous pass; inverse = the reverse.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
fn tiled_passes<W: Coeff>(
    k: &TiledKernels<W>,
    dir: Direction,
    (a, words): (DevicePointer<W>, usize),
    tw: &DeviceMultiplicands<W>,
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
    const KERNEL: &str = "a shared-memory NTT pass";
    let grid_t = towers.grid(KERNEL)?;
    for &strided in order {
        let pass = TiledPass {
            geo: *geo,
            strided: strided == 1,
            log_radix: cfg.log_radix,
            direct: cfg.direct,
            stop: cfg.stop,
        };
        let args = TiledArgs::new(buf(a, words), twiddles(tw), &grid_t, batch as u64, pass, tw.parts)
            .map_err(refused(KERNEL))?;
        // SAFETY: the invariants of `TiledArgs` (polymul-kernels `ntt/tiled.rs`,
        // `# Invariants`); `TiledArgs::new` checked the buffers' extents (`a`:
        // `batch · N` words of the last tower, `data_words` apart; the tables:
        // the `2^stop` words per tower the pass reads), the tower table, the
        // geometry's ranges, `log_radix`, `stop` and the one-tower modulus:
        // - `a` holds `rows · batch · N` words: `batch` comes from
        //   `NttEngine::batch_of` (`Towers::layout_of`, layout.rs) in
        //   `NttEngine::transform` (plan/engine/mod.rs), or is the length of
        //   a group `r` of such a buffer's polynomials, `r.end ≤ batch`, at
        //   polynomial `r.start` (`tiled_ntt_pipelined`, `pipeline_groups`),
        //   whose last tower's `r.len() · N` words end inside the buffer;
        //   `towers` is `NttEngine::tower_launch(batch)` of the whole batch;
        // - `tw` is one of the tables `NttEngine::new` uploaded, `tw_words` words
        //   per tower: N, or N/2 for a fused plan, whose transforms stop at
        //   `log_n − 1` and so read only that half;
        // - `geo` is one of `NttEngine::new`'s geometries
        //   (`params::tile_geometry` / `params::geometry_2d`, chosen by
        //   `NttEngine::tile_for`), whose padded tile `NttEngine::new` checked
        //   against the device's shared memory and `TiledKernels::new` opted
        //   these kernels into (above 48 KiB); the grid is
        //   `batch · blocks_per_poly` blocks by `rows`, the block a power of two
        //   (`block_threads` capped by the power-of-two `max_threads`), `smem`
        //   the padded tile;
        // - `log_radix` is 1..=4 (`NttEngine::new` / `names::TILED_LOG_RADIX`),
        //   `stop` is `log_n` or `log_n − 1` (`NttEngine::whole` /
        //   `polymul_in_place`).
        // The context is current: `tiled_ntt` and `tiled_ntt_pipelined` call
        // `Gpu::bind` first.
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
    data: &mut DeviceView<W>,
    tw: &DeviceMultiplicands<W>,
    batch: usize,
    cfg: &TiledLaunch,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    tiled_passes(k, dir, (data.ptr(), data.len()), tw, batch, cfg, &q, towers)
}

/// Most groups [`tiled_ntt_pipelined`] cuts a batch into.
///
/// Up to this many polynomials, one per group (the pipelined kernel as the
/// SEED paper describes it); above, groups of `⌈batch / 64⌉` consecutive
/// polynomials, so that a call queues at most 64 launches per pass. One
/// polynomial per group made a batch of 4,194,304 `u32` polynomials of
/// N = 2^4 tens of millions of launches, about 100 s (an H200 soak,
/// 2026-11-26, docs/results/2026-11-26-nvidia-stall-fix/).
pub(crate) const PIPELINE_GROUPS: usize = 64;

/// The polynomials of each group of a pipelined call over `batch`
/// polynomials: consecutive ranges of equal length (the last one shorter),
/// at most [`PIPELINE_GROUPS`] of them.
pub(crate) fn pipeline_groups(batch: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let group = batch.div_ceil(PIPELINE_GROUPS).max(1);
    (0..batch).step_by(group).map(move |s| s..(s + group).min(batch))
}

/// Queues a transform group by group ([`pipeline_groups`]: one polynomial
/// each for batches up to [`PIPELINE_GROUPS`]), alternating between the
/// pipeline's two streams, so that one group's second pass overlaps the
/// next one's first pass; the GPU's stream waits for both at the end.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn tiled_ntt_pipelined<W: Coeff>(
    q: Queue<'_>,
    k: &TiledKernels<W>,
    dir: Direction,
    data: &mut DeviceView<W>,
    tw: &DeviceMultiplicands<W>,
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
    let base = data.ptr();
    for (j, r) in pipeline_groups(batch).enumerate() {
        // Polynomials `r` of the batch in every tower (`r.end ≤ batch`, so
        // `r.start · N` is inside one tower's words, checked by the plan).
        let a = base.wrapping_add(r.start * n);
        let on = Queue { gpu: q.gpu, stream: &pipe.streams[j % 2] };
        tiled_passes(k, dir, (a, data.len().saturating_sub(r.start * n)), tw, r.len(), cfg, &on, towers)?;
    }
    for (s, e) in pipe.streams.iter().zip(&pipe.joins) {
        e.record(s)?;
        wait(q.stream, e)?;
    }
    Ok(())
}

/// A prepared table's main and auxiliary buffers as the argument blocks'
/// constructors take them (a null auxiliary table where the reduction needs
/// none).
fn twiddles<W: Coeff>(tw: &DeviceMultiplicands<W>) -> (Buf<W>, Buf<W>) {
    tw.bufs()
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
    data: &mut DeviceView<W>,
    tw: &DeviceMultiplicands<W>,
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
    const KERNEL: &str = "an NTT stage";
    let grid_t = towers.grid(KERNEL)?;
    for log_m in stages {
        let args = Radix2Args::new(view(data), twiddles(tw), &grid_t, log_n, log_m, tw.parts)
            .map_err(refused(KERNEL))?;
        // SAFETY: the invariants of `Radix2Args` (polymul-kernels
        // `ntt/radix2.rs`, `# Invariants`); `Radix2Args::new` checked the
        // buffers' extents, the tower table, `log_n`, `log_m < log_n`, `total`
        // and the one-tower modulus: `data` holds `rows · batch · N` words, `batch` from `NttEngine::batch_of` / `NttEngine::pair`
        // (`Towers::layout_of` / `Towers::operands`, layout.rs, which also keep
        // `batch · N` below 2^32, so `total` does not wrap); `towers` is
        // `NttEngine::tower_launch(batch)` (plan/engine/mod.rs); `tw` is one of
        // `NttEngine::new`'s tables, `tw_words` words per tower, and stage
        // `log_m` reads only twiddles below `2^(log_m + 1)`: N for the whole
        // transform, the N/2 a fused plan keeps for its stages below `log_n − 1`
        // (`NttEngine::transform`; `hadamard_step`'s radix-2 path runs only
        // without `fused`, on full tables). The context is current: `Gpu::bind`
        // above.
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
    /// The inverse's first (row) pass reading the tensor product of two
    /// inputs (`lazy::step_tensor`), where the schedule's has such a kernel
    /// (`lazy::has_tensor_rows`) and the image holds it.
    tensor_inverse: Option<LazyPassKernel<W>>,
}

/// One lazy pass's kernel, the pass it runs, and the shared memory a
/// dependent launch of it under one wave asks for.
struct LazyPassKernel<W> {
    f: TypedKernel<LaunchArgs<W>>,
    pass: LazyPass,
    /// `spread[t - 1]`: shared memory that holds the kernel to `t` blocks
    /// per SM, for `t` below the blocks that fit one otherwise
    /// ([`spread_table`]); empty where one block already fills an SM, or
    /// the GPU launches no dependents.
    spread: Vec<u32>,
}

impl<W: Coeff> LazyPassKernel<W> {
    fn new(gpu: &Gpu, pass: LazyPass) -> Result<Self> {
        let f = TypedKernel::get::<W, _>(gpu, pass.kernel)?;
        let bytes = pass.smem_bytes::<W>();
        if bytes > 48 * 1024 {
            // At most 128 KiB plus padding (the `u32` product pass of 2^14
            // words, `b` in a second tile): the plan checked it against the
            // GPU's opt-in limit.
            check(raise_max_dynamic_smem(&f, bytes), "raising a lazy kernel's shared-memory limit")?;
        }
        let spread = spread_table(gpu, &f, pass.shape.threads(), bytes)?;
        Ok(Self { f, pass, spread })
    }
}

impl<W: Coeff> LazyKernels<W> {
    pub(crate) fn new(gpu: &Gpu, sched: &LazySchedule) -> Result<Self> {
        let lookup = |passes: &[LazyPass]| -> Result<Vec<LazyPassKernel<W>>> {
            passes.iter().map(|p| LazyPassKernel::new(gpu, *p)).collect()
        };
        let mut product = lookup(std::slice::from_ref(&sched.product))?;
        let w = std::mem::size_of::<W>();
        let tensor_inverse = sched
            .inverse
            .first()
            .filter(|p| {
                let k = p.kernel;
                !k.strided && !k.latency && !k.computed && lazy::has_tensor_rows(w, k.mode, k.l, k.log_r)
            })
            .and_then(|p| {
                let pass = LazyPass { kernel: names::LazyKernel { tensor: true, ..p.kernel }, ..*p };
                // An image without the kernel: the tensor product keeps its own launch.
                LazyPassKernel::new(gpu, pass).ok()
            });
        Ok(Self {
            forward: lookup(&sched.forward)?,
            inverse: lookup(&sched.inverse)?,
            product: product.remove(0),
            tensor_inverse,
        })
    }

    /// Whether the inverse's first pass can read the tensor product itself
    /// ([`lazy_inverse_of_tensor`]).
    pub(crate) fn has_tensor_inverse(&self) -> bool {
        self.tensor_inverse.is_some()
    }

    /// Passes of one direction.
    pub(crate) fn passes(&self, inverse: bool) -> usize {
        if inverse { self.inverse.len() } else { self.forward.len() }
    }

    /// `log2` of the row pass's radix.
    pub(crate) fn row_log_r(&self) -> u32 {
        self.forward.last().map_or(0, |p| p.pass.kernel.log_r)
    }
}

/// The device side of a lazy plan's launches: both directions' tables
/// (`tw_pairs` pairs per tower), the tower table and tower 0's constants.
#[derive(Clone, Copy)]
pub(crate) struct LazyTables<W: Coeff> {
    pub fwd: DevicePointer<W>,
    pub inv: DevicePointer<W>,
    /// Words of `fwd` and of `inv` (two a pair).
    pub words: (usize, usize),
    pub tw_pairs: u32,
    /// The tables end in the computed row twiddles' small tables instead of
    /// the thread-ordered region (`LazySchedule::computed_rows`).
    pub computed_rows: bool,
    /// Tower 0's modulus and Algorithm-4 constants (the scalars of a
    /// one-tower launch).
    pub barrett: Barrett4<W>,
}

impl<W: Coeff> LazyTables<W> {
    /// The argument block of a lazy or cluster launch over `data` (`b`: the
    /// second operand, or null) with these tables and `towers`, built and
    /// checked by `LaunchArgs::new` (the buffers cover every tower, the
    /// sizes and the one-tower modulus are in the kernels' range).
    #[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
    fn launch_args(
        &self,
        data: Buf<W>,
        b: Buf<W>,
        log_n: u32,
        subs: u32,
        log_polys: u32,
        grid: &TowerGrid<W>,
        kernel: &'static str,
    ) -> Result<LaunchArgs<W>> {
        let pair = |p: DevicePointer<W>, words: usize| Buf::new(p.as_raw() as *const ShoupPair<W>, words / 2);
        let tables = LazyTwiddles {
            fwd: pair(self.fwd, self.words.0),
            inv: pair(self.inv, self.words.1),
            pairs: self.tw_pairs,
            computed_rows: self.computed_rows,
        };
        LaunchArgs::new(data, b, &tables, grid, log_n, subs, log_polys, self.barrett).map_err(refused(kernel))
    }
}

/// Queues one lazy pass kernel over `batch` polynomials per tower of `data`
/// (`b`: the product pass's second operand, else null).
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
fn lazy_pass<W: Coeff>(
    q: &Queue<'_>,
    k: &LazyPassKernel<W>,
    (data, b): (Buf<W>, Buf<W>),
    source: Option<(Buf<W>, Buf<W>)>,
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    const KERNEL: &str = "a lazy NTT pass";
    let p = &k.pass;
    let grid = towers.grid(KERNEL)?;
    let args =
        t.launch_args(data, b, log_n, p.subs(log_n, batch), p.log_polys(log_n, batch), &grid, KERNEL)?;
    // A tensor-source pass reads its first step from the two inputs.
    let args = match source {
        Some((ta, tb)) if p.kernel.tensor => args.tensor_source(ta, tb, &grid).map_err(refused(KERNEL))?,
        None if !p.kernel.tensor => args,
        _ => return Err(Error::BadLaunch { kernel: KERNEL, why: "a tensor source without its kernel" }),
    };
    // A forward pass with a second operand transforms both (twice the blocks).
    let operands = if p.kernel.mode == lazy::FORWARD && !b.is_null() { 2 } else { 1 };
    let blocks = p.blocks(log_n, batch) * operands;
    let (threads, smem) = (p.shape.threads(), p.smem_bytes::<W>());
    // A grid under one wave, launched as a dependent, is held to as many
    // blocks per SM as it needs (`spread_table`, gpu/launch.rs).
    let spread = spread_for(q.gpu, &k.spread, blocks.saturating_mul(towers.rows));
    // SAFETY: the invariants of `LaunchArgs` (polymul-kernels `ntt/lazy/args.rs`,
    // `# Invariants`): the buffers' extents (`data` and `b` each `rows · batch ·
    // N` words, the tables `rows · tw_pairs` pairs), the tower table, `log_n`,
    // `subs` and the one-tower modulus are checked by `LaunchArgs::new`
    // (through `LazyTables::launch_args` and `TowerLaunch::grid`); a
    // tensor-source pass's inputs (each `rows · 2/3 · batch · N` words) by
    // `LaunchArgs::tensor_source`, and only a tensor kernel gets them (the
    // match above); that they are reduced and overlap `data` nowhere is
    // `lazy_inverse_of_tensor`'s contract; `batch` comes
    // from `NttEngine::batch_of` / `NttEngine::pair` (`Towers::layout_of`,
    // plan/engine/mod.rs); the tables' contents and
    // the kernels are one schedule's, paired by `LazyState::path_for`
    // (plan/engine/lazy_state.rs): `LazyTableSet::new` uploaded `tw_pairs` pairs
    // per tower for it and `LazyKernels::new` looked its passes up. `subs`, the
    // blocks (twice for a forward pass with `b`), threads and shared memory come
    // from this pass (`LazyPass`); the shared memory was checked against the
    // device's limit (`NttEngine::new`, or `LazyState::new` for the latency
    // schedule) and opted into by `LazyKernels::new`; `spread`, where given, is
    // at least that and was opted into by `spread_table` (gpu/launch.rs), within
    // the device's per-block limit. A pass kernel waits for its
    // predecessor (`grid_dependency_sync`) before any global access, so it may be
    // a programmatic dependent. The context must be current: `lazy_ntt` and
    // `lazy_polymul`, this function's only callers, call `Gpu::bind` first.
    unsafe {
        k.f.launch_dependent(
            q,
            (blocks, towers.rows),
            threads,
            (smem, spread),
            &args,
            "launching a lazy NTT pass",
        )
    }
}

/// Queues a lazy transform of `batch` polynomials per tower of `a` (the
/// plan sized it to `batch · N` words per tower): its one or two passes,
/// each one launch over every tower.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn lazy_ntt<W: Coeff>(
    q: Queue<'_>,
    k: &LazyKernels<W>,
    dir: Direction,
    (a, words): (DevicePointer<W>, usize),
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
        lazy_pass(&q, p, (buf(a, words), Buf::none()), None, t, batch, log_n, towers)?;
    }
    Ok(())
}

/// Queues the lazy inverse transform of the tensor product of `ta` and
/// `tb` (`2m` polynomials per tower each, `batch = 3m`) into `out`
/// (`3m` per tower): the first (row) pass reads the product itself
/// (`lazy::step_tensor`), the others as [`lazy_ntt`]'s inverse. `Err` if
/// the plan has no such kernel ([`LazyKernels::has_tensor_inverse`]).
///
/// # Safety
/// `ta` and `tb` hold the forward transforms' (reduced) words and overlap
/// `out` nowhere; they and `out` stay live while the launches run (or,
/// captured, every replay).
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) unsafe fn lazy_inverse_of_tensor<W: Coeff>(
    q: Queue<'_>,
    k: &LazyKernels<W>,
    (ta, tb, out): (Buf<W>, Buf<W>, Buf<W>),
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let missing = Error::BadLaunch { kernel: "a lazy NTT pass", why: "no tensor-source kernel" };
    let first = k.tensor_inverse.as_ref().ok_or(missing)?;
    lazy_pass(&q, first, (out, Buf::none()), Some((ta, tb)), t, batch, log_n, towers)?;
    for p in k.inverse.iter().skip(1) {
        lazy_pass(&q, p, (out, Buf::none()), None, t, batch, log_n, towers)?;
    }
    Ok(())
}

/// Queues the lazy forward transforms of two operands of `batch`
/// polynomials per tower each (`a` and `b`, both sized as [`lazy_ntt`]'s
/// one): each pass one launch over both, twice the blocks of one
/// ([`lazy::PassArgs::pair_operand`]): the tensor product's forwards.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn lazy_forward_pair<W: Coeff>(
    q: Queue<'_>,
    k: &LazyKernels<W>,
    (a, b): (Buf<W>, Buf<W>),
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    for p in &k.forward {
        lazy_pass(&q, p, (a, b), None, t, batch, log_n, towers)?;
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
    /// Fused at every batch ([`LazyFused::Always`]).
    pub(crate) always: bool,
    /// Blocks of one kernel that fit the GPU at once.
    resident: u32,
    /// `lazy::fused_ctrl_words(batch)` zero words per tower, for the
    /// largest `batch · towers` launched so far (grown on demand, zeroed
    /// before first use by `GrowBuffer::at_least`; the kernels leave them
    /// zero).
    ctrl: crate::gpu::graph::GrowBuffer<u32>,
}

impl<W: Coeff> FusedKernels<W> {
    /// The fused kernels for `sched` (their passes must be the schedule's:
    /// one radix for both, the row pass's, so the tables fit), or `None`
    /// (also where `setting` is [`LazyFused::Off`], the plan's
    /// `PlanOptions::lazy_fused`).
    pub(crate) fn new(gpu: &Gpu, sched: &LazySchedule, setting: LazyFused) -> Result<Option<Self>> {
        let w = std::mem::size_of::<W>();
        let log_r = sched.row_shape().log_r;
        if setting == LazyFused::Off
            || sched.forward.len() != 2
            || !lazy::fused_sizes(w).contains(&sched.log_n)
        {
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
                check(raise_max_dynamic_smem(f, smem), "raising a fused kernel's shared-memory limit")?;
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
            several_polys: setting != LazyFused::OnePolyPerBlock,
            always: setting == LazyFused::Always,
            resident,
            ctrl: crate::gpu::graph::GrowBuffer::new(),
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
        self.always || batch >= 2 * self.lag() as usize
    }
}

/// Queues a fused lazy transform of `batch` polynomials per tower.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn fused_ntt<W: Coeff>(
    q: Queue<'_>,
    k: &FusedKernels<W>,
    dir: Direction,
    data: &mut DeviceView<W>,
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let words = lazy::fused_ctrl_words(batch) * towers.rows as usize;
    let ctrl = k.ctrl.at_least(q.gpu, words)?;
    let lp = if k.several_polys { lazy::row_polys_log(k.row, log_n, batch) } else { 0 };
    const KERNEL: &str = "a fused lazy NTT";
    let grid_t = towers.grid(KERNEL)?;
    let args = t
        .launch_args(view(data), Buf::none(), log_n, batch as u32, lp, &grid_t, KERNEL)?
        .fused(buf(ctrl, words), k.lag(), &grid_t)
        .map_err(refused(KERNEL))?;
    let f = match dir {
        Direction::Forward => &k.fwd,
        Direction::Inverse => &k.inv,
    };
    let grid = GridSize::xy(2 * batch as u32 * k.per_poly, towers.rows);
    // SAFETY: the invariants of `LaunchArgs` (polymul-kernels
    // `ntt/lazy/args.rs`), fused case: the buffers' extents (`data`: `rows ·
    // batch · N` words; the tables; `ctrl`: `fused_ctrl_words(batch)` words per
    // tower), the tower table, `log_n`, `subs = batch` and `lag` (at least a row
    // block's polynomials) are checked by `LaunchArgs::new` and
    // `LaunchArgs::fused`; `batch` comes from `NttEngine::batch_of`
    // (`Towers::layout_of`), the tables are
    // `LazyTableSet::new`'s (plan/engine/lazy_state.rs) for the schedule
    // `FusedKernels::new` checked these kernels against; the grid is
    // `2 · batch · per_poly` blocks per tower (every ticket of every tower), the
    // block the row shape's threads, `k.smem` the larger pass tile plus 16 bytes
    // (`FusedKernels::new`, which opted the kernels into it); `ctrl` holds
    // `fused_ctrl_words(batch)` words per tower, zeroed by `GrowBuffer::at_least`
    // (gpu/graph.rs) before it returned a new buffer (on a stream of its own,
    // waited for: also when this stream captures) and left zero by the
    // kernels, and stays allocated while the plan lives (retired buffers are
    // kept); `lag` comes from `FusedKernels::lag`.
    // The context is current: `Gpu::bind` above.
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
            if raise_max_dynamic_smem(f, bytes) != cust::sys::cudaError_enum::CUDA_SUCCESS {
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
    data: &mut DeviceView<W>,
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
    const KERNEL: &str = "a cluster NTT";
    let grid_t = towers.grid(KERNEL)?;
    let args = t.launch_args(view(data), Buf::none(), log_n, batch as u32, 0, &grid_t, KERNEL)?;
    let cs = k.shape.cluster_blocks();
    let (threads, smem) = (k.shape.threads(), ClusterKernels::<W>::smem_bytes(&k.shape));
    // SAFETY: the invariants of `LaunchArgs` (polymul-kernels
    // `ntt/lazy/args.rs`), cluster case: the buffers' extents (`data`: `rows ·
    // batch · N` words, the tables), the tower table, `log_n` and `subs = batch`
    // are checked by `LaunchArgs::new`; `batch` comes from `NttEngine::batch_of`
    // (`Towers::layout_of`, plan/engine/mod.rs), the tables are `LazyTableSet::new`'s
    // (plan/engine/lazy_state.rs); the grid is `batch · cs` blocks per tower, a
    // whole number of clusters of `cs = 2^lcs` blocks (`launch_cluster`'s
    // condition), with the shape's threads and shared memory, which
    // `ClusterKernels::new` opted the kernels into (it returns `None` where the
    // driver refuses). The context is current: `Gpu::bind` above.
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
    (pa, pb): (Buf<W>, Buf<W>),
    t: &LazyTables<W>,
    batch: usize,
    log_n: u32,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let null = Buf::none();
    let cols = k.forward.len() > 1;
    if cols {
        // Both operands' column passes in one launch.
        lazy_pass(&q, &k.forward[0], (pa, pb), None, t, batch, log_n, towers)?;
    }
    lazy_pass(&q, &k.product, (pa, pb), None, t, batch, log_n, towers)?;
    if cols {
        lazy_pass(&q, &k.inverse[1], (pa, null), None, t, batch, log_n, towers)?;
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
    a: &mut DeviceView<W>,
    b: &DeviceView<W>,
    tw: &DeviceMultiplicands<W>,
    batch: usize,
    log_n: u32,
    b4: &Barrett4<W>,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let total = (batch << (log_n - 1)) as u32;
    let grid = (blocks(total), towers.rows);
    const KERNEL: &str = "the fused Hadamard step";
    let args =
        FusedHadamardArgs::new(view(a), view(b), twiddles(tw), &towers.grid(KERNEL)?, log_n, tw.parts, *b4)
            .map_err(refused(KERNEL))?;
    // SAFETY: the invariants of `FusedHadamardArgs` (polymul-kernels
    // `pointwise.rs`, `# Invariants`); `FusedHadamardArgs::new` checked the
    // buffers' extents, the tower table, `log_n`, `total` and the one-tower
    // modulus: `a` and `b` each hold `rows · batch · N` words (`NttEngine::hadamard_step` checked both with `NttEngine::pair`,
    // `Towers::operands`, plan/engine/mod.rs, and passes `tower_launch(batch)`),
    // `tw` holds the first N/2 prepared forward twiddles per tower
    // (`NttEngine::new`, `tw_words = N/2` for a fused plan),
    // `total = batch · N/2`; the one-tower constants are tower 0's
    // (`NttEngine::new`). The context is current: `Gpu::bind` above.
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
    acc: &mut DeviceView<W>,
    other: &DeviceView<W>,
    red: &Barrett4<W>,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    const KERNEL: &str = "the pointwise product";
    let out = view(acc);
    let args =
        PointwiseArgs::new(out, out, view(other), &towers.grid(KERNEL)?, *red).map_err(refused(KERNEL))?;
    let len = towers.data_words as u32;
    // SAFETY: the invariants of `PointwiseArgs` (polymul-kernels `pointwise.rs`,
    // `# Invariants`); `PointwiseArgs::new` checked the buffers' extents, the
    // tower table, `len` and the one-tower modulus: `acc` and `other` each hold `rows · data_words` words and
    // `len = data_words`: the callers (`NttEngine::pointwise_mul`,
    // plan/engine/mod.rs) checked both with `Towers::operands` (layout.rs) and
    // pass `tower_launch(batch)`; `out` is `a` exactly; the grid is
    // `⌈len / 256⌉ × rows`; a non-null `moduli` holds `rows` rows
    // (`NttEngine::new`, `Towers::table_rows`). The context is current:
    // `Gpu::bind` above.
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

/// `out ← a ⊗ b`, the ciphertext tensor product in the NTT domain, over
/// every tower: `towers.data_words = 2m · N` input words per tower (`m`
/// ciphertexts), `out` holding `3m · N` per tower. One launch.
///
/// # Safety
/// `a`, `b` and `out` are live device buffers of the plan's context for as
/// long as the launch runs (or, captured in a graph, every replay), `out`
/// overlaps neither input, and the inputs hold reduced words (the forward
/// transforms'). Their extents are checked here.
pub(crate) unsafe fn tensor<W: Coeff>(
    q: Queue<'_>,
    k: &Radix2Kernels<W>,
    (a, b, out): (Buf<W>, Buf<W>, Buf<W>),
    log_n: u32,
    red: &Barrett4<W>,
    towers: &TowerLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    const KERNEL: &str = "the tensor product";
    let args = TensorArgs::new(out, a, b, &towers.grid(KERNEL)?, log_n, *red).map_err(refused(KERNEL))?;
    let len = (towers.data_words / 2) as u32;
    // SAFETY: the invariants of `TensorArgs` (polymul-kernels `tensor.rs`,
    // `# Invariants`); `TensorArgs::new` checked the buffers' extents, the
    // tower table, `log_n`, `len` and the one-tower modulus; liveness,
    // disjointness and reduced inputs are this function's contract (its
    // callers, `NttEngine::tensor_in_place`, plan/engine/mod.rs, check the
    // shapes with `TensorShape` (ciphertext.rs) and pass `tower_launch(2m)`).
    // The grid is `⌈len / 256⌉ × rows`; a non-null `moduli` holds `rows` rows
    // (`NttEngine::new`, `Towers::table_rows`). The context is current:
    // `Gpu::bind` above.
    unsafe {
        k.tensor.launch(
            &q,
            (blocks(len), towers.rows),
            BLOCK_THREADS,
            0,
            &args,
            "launching the tensor product",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipeline_groups_cover_the_batch_in_at_most_64_launches() {
        for batch in [0usize, 1, 2, 3, 63, 64, 65, 67, 128, 129, 4_194_304, 11_351_867] {
            let groups: Vec<_> = pipeline_groups(batch).collect();
            assert!(groups.len() <= PIPELINE_GROUPS, "{batch}: {} groups", groups.len());
            let mut next = 0;
            for r in &groups {
                assert_eq!(r.start, next, "{batch}: {r:?}");
                assert!(!r.is_empty(), "{batch}: {r:?}");
                next = r.end;
            }
            assert_eq!(next, batch);
            // One polynomial per group up to 64 (the paper's pipeline);
            // equal groups above, the last one no longer than the others.
            if batch <= PIPELINE_GROUPS {
                assert!(groups.iter().all(|r| r.len() == 1), "{batch}");
            } else {
                let first = groups[0].len();
                assert!(
                    groups.iter().all(|r| r.len() <= first) && first == batch.div_ceil(PIPELINE_GROUPS),
                    "{batch}"
                );
            }
        }
    }
}
