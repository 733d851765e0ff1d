//! The DGT's kernel launches: the pass kernels (one `DgtArgs` block each,
//! built by the plan from its schedule), Coala's encoding, decoding and
//! pointwise kernels.

use crate::gpu::Gpu;
use crate::gpu::kernel::TypedKernel;
use crate::gpu::launch::{
    Queue, TowerLaunch, blocks, check, raise_max_dynamic_smem, refused, spread_for, spread_table,
};
use crate::{Coeff, Result};
use polymul_kernels::BLOCK_THREADS;
use polymul_kernels::args::Buf;
use polymul_kernels::dgt::layout::PassGeometry;
use polymul_kernels::dgt::pass::{DgtArgs, DgtCodecArgs, DgtPointwiseArgs, Op, op_shared_words};
use polymul_kernels::names;
use polymul_kernels::smem::padded_words;
/// The DGT kernels of one word.
pub(crate) struct DgtKernels<W> {
    /// The pass kernels, by `Op`: Coala's, then the register-unit ones.
    pass: [TypedKernel<DgtArgs<W>>; 6],
    encode: TypedKernel<DgtCodecArgs<W>>,
    decode: TypedKernel<DgtCodecArgs<W>>,
    pointwise: TypedKernel<DgtPointwiseArgs<W>>,
    /// For each pass launch a plan makes (its kernel's index in `pass`,
    /// threads, shared bytes), the shared memory that holds a dependent
    /// launch of it to `t` blocks per SM at entry `t - 1`
    /// (`gpu::launch::spread_table`).
    spread: Vec<(PassShape, Vec<u32>)>,
}

/// A pass launch's kernel (index in [`DgtKernels`]' `pass`), threads per
/// block and shared bytes per block (padded).
type PassShape = (usize, u32, u32);

/// The index in [`DgtKernels`]' `pass` of the kernel of `op`, Coala's
/// passes or the register-unit ones.
fn kernel_index(op: Op, units: bool) -> usize {
    op as usize + 3 * usize::from(units)
}

/// The shape of a launch of `op` on pass `geo`.
fn pass_shape<W>(geo: &PassGeometry, op: Op) -> PassShape {
    let w = std::mem::size_of::<W>();
    let smem = padded_words(op_shared_words(geo, op), w) * w;
    (kernel_index(op, geo.units()), geo.threads(), smem as u32)
}

impl<W: Coeff> DgtKernels<W> {
    /// Looks the kernels up for the pass launches `launches` (each an `Op`
    /// on a pass geometry): lets the pass kernels use the most shared
    /// memory any of them takes (checked by the plan against the device's
    /// limit; above 48 KiB a kernel must opt in), and sizes each launch's
    /// spread table.
    pub(crate) fn new<'a>(
        gpu: &Gpu,
        launches: impl IntoIterator<Item = (&'a PassGeometry, Op)>,
    ) -> Result<Self> {
        let pass = |op, units| TypedKernel::get::<W, _>(gpu, names::DgtPassKernel { op, units });
        let codec = |decode| TypedKernel::get::<W, _>(gpu, names::DgtCodecKernel { decode });
        let k = Self {
            // Indexed by `kernel_index`: `Op as usize`, plus 3 for register units.
            pass: [
                pass(Op::Forward, false)?,
                pass(Op::Inverse, false)?,
                pass(Op::Polymul, false)?,
                pass(Op::Forward, true)?,
                pass(Op::Inverse, true)?,
                pass(Op::Polymul, true)?,
            ],
            encode: codec(false)?,
            decode: codec(true)?,
            pointwise: TypedKernel::get::<W, _>(gpu, names::DgtPointwiseKernel)?,
            spread: Vec::new(),
        };
        let mut shapes: Vec<PassShape> = launches.into_iter().map(|(g, op)| pass_shape::<W>(g, op)).collect();
        shapes.sort_unstable();
        shapes.dedup();
        let most = shapes.iter().map(|s| s.2).max().unwrap_or(0);
        if most > 48 * 1024 {
            for f in &k.pass {
                check(raise_max_dynamic_smem(f, most), "raising a DGT pass's shared memory")?;
            }
        }
        let spread = shapes
            .into_iter()
            .map(|s| Ok((s, spread_table(gpu, &k.pass[s.0], s.1, s.2)?)))
            .collect::<Result<_>>()?;
        Ok(Self { spread, ..k })
    }

