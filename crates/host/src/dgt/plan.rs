//! The DGT on a GPU: tables resident on the device, one launch per step for
//! every polynomial and tower (towers on the grid's z axis).

use super::config::DgtConfig;
use super::domain::DgtView;
use super::launch::{self, DgtKernels, DgtLaunch};
use super::params::DgtParams;
use super::schedule::{ArgsContext, Buf, DgtPipeline, Schedule, Step, pass_args};
use super::tables::DgtTables;
use crate::gpu::graph::{CallKey, GraphCache};
use crate::gpu::launch::{Queue, TowerLaunch, buf, refused};
use crate::gpu::scratch::{self, Scratch};
use crate::gpu::split::{self, PieceB, Second, SplitPlan};
use crate::gpu::{DeviceVec, DeviceView, Gpu, GpuStream};
use crate::layout::Towers;
use crate::{Coeff, Error, Result};
use cust::memory::DevicePointer;
use polymul_kernels::args::Buf as KBuf;
use polymul_kernels::dgt::layout::PassGeometry;
use polymul_kernels::dgt::pass::{Op, op_shared_words};
use polymul_kernels::smem::padded_words;
use polymul_kernels::towers::TowerConsts;

/// Coefficients per polymul call (the batch times the towers times N) from
/// which a plan with batched passes ([`DgtPlan::with_batched`]) runs them:
/// 2^18, where the register units first fill the GPU. H100, 2026-11-27,
/// 30-bit towers, `profile-dgt` of `DgtConfig::default_for` against
/// `DgtConfig::batched_for`, one tower, µs per polymul (docs/dgt.md,
/// "Register units"), below / at the threshold: N = 2^10 × 128 17.7 / 21.0
/// and × 256 26.9 / 21.6; 2^12 × 32 24.1 / 37.2 and × 64 38.4 / 38.9
/// (even), × 128 62.1 / 58.4; 2^14 × 8 29.5 / 36.1 and × 16 43.5 / 37.4;
/// 2^16 × 2 30.8 / 36.4 and × 4 45.8 / 36.3.
pub const BATCHED_FROM_COEFFS: usize = 1 << 18;

/// Coefficients per forward or inverse call from which a plan with batched
/// passes runs them: 2^19. Same device and run as [`BATCHED_FROM_COEFFS`],
/// µs per forward, default / batched: N = 2^10 × 256 11.1 / 11.5 and × 512
/// 16.5 / 12.4; 2^12 × 128 22.6 / 23.9 and × 256 38.8 / 32.0; 2^14 × 16
/// 17.3 / 19.1 and × 32 25.6 / 23.0; 2^16 × 4 17.2 / 18.7 and × 8 26.9 /
/// 20.8.
pub const BATCHED_TRANSFORMS_FROM_COEFFS: usize = 1 << 19;

/// A DGT plan for one prime or several (RNS towers of one N).
///
/// ```no_run
/// use polymul::prelude::*;
/// use polymul::{Gpu, dgt::{DgtConfig, DgtParams, DgtPlan}};
/// let gpu = Gpu::new()?;
/// let p = DgtParams::<u32>::with_prime_bits(1 << 12, 30)?;
/// let plan = DgtPlan::new(&gpu, p.clone(), DgtConfig::default_for(11))?;
/// let a = vec![1u32; 1 << 12];
/// let c = plan.polymul(&a, &a)?;
/// assert_eq!(c, polymul::expert::emulation::dgt::polymul(&p, &DgtConfig::default_for(11), &a, &a)?);
/// # Ok::<(), polymul::Error>(())
/// ```
pub struct DgtPlan<W: Coeff> {
    gpu: Gpu,
    towers: Vec<DgtParams<W>>,
    config: DgtConfig,
    /// Every tower's tables, `tw_words` apart.
    tables: DeviceVec<W>,
    layout: DgtTables<W>,
    tw_words: usize,
    moduli: Option<DeviceVec<W>>,
    /// The moduli and the input checks they imply.
    tower_set: Towers<W>,
    kernels: DgtKernels<W>,
    /// The launches of each operation.
    schedule: Schedule,
    /// The passes of calls of at least [`BATCHED_FROM_COEFFS`] (a polymul)
    /// or [`BATCHED_TRANSFORMS_FROM_COEFFS`] (a transform) coefficients
    /// ([`DgtPlan::with_batched`]): the same stage split with another
    /// configuration's clusters and units; empty where none was given.
    batched: Vec<PassGeometry>,
    batched_config: Option<DgtConfig>,
    pipeline: DgtPipeline,
    /// Coala's encoding target / decoding source (packed order), grown on
    /// demand; unused by the fused pipeline.
    scratch: crate::gpu::graph::GrowBuffer<W>,
    /// The stream the plan queues on, if bound (else the GPU's).
    stream: Option<GpuStream>,
    /// Graphs of repeated calls: a transform is one launch per pass, a
    /// polymul up to three (ten in Coala's pipeline), so a repeated call
    /// replays them as one graph.
    graphs: GraphCache,
    /// The second operand's copy in an out-of-place product.
    copy_of_b: Scratch<W>,
}