    /// The shared memory a dependent launch of `shape` over `blocks`
    /// blocks asks for (`gpu::launch::spread_for`), or `None`.
    fn spread(&self, gpu: &Gpu, shape: PassShape, blocks: u32) -> Option<u32> {
        let table = self.spread.iter().find(|(s, _)| *s == shape)?;
        spread_for(gpu, &table.1, blocks)
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
    let shape = (kernel_index(args.op(), args.units()), args.threads(), smem);
    let f = &k.pass[shape.0];
    // A grid under one wave, launched as a dependent, is held to as many
    // blocks per SM as it needs (`spread_table`, gpu/launch.rs).
    let spread = k.spread(q.gpu, shape, args.blocks().saturating_mul(rows));
    // SAFETY: the invariants of `DgtArgs` (polymul-kernels `dgt/pass.rs`,
    // `# Invariants`): `args` was built and checked by `DgtArgs::new` (the
    // buffers' and tables' extents, the tower table, the geometry's ranges,
    // `batch`, the blocks and the one-tower prime) in `schedule::pass_args`
    // (dgt/schedule.rs), from
    // the `ArgsContext` that `DgtPlan::run_on` (dgt/plan.rs) builds out of
    // `DgtPlan::launch_args` (the operand checked by `Towers::layout_of`, both
    // operands by `Towers::operands` in `DgtPlan::in_place`; the scratch
    // `GrowBuffer::at_least` of the operand's length, `DgtPlan::scratch_ptr`) and
    // the tables and passes of `DgtTables::new`; `f` is the kernel of `args.op()` and
    // `args.units()`;
    // the grid is `args.blocks()` by the towers, `args.threads()` threads, `smem`
    // the padded `args.shared_words()`, at most the largest of the launches
    // `DgtKernels::new` was given (every pass step of the plan's schedule on
    // each of its pass sets: `DgtPlan::kernels_for`), which it opted the
    // kernels into (failing where the device refuses); `spread`, where given, is at
    // least `smem` and was opted into by `spread_table`, within the device's
    // per-block limit. The kernel waits for its predecessor before any global
    // access, so it may be a programmatic dependent. The context is current:
    // `Gpu::bind` above.
    unsafe {
        f.launch_dependent(
            &q,
            (args.blocks(), rows),
            args.threads(),
            (smem, spread),
            &args,
            "launching a DGT pass",
        )
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
    src: Buf<W>,
    dst: Buf<W>,
    w: Buf<W>,
    l: &DgtLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let f = if decode { &k.decode } else { &k.encode };
    let total = (l.batch << log_m) as u32;
    let grid = (blocks(total), 1, l.towers.rows);
    const KERNEL: &str = "DGT encoding/decoding";
    let args =
        DgtCodecArgs::new(src, dst, w, &l.towers.grid(KERNEL)?, log_m, s1, l.p).map_err(refused(KERNEL))?;
    // SAFETY: the invariants of `DgtCodecArgs` (polymul-kernels `dgt/codec.rs`);
    // `DgtCodecArgs::new` checked the buffers' and table's extents, that `src`
    // and `dst` differ, the tower table, `total`, `s1 ≤ log_m` and the
    // one-tower prime: `src` and `dst` are two distinct buffers of the operation
    // (`DgtPlan::run_on`: an operand, `rows · batch · 2M` words by
    // `DgtPlan::launch_args` / `Towers::layout_of`, and the scratch,
    // `GrowBuffer::at_least` of the operand's length); `w` is the weights or
    // inverse weights, `M` entries per tower, `tw_words` apart (`DgtTables::new`,
    // uploaded tower after tower by `DgtPlan::with_pipeline`);
    // `total = batch · M`, `s1` the first pass's; the grid
    // `⌈total / 256⌉ × 1 × rows`. The context is current: `Gpu::bind` above.
    unsafe { f.launch(&q, grid, BLOCK_THREADS, 0, &args, "launching DGT encoding/decoding") }
}

/// Queues the pointwise Gaussian product `a ← a · b`.
pub(crate) fn dgt_pointwise<W: Coeff>(
    q: Queue<'_>,
    k: &DgtKernels<W>,
    log_m: u32,
    a: Buf<W>,
    b: Buf<W>,
    l: &DgtLaunch<W>,
) -> Result<()> {
    q.gpu.bind()?;
    let total = (l.batch << log_m) as u32;
    let grid = (blocks(total), 1, l.towers.rows);
    const KERNEL: &str = "the DGT pointwise product";
    // The kernel reads no tables: only the data stride and the constants.
    let args = DgtPointwiseArgs::new(a, b, &l.towers.grid(KERNEL)?, log_m, (l.p, l.mu, l.qbits))
        .map_err(refused(KERNEL))?;
    // SAFETY: the invariants of `DgtPointwiseArgs` (polymul-kernels
    // `dgt/codec.rs`); `DgtPointwiseArgs::new` checked the buffers' extents, the
    // tower table, `total` and the one-tower prime: `a` and `b` each hold `rows · batch · 2M` words: the
    // callers (`DgtPlan::pointwise_mul`, and `DgtPlan::run_on` for
    // `DgtPlan::in_place`, dgt/plan.rs) checked both with `Towers::operands` and
    // built `l` with `DgtPlan::launch_args`; `total = batch · M`; the grid
    // `⌈total / 256⌉ × 1 × rows`. The context is current: `Gpu::bind` above.
    unsafe { k.pointwise.launch(&q, grid, BLOCK_THREADS, 0, &args, "launching the DGT pointwise product") }
}