impl<W: Coeff> std::fmt::Debug for DgtPlan<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DgtPlan")
            .field("n", &self.towers[0].n())
            .field("towers", &self.towers.len())
            .field("config", &self.config)
            .field("batched_config", &self.batched_config)
            .field("pipeline", &self.pipeline)
            .finish_non_exhaustive()
    }
}

impl<W: Coeff> DgtPlan<W> {
    /// A plan for one prime.
    pub fn new(gpu: &Gpu, params: DgtParams<W>, config: DgtConfig) -> Result<Self> {
        Self::with_towers(gpu, std::slice::from_ref(&params), config)
    }

    /// A plan for several primes of one N (RNS towers, tower-major data),
    /// on the default (fused) pipeline.
    ///
    /// # Errors
    /// [`Error::EmptyBasis`], [`Error::TooManyTowers`], towers of different
    /// N ([`Error::LengthMismatch`]), a prime twice
    /// ([`Error::DuplicatePrime`]), a configuration that does not fit
    /// ([`Error::BadDgtConfig`]) — all before the device is touched — then
    /// [`Error::OutOfDeviceMemory`].
    pub fn with_towers(gpu: &Gpu, towers: &[DgtParams<W>], config: DgtConfig) -> Result<Self> {
        Self::with_pipeline(gpu, towers, config, DgtPipeline::Fused)
    }

    /// [`DgtPlan::with_towers`] on the kernels of `pipeline` (Coala's
    /// separate encoding, pointwise and decoding kernels, for comparison).
    ///
    /// # Errors
    /// As [`DgtPlan::with_towers`].
    pub fn with_pipeline(
        gpu: &Gpu,
        towers: &[DgtParams<W>],
        config: DgtConfig,
        pipeline: DgtPipeline,
    ) -> Result<Self> {
        let first = towers.first().ok_or(Error::EmptyBasis)?;
        if let Some(t) = towers.iter().find(|t| t.n() != first.n()) {
            return Err(Error::LengthMismatch { what: "tower N", got: t.n(), expected: first.n() });
        }
        let tower_set = Towers::new(first.n(), towers.iter().map(|t| t.p()).collect())?;
        let all = towers.iter().map(|t| DgtTables::new(t, &config)).collect::<Result<Vec<_>>>()?;
        let tw_words = all[0].words.len();
        let words: Vec<W> = all.iter().flat_map(|t| t.words.iter().copied()).collect();
        let rows = tower_set.table_rows(|i| {
            let b = towers[i].barrett();
            TowerConsts { parts: (towers[i].p(), W::zero(), 0), barrett4: (b.mu, b.m) }
        });
        let moduli = rows.map(|r| gpu.upload(&r)).transpose()?;
        let layout = all.into_iter().next().ok_or(Error::EmptyBasis)?;
        // A polymul pass holds two operands' tiles: where they exceed the
        // GPU's shared memory, the schedule transforms both and multiplies
        // in a separate kernel.
        let schedule = Schedule::new(pipeline, &layout.passes, Self::polymul_fits(gpu));
        let kernels = Self::kernels_for(gpu, &schedule, [&layout.passes[..]])?;
        Ok(Self {
            gpu: gpu.clone(),
            towers: towers.to_vec(),
            config,
            tables: gpu.upload(&words)?,
            layout,
            tw_words,
            moduli,
            tower_set,
            kernels,
            schedule,
            batched: Vec::new(),
            batched_config: None,
            pipeline,
            scratch: crate::gpu::graph::GrowBuffer::new(),
            stream: None,
            graphs: GraphCache::new(gpu, true),
            copy_of_b: Scratch::new(),
        })
    }

    /// Whether repeated calls replay graphs the plan captures on its own
    /// (default `true`; see [`crate::Gpu`] on graphs and threads): `false`
    /// launches every call's kernels, as [`crate::expert::PlanOptions::graph_cache`]
    /// does for the NTT plans.
    pub fn set_graph_cache(&mut self, enabled: bool) {
        self.graphs.set_enabled(enabled);
    }

    fn queue(&self) -> Queue<'_> {
        Queue::on(&self.gpu, self.stream.as_ref())
    }

    /// Captures the work `work` queues on this plan's stream, on buffers the
    /// returned [`crate::Graph`] owns (`state`), for replays with one driver
    /// call each ([`crate::Graph::launch`]). `work` runs once, while
    /// capturing: nothing is computed until the first replay.
    ///
    /// # Errors
    /// Those of `work` (e.g. buffers of the wrong length); a [`crate::Error::CudaCode`] if
    /// the driver refuses the capture (work that waits for the GPU or copies
    /// from or to the host cannot be captured).
    pub fn capture<S: crate::GraphState>(
        &self,
        state: S,
        work: fn(&Self, &mut S) -> Result<()>,
    ) -> Result<crate::Graph<'_, S>> {
        crate::gpu::graph::capture(self.queue(), self, state, work)
    }

    /// The configuration.
    pub fn config(&self) -> DgtConfig {
        self.config
    }

    /// The plan with a second configuration for calls of at least
    /// [`BATCHED_FROM_COEFFS`] (a polymul) or
    /// [`BATCHED_TRANSFORMS_FROM_COEFFS`] (a forward or inverse)
    /// coefficients (the batch times the towers times N): its
    /// clusters and register units on the same stage split (the same
    /// tables), typically [`DgtConfig::batched_for`] beside
    /// [`DgtConfig::default_for`]. Both compute the same words; only the
    /// kernels' shapes differ.
    ///
    /// # Errors
    /// [`Error::BadDgtConfig`] where `batched` does not fit N, splits the
    /// stages otherwise than the plan's configuration, or would change the
    /// schedule (its polymul tiles fit the GPU's shared memory where the
    /// plan's do not, or the reverse); a [`crate::Error::CudaCode`] where
    /// the device refuses its shared memory.
    pub fn with_batched(mut self, batched: DgtConfig) -> Result<Self> {
        let log_m = self.towers[0].log_m();
        let passes = batched.passes(log_m)?;
        let bad = |why| Error::BadDgtConfig { what: batched.to_string(), n: self.towers[0].n(), why };
        let same_split = passes.len() == self.layout.passes.len()
            && passes.iter().zip(&self.layout.passes).all(|(a, b)| (a.s0, a.s1) == (b.s0, b.s1));
        if !same_split {
            return Err(bad("a batched configuration must split the stages as the plan's does"));
        }
        let fits = Self::polymul_fits(&self.gpu);
        if passes.iter().zip(&self.layout.passes).any(|(a, b)| fits(a) != fits(b)) {
            return Err(bad("a batched configuration must keep the plan's schedule (its polymul tiles)"));
        }
        self.kernels = Self::kernels_for(&self.gpu, &self.schedule, [&self.layout.passes[..], &passes])?;
        self.batched = passes;
        self.batched_config = Some(batched);
        Ok(self)
    }

    /// The configuration of batched calls ([`DgtPlan::with_batched`]), if
    /// any.
    pub fn batched_config(&self) -> Option<DgtConfig> {
        self.batched_config
    }

    /// Whether a polymul pass's two tiles on pass `g` fit the GPU's shared
    /// memory per block.
    fn polymul_fits(gpu: &Gpu) -> impl Fn(&PassGeometry) -> bool + use<W> {
        let w = std::mem::size_of::<W>();
        let limit = gpu.info().max_shared_per_block;
        move |g| padded_words(op_shared_words(g, Op::Polymul), w) * w <= limit
    }

    /// The kernels for every pass launch of `schedule` on each of the pass
    /// sets `sets` (the plan's, and its batched passes where it has them).
    fn kernels_for<const S: usize>(
        gpu: &Gpu,
        schedule: &Schedule,
        sets: [&[PassGeometry]; S],
    ) -> Result<DgtKernels<W>> {
        DgtKernels::new(gpu, sets.iter().flat_map(|p| schedule.pass_steps().map(move |s| (&p[s.pass], s.op))))
    }

    /// The pipeline.
    pub fn pipeline(&self) -> DgtPipeline {
        self.pipeline
    }

    /// Kernel launches of one forward transform, inverse and polymul.
    pub fn launches(&self) -> (usize, usize, usize) {
        let s = &self.schedule;
        (s.forward.len(), s.inverse.len(), s.polymul.len())
    }

    /// The towers' parameters.
    pub fn params(&self) -> &[DgtParams<W>] {
        &self.towers
    }

    fn launch_args(&self, what: &'static str, v: &DeviceView<W>) -> Result<DgtLaunch<W>> {
        let batch = self.tower_set.layout_of(what, v.len())?.batch;
        let b = self.towers[0].barrett();
        Ok(DgtLaunch {
            batch,
            towers: TowerLaunch {
                moduli: self.moduli.as_ref().map_or(DevicePointer::null(), |m| m.ptr()),
                rows: self.towers.len() as u32,
                data_words: (batch * self.tower_set.n()) as u64,
                tw_words: self.tw_words as u32,
                moduli_words: self.moduli.as_ref().map_or(0, |m| m.len()),
            },
            p: self.towers[0].p(),
            mu: b.mu,
            qbits: b.m,
        })
    }

    /// Coala's scratch for `len` words (and `len`), or null (and 0) for the
    /// fused pipeline.
    fn scratch_ptr(&self, len: usize) -> Result<KBuf<W>> {
        if self.schedule.needs_scratch() {
            Ok(buf(self.scratch.at_least(&self.gpu, len)?, len))
        } else {
            Ok(KBuf::none())
        }
    }

    /// The tables from `offset` words on (tower 0's table there, the
    /// others `tw_words` further).
    fn table(&self, offset: usize) -> KBuf<W> {
        buf(self.tables.ptr().wrapping_add(offset), self.tables.len().saturating_sub(offset))
    }

    /// Queues the launches `steps` of the schedule on `g`, on operands `a`
    /// and `b` (validated, `l`) with scratch `s`.
    fn run_on(
        &self,
        g: Queue<'_>,
        steps: &[Step],
        (a, b, s): (KBuf<W>, KBuf<W>, KBuf<W>),
        l: &DgtLaunch<W>,
    ) -> Result<()> {
        let dev = |x: Buf| match x {
            Buf::A => a,
            Buf::B => b,
            Buf::Scratch => s,
        };
        const KERNEL: &str = "a DGT pass";
        // The batched passes from `BATCHED_FROM_COEFFS` coefficients on for
        // a product, `BATCHED_TRANSFORMS_FROM_COEFFS` for a transform.
        let coeffs = l.batch.saturating_mul(l.towers.rows as usize).saturating_mul(self.towers[0].n());
        let product = steps.iter().any(|s| match s {
            Step::Pass(p) => p.op == Op::Polymul,
            _ => matches!(s, Step::Pointwise),
        });
        let from = if product { BATCHED_FROM_COEFFS } else { BATCHED_TRANSFORMS_FROM_COEFFS };
        let batched = !self.batched.is_empty() && coeffs >= from;
        let ctx = ArgsContext {
            tables: self.tables.ptr().as_raw() as *const W,
            tables_len: self.tables.len(),
            layout: &self.layout,
            passes: if batched { &self.batched } else { &self.layout.passes },
            batch: l.batch as u32,
            grid: l.towers.grid(KERNEL)?,
            scalars: (l.p, l.mu, l.qbits),
        };
        let (k, log_m, s1) = (&self.kernels, self.towers[0].log_m(), self.layout.passes[0].s1);
        for step in steps {
            match *step {
                Step::Pass(p) => {
                    let args = pass_args(&p, &ctx, dev).map_err(refused(KERNEL))?;
                    launch::dgt_pass(g, k, args, l.towers.rows)?
                }
                Step::Encode { from, to } | Step::Decode { from, to } => {
                    let decode = matches!(step, Step::Decode { .. });
                    let w = self.table(if decode { self.layout.inv_weights } else { self.layout.weights });
                    launch::dgt_code(g, k, decode, log_m, s1, dev(from), dev(to), w, l)?
                }
                Step::Pointwise => launch::dgt_pointwise(g, k, log_m, a, b, l)?,
            }
        }
        Ok(())
    }

    /// Queues the forward DGT of every polynomial (and tower) in place:
    /// the schedule's launches (weights applied as the first pass loads, or
    /// Coala's encoding kernel first), leaving the transform in the natural
    /// (bit-reversed frequency) order. Returns the same words typed as the
    /// DGT domain ([`DgtView`]), which no NTT method takes.
    pub fn forward<'a>(&self, data: &'a mut DeviceView<W>) -> Result<&'a mut DgtView<W>> {
        self.gpu.check_operand(self, "data", data)?;
        self.transform(data, false)?;
        Ok(DgtView::of_mut(data))
    }

    /// Queues the inverse of [`DgtPlan::forward`] (`1/M` included) in
    /// place; returns the same words as coefficients again.
    pub fn inverse<'a>(&self, data: &'a mut DgtView<W>) -> Result<&'a mut DeviceView<W>> {
        let words = data.words_mut();
        self.gpu.check_operand(self, "data", words)?;
        self.transform(words, true)?;
        Ok(words)
    }

    /// The largest batch per tower of one launch.
    fn max_batch(&self) -> usize {
        crate::params::max_batch(self.tower_set.n())
    }

    /// A transform of any batch: above the launch limit, piece by piece.
    fn transform(&self, data: &mut DeviceView<W>, inverse: bool) -> Result<()> {
        let layout = self.tower_set.shape_of("data", data.len())?;
        if layout.batch > self.max_batch() {
            let q = self.queue();
            return split::device_call(&q, layout, self.max_batch(), None, data, None, false, |x, _| {
                self.transform_one(x, inverse)
            });
        }
        self.transform_one(data, inverse)
    }

    fn transform_one(&self, data: &mut DeviceView<W>, inverse: bool) -> Result<()> {
        let l = self.launch_args("data", data)?;
        let d = data.ptr();
        let s = self.scratch_ptr(data.len())?;
        let operands = (buf(d, data.len()), KBuf::none(), s);
        let key = CallKey { op: u8::from(inverse), a: (d.as_raw(), data.len()), ..CallKey::NONE };
        let steps = if inverse { &self.schedule.inverse } else { &self.schedule.forward };
        self.graphs.run(self.queue(), key, |q: Queue<'_>| self.run_on(q, steps, operands, &l))
    }

    /// Queues `a ← a · b` elementwise in the DGT domain (any batch: above
    /// the launch limit, piece by piece).
    pub fn pointwise_mul(&self, a: &mut DgtView<W>, b: &DgtView<W>) -> Result<()> {
        let (a, b) = (a.words_mut(), b.words());
        self.gpu.check_operand(self, "a", a)?;
        self.gpu.check_operand(self, "b", b)?;
        let layout = self.tower_set.operand_shape(a.len(), &[("b", b.len())])?;
        if layout.batch > self.max_batch() {
            let q = self.queue();
            let second = Some(Second::Shared(b));
            return split::device_call(
                &q,
                layout,
                self.max_batch(),
                None,
                a,
                second,
                false,
                |x, y| match y {
                    PieceB::Ref(o) => self.pointwise_one(x, o),
                    PieceB::Mut(o) => self.pointwise_one(x, o),
                    PieceB::None => Err(Error::LengthMismatch { what: "b", got: 0, expected: x.len() }),
                },
            );
        }
        self.pointwise_one(a, b)
    }

    fn pointwise_one(&self, a: &mut DeviceView<W>, b: &DeviceView<W>) -> Result<()> {
        self.tower_set.operands(a.len(), &[("b", b.len())])?;
        let l = self.launch_args("a", a)?;
        let log_m = self.towers[0].log_m();
        launch::dgt_pointwise(
            self.queue(),
            &self.kernels,
            log_m,
            buf(a.ptr(), a.len()),
            buf(b.ptr(), b.len()),
            &l,
        )
    }

    /// `a ← a ⊗ b` of any batch: above the launch limit, piece by piece.
    fn in_place(&self, a: &mut DeviceView<W>, b: &mut DeviceView<W>) -> Result<()> {
        let layout = self.tower_set.operand_shape(a.len(), &[("b", b.len())])?;
        if layout.batch > self.max_batch() {
            let q = self.queue();
            let second = Some(Second::Clobbered(b));
            return split::device_call(&q, layout, self.max_batch(), None, a, second, true, |x, y| {
                self.product_piece(x, y)
            });
        }
        self.in_place_one(a, b)
    }

    /// The in-place product of one piece of a split call.
    fn product_piece(&self, a: &mut DeviceView<W>, b: PieceB<'_, W>) -> Result<()> {
        let b = b.writable(a.len())?;
        self.in_place_one(a, b)
    }

    fn in_place_one(&self, a: &mut DeviceView<W>, b: &mut DeviceView<W>) -> Result<()> {
        self.tower_set.operands(a.len(), &[("b", b.len())])?;
        let l = self.launch_args("a", a)?;
        let (pa, pb) = (a.ptr(), b.ptr());
        let s = self.scratch_ptr(a.len())?;
        let key = CallKey { op: 2, a: (pa.as_raw(), a.len()), b: (pb.as_raw(), b.len()), ..CallKey::NONE };
        let steps = &self.schedule.polymul;
        let operands = (buf(pa, a.len()), buf(pb, b.len()), s);
        self.graphs.run(self.queue(), key, |q: Queue<'_>| self.run_on(q, steps, operands, &l))
    }
}

impl<W: Coeff> crate::Plan<W> for DgtPlan<W> {
    fn n(&self) -> usize {
        self.towers[0].n()
    }

    fn moduli(&self) -> Vec<u64> {
        self.tower_set.primes()
    }

    fn backend(&self) -> crate::Backend {
        crate::Backend::Gpu(self.gpu.info().name.clone())
    }

    fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let layout = self.tower_set.check_pair(a, b)?;
        let mut out = vec![W::default(); a.len()];
        let io = split::HostIo { a: Some(a), b: Some(b), out: &mut out };
        split::host_call(self, split::Op::Product, io, layout)?;
        Ok(out)
    }
}

/// Queues on the plan's stream; `polymul_in_place` leaves `b` as scratch
/// (partly transformed).
impl<W: Coeff> crate::Product<W, DeviceView<W>> for DgtPlan<W> {
    fn polymul_into(&self, a: &DeviceView<W>, b: &DeviceView<W>, out: &mut DeviceView<W>) -> Result<()> {
        self.gpu.check_operand(self, "a", a)?;
        self.gpu.check_operand(self, "b", b)?;
        self.gpu.check_operand(self, "out", out)?;
        let q = self.queue();
        let layout = self.tower_set.operand_shape(a.len(), &[("b", b.len()), ("out", out.len())])?;
        if layout.batch > self.max_batch() {
            let second = Some(Second::Shared(b));
            return split::device_call(&q, layout, self.max_batch(), Some(a), out, second, true, |x, y| {
                self.product_piece(x, y)
            });
        }
        scratch::product_into(&self.tower_set, &q, &self.copy_of_b, (a, b, out), |x, y| self.in_place(x, y))
    }

    fn polymul_in_place(&self, a: &mut DeviceView<W>, b: &mut DeviceView<W>) -> Result<()> {
        self.gpu.check_operand(self, "a", a)?;
        self.gpu.check_operand(self, "b", b)?;
        self.in_place(a, b)
    }
}

impl<W: Coeff> crate::DevicePlan<W> for DgtPlan<W> {
    fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    fn upload(&self, words: &[W]) -> Result<DeviceVec<W>> {
        let layout = self.tower_set.check("coeffs", words)?;
        Ok(self.gpu.upload(words)?.with_layout(layout))
    }

    fn zeros(&self, batch: usize) -> Result<DeviceVec<W>> {
        let layout = self.tower_set.shape(batch)?;
        Ok(self.gpu.zeros(layout.words())?.with_layout(layout))
    }

    fn download(&self, v: &DeviceView<W>) -> Result<Vec<W>> {
        self.queue().download(v)
    }

    fn set_stream(&mut self, stream: Option<&GpuStream>) {
        self.stream = stream.cloned();
    }

    fn synchronize(&self) -> Result<()> {
        self.queue().synchronize()
    }
}

impl<W: Coeff> SplitPlan<W> for DgtPlan<W> {
    fn split_towers(&self) -> &Towers<W> {
        &self.tower_set
    }

    fn split_queue(&self) -> Queue<'_> {
        self.queue()
    }

    fn run_piece(&self, op: split::Op, a: &mut DeviceView<W>, b: Option<&mut DeviceView<W>>) -> Result<()> {
        match (op, b) {
            (split::Op::Product, Some(b)) => self.in_place(a, b),
            // The DGT's host slices are products only (no NTT transform).
            _ => Err(Error::NotNttDomain),
        }
    }

    fn own_buffers(&self) -> usize {
        usize::from(self.schedule.needs_scratch())
    }
}

crate::traits::host_slices_via_device!(DgtPlan);
