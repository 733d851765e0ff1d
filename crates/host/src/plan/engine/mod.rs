//! What [`super::NttPlan`] and [`crate::rns::RnsPlan`] share: device tables
//! for one or more towers (moduli of the same N), the kernels, the
//! automatic kernel/radix/tile choice, and the transforms and products on
//! device buffers. One tower is a plain NTT plan; several are an RNS plan
//! whose every launch covers all towers (block row = tower, see
//! `polymul_kernels::towers`).

mod choice;
mod lazy_state;

use super::launch::{self, Direction, Pipeline, Radix2Kernels, TiledKernels, TiledLaunch};
use super::lazy::LazySchedule;
use super::twiddles::DeviceMultiplicands;
use super::{AUTO_TILES, NttKernel, PlanOptions, RowTwiddles};
use crate::ciphertext::TensorShape;
use crate::gpu::graph::{CallKey, GraphCache};
use crate::gpu::launch::{Queue, TowerLaunch, buf};
use crate::gpu::reduced::RangeCheck;
use crate::gpu::scratch::{self, Scratch};
use crate::gpu::split::{self, Op, PieceB, Second, SplitPlan};
use crate::gpu::{DeviceVec, DeviceView, Gpu, GpuStream};
use crate::layout::Towers;
use crate::params::NttParams;
use crate::reduction::Multiplicands;
use crate::{Coeff, Error, Result};
use choice::LazyRoute;
use lazy_state::LazyState;
use polymul_kernels::arith::Barrett4;
use polymul_kernels::ntt::tiled::TileGeometry;
use polymul_kernels::towers::TowerConsts;

/// Tables, kernels and rules of a plan over `towers` moduli of one N.
pub(crate) struct NttEngine<W: Coeff> {
    pub(crate) gpu: Gpu,
    /// The fused Hadamard kernel of a fused-polymul plan.
    fused: Option<crate::gpu::kernel::TypedKernel<polymul_kernels::pointwise::FusedHadamardArgs<W>>>,
    /// The pipelined 2D kernel's streams and events, one caller at a time.
    pipeline: Option<std::sync::Mutex<Pipeline>>,
    /// `log2` of the radix asked for, `None` = by the measured rule.
    log_radix: Option<u32>,
    log_n: u32,
    towers: usize,
    /// Forward twiddles of every tower, tower after tower.
    twiddles: DeviceMultiplicands<W>,
    /// Inverse twiddles of every tower.
    inv_twiddles: DeviceMultiplicands<W>,
    /// Words of one tower's table.
    tw_words: usize,
    /// The per-tower constants table (`TOWER_WORDS` words per tower); `None`
    /// for one tower, whose constants travel as kernel scalars.
    moduli: Option<DeviceVec<W>>,
    /// The moduli and the input checks they imply.
    tower_set: Towers<W>,
    /// Tower 0's Algorithm-4 constants (the scalars of every launch).
    barrett: Barrett4<W>,
    kernels: Radix2Kernels<W>,
    /// The shared-memory kernels for each largest radix 2, 4, 8, 16.
    tiled: Vec<TiledKernels<W>>,
    /// Usable tile geometries of the tiled kernel, smallest tile first.
    geometries: Vec<TileGeometry>,
    /// Usable 2D geometries, smallest tile first.
    geometries_2d: Vec<TileGeometry>,
    pub(crate) options: PlanOptions,
    /// The stream the plan queues on, if bound (else the GPU's).
    stream: Option<GpuStream>,
    /// The lazy kernels and their tables, where the plan may run them.
    lazy: Option<LazyState<W>>,
    /// Graphs of repeated small calls (`LazyState::replays`).
    graphs: GraphCache,
    /// The second operand's copy in an out-of-place product.
    scratch: Scratch<W>,
    /// The two inputs' copies in an out-of-place tensor product (their own,
    /// so products and tensor products do not resize each other's).
    tensor_scratch: [Scratch<W>; 2],
    /// The reduction check of device operands, made at its first use.
    range: std::sync::OnceLock<RangeCheck<W>>,
}

impl<W: Coeff> NttEngine<W> {
    /// Uploads the twiddles of every tower and prepares the kernels.
    /// `towers` is non-empty and all of one N (the callers guarantee it).
    /// `auto_rows`: what [`RowTwiddles::Auto`] means for this plan (the
    /// caller's kind of plan decides).
    pub(crate) fn new(
        gpu: &Gpu,
        towers: &[NttParams<W>],
        options: PlanOptions,
        auto_rows: RowTwiddles,
    ) -> Result<Self> {
        let first = towers.first().ok_or(Error::EmptyBasis)?;
        let tower_set = Towers::new(first.n(), towers.iter().map(|p| p.q()).collect())?;
        let (n, log_n) = (first.n(), first.log_n());
        let r = options.reduction;
        if options.fused_polymul && log_n < 2 {
            return Err(Error::InvalidN { n, min: 4, max: crate::params::MAX_N });
        }
        // A fused plan's truncated transforms and fused step read only the
        // first half of each table (stages below log N − 1).
        let tw_words = if options.fused_polymul { n / 2 } else { n };
        let prepare = |inverse: bool| -> Result<Vec<Multiplicands<W>>> {
            towers
                .iter()
                .map(|p| {
                    let t = if inverse { p.inv_twiddles() } else { p.twiddles() };
                    Multiplicands::new(r, p.q(), &t[..tw_words])
                })
                .collect()
        };
        let fwd = prepare(false)?;
        let inv = prepare(true)?;
        let w = std::mem::size_of::<W>();
        let max = gpu.info().max_shared_per_block;
        let log_radix = match options.radix {
            None => None,
            Some(r @ (2 | 4 | 8 | 16)) => Some(r.trailing_zeros()),
            Some(radix) => return Err(Error::BadRadix { radix }),
        };
        if let Some(radix) = options.latency_radix.filter(|r| ![4, 8, 16].contains(r)) {
            return Err(Error::BadLatencyRadix { radix });
        }
        let two_d = matches!(options.kernel, NttKernel::TwoD | NttKernel::TwoDPipelined);
        // The lazy kernels: asked for (then they must cover the plan), or
        // available to the automatic choice where they do.
        let lazy_radix = match options.radix {
            Some(8) => Some(3),
            Some(16) => Some(4),
            _ => None,
        };
        let lazy_sched = match (options.kernel, options.fused_polymul) {
            (NttKernel::Lazy | NttKernel::Cluster, true) => {
                return Err(Error::NoTransformFor {
                    why: "the lazy kernels run whole transforms only: use fused_polymul with the tiled or \
                          2D kernel, or the lazy kernel without fused_polymul"
                        .into(),
                });
            }
            (NttKernel::Lazy | NttKernel::Cluster, false) => {
                if matches!(options.radix, Some(2 | 4)) {
                    return Err(Error::NoTransformFor {
                        why: "the lazy kernels have radix 8 and 16 only: choose one of those, or None".into(),
                    });
                }
                Some(LazySchedule::new::<W>(log_n, lazy_radix).ok_or(Error::InvalidN {
                    n,
                    min: 1 << polymul_kernels::ntt::lazy::MIN_ROW_L,
                    max: 1 << (polymul_kernels::ntt::lazy::MAX_COL_L + polymul_kernels::ntt::lazy::MAX_ROW_L),
                })?)
            }
            (NttKernel::Auto, false) => LazySchedule::new::<W>(log_n, lazy_radix),
            _ => None,
        };
        // A GPU whose blocks cannot have the passes' shared memory (Turing:
        // 64 KiB) runs the other kernels.
        let lazy_sched = match lazy_sched {
            Some(sc) if sc.max_smem_bytes::<W>() as usize > max => {
                if matches!(options.kernel, NttKernel::Lazy | NttKernel::Cluster) {
                    return Err(Error::NoTransformFor {
                        why: format!(
                            "the lazy kernels at N = {n} need {} bytes of shared memory per block, this GPU \
                             allows {max}: use NttKernel::Auto",
                            sc.max_smem_bytes::<W>()
                        ),
                    });
                }
                None
            }
            s => s,
        };
        // The tile sizes this plan may use: the one asked for, or the
        // automatic candidates (see `PlanOptions::tile_bytes`).
        let candidates: Vec<usize> = match options.tile_bytes {
            Some(b) => {
                // Checked: a tile of any size is refused, never an overflow.
                let padded = polymul_kernels::smem::padded_words(b / w, w).checked_mul(w);
                if !b.is_power_of_two() || b < 2 * w || padded.is_none_or(|p| p > max) {
                    return Err(Error::BadTile { bytes: b, min: 2 * w, max });
                }
                vec![b]
            }
            None => AUTO_TILES
                .iter()
                .copied()
                .filter(|&b| polymul_kernels::smem::padded_words(b / w, w) * w <= max)
                .collect(),
        };
        let geometries_for = |two_d: bool| -> (Vec<TileGeometry>, Option<Error>) {
            let (mut out, mut refusal) = (Vec::new(), None);
            for &b in &candidates {
                let log_tile = (b / w).trailing_zeros();
                let geo = if two_d {
                    crate::params::geometry_2d(log_n, log_tile)
                } else {
                    crate::params::tile_geometry(log_n, log_tile)
                };
                match geo {
                    Ok(g) if !out.contains(&g) => out.push(g),
                    Ok(_) => {}
                    Err(e) => refusal = Some(e),
                }
            }
            (out, refusal)
        };
        let (geometries, refusal) = geometries_for(false);
        let (geometries_2d, refusal_2d) = geometries_for(true);
        let (needed, refusal) = if two_d { (&geometries_2d, refusal_2d) } else { (&geometries, refusal) };
        let Some(largest) = needed.last().map(|g: &TileGeometry| (1usize << g.log_tile) * w) else {
            // Not even the largest tile covers N in two passes (or none fits the device).
            return Err(refusal.unwrap_or(Error::BadTile {
                bytes: polymul_kernels::TILE_BYTES,
                min: 2 * w,
                max,
            }));
        };
        let largest = geometries_2d.last().map_or(largest, |g| largest.max((1usize << g.log_tile) * w));
        // Everything is validated: now the device.
        let twiddles = DeviceMultiplicands::upload_all(gpu, &fwd)?;
        let inv_twiddles = DeviceMultiplicands::upload_all(gpu, &inv)?;
        let rows = tower_set.table_rows(|i| {
            let b = towers[i].barrett();
            TowerConsts { parts: fwd[i].parts, barrett4: (b.mu, b.m) }
        });
        let moduli = rows.map(|r| gpu.upload(&r)).transpose()?;
        let fused = if options.fused_polymul { Some(launch::fused_kernel::<W>(gpu, r)?) } else { None };
        let kernels = Radix2Kernels::new(gpu, r)?;
        let tiled = polymul_kernels::names::TILED_LOG_RADIX
            .map(|lr| TiledKernels::new(gpu, r, lr, largest))
            .collect::<Result<Vec<_>>>()?;
        let computed_rows = match options.row_twiddles {
            RowTwiddles::Auto => auto_rows == RowTwiddles::Computed,
            r => r == RowTwiddles::Computed,
        };
        let lazy = lazy_sched
            .map(|sc| {
                LazyState::new(gpu, towers, &sc.with_computed_rows::<W>(computed_rows), lazy_radix, &options)
            })
            .transpose()?;
        let pipeline = match options.kernel {
            NttKernel::TwoDPipelined => Some(std::sync::Mutex::new(Pipeline::new(gpu)?)),
            _ => None,
        };
        Ok(Self {
            gpu: gpu.clone(),
            fused,
            pipeline,
            log_radix,
            log_n,
            towers: towers.len(),
            twiddles,
            inv_twiddles,
            tw_words,
            moduli,
            tower_set,
            barrett: *first.barrett(),
            kernels,
            tiled,
            geometries,
            geometries_2d,
            options,
            stream: None,
            lazy,
            graphs: GraphCache::new(gpu, options.graph_cache),
            scratch: Scratch::new(),
            tensor_scratch: [Scratch::new(), Scratch::new()],
            range: std::sync::OnceLock::new(),
        })
    }

    fn n(&self) -> usize {
        1 << self.log_n
    }

    /// Queues this plan's later work on `stream` (`None`: the GPU's).
    pub(crate) fn set_stream(&mut self, stream: Option<&GpuStream>) {
        // A fused launch still queued on the old stream counts in the fused
        // kernels' control words; the next one, on the new stream, must not
        // share them.
        if let Some(f) = self.lazy.as_ref().and_then(|l| l.fused.as_ref()) {
            f.release_ctrl();
        }
        self.stream = stream.cloned();
    }

    pub(crate) fn queue(&self) -> Queue<'_> {
        Queue::on(&self.gpu, self.stream.as_ref())
    }

    /// Polynomials per tower in `v` ([`Towers::layout_of`]: a positive
    /// multiple of `towers · N` words, of this plan's shape if it says).
    pub(crate) fn batch_of(&self, what: &'static str, v: &DeviceView<W>) -> Result<usize> {
        Ok(self.tower_set.layout_of(what, v.len())?.batch)
    }

    /// The moduli and the input checks.
    pub(crate) fn tower_set(&self) -> &Towers<W> {
        &self.tower_set
    }

    /// `batch` zero polynomials per tower on the device (validated first;
    /// any batch: calls above the launch limit split, gpu/split.rs).
    pub(crate) fn zeros(&self, batch: usize) -> Result<DeviceVec<W>> {
        let layout = self.tower_set.shape(batch)?;
        // `shape` checked that the words (and bytes) do not overflow.
        Ok(self.gpu.zeros(layout.words())?.with_layout(layout))
    }

    /// The largest batch per tower of one launch.
    fn max_batch(&self) -> usize {
        crate::params::max_batch(self.n())
    }

    /// `out ← a ⊗ b`, operands intact: `a` copied into `out`, `b` into the
    /// plan's scratch, the in-place product on those; above the launch
    /// limit, piece by piece (a piece of `b` copied at a time).
    pub(crate) fn polymul_into(
        &self,
        a: &DeviceView<W>,
        b: &DeviceView<W>,
        out: &mut DeviceView<W>,
    ) -> Result<()> {
        let q = self.queue();
        let layout = self.tower_set.operand_shape(a.len(), &[("b", b.len()), ("out", out.len())])?;
        if layout.batch > self.max_batch() {
            let second = Some(Second::Shared(b));
            return split::device_call(&q, layout, self.max_batch(), Some(a), out, second, true, |x, y| {
                self.product_piece(x, y)
            });
        }
        scratch::product_into(&self.tower_set, &q, &self.scratch, (a, b, out), |x, y| {
            self.polymul_in_place(x, y)
        })
    }

    /// The in-place product of one piece of a split call.
    fn product_piece(&self, a: &mut DeviceView<W>, b: PieceB<'_, W>) -> Result<()> {
        let b = b.writable(a.len())?;
        self.polymul_in_place(a, b)
    }

    /// The host-in, host-out product: both operands validated, then
    /// computed whole or in pieces (gpu/split.rs).
    pub(crate) fn host_product(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let layout = self.tower_set.check_pair(a, b)?;
        let mut out = vec![W::default(); a.len()];
        let io = split::HostIo { a: Some(a), b: Some(b), out: &mut out };
        split::host_call(self, Op::Product, io, layout)?;
        Ok(out)
    }

    /// Validates tower-major host words ([`Towers::check`]) and uploads them.
    pub(crate) fn upload(&self, what: &'static str, words: &[W]) -> Result<DeviceVec<W>> {
        let layout = self.tower_set.check(what, words)?;
        Ok(self.gpu.upload(words)?.with_layout(layout))
    }

    /// The tower arguments of a launch over `batch` polynomials per tower.
    fn tower_launch(&self, batch: usize) -> TowerLaunch<W> {
        TowerLaunch {
            moduli: self.moduli.as_ref().map_or(cust::memory::DevicePointer::null(), |m| m.ptr()),
            rows: self.towers as u32,
            data_words: (batch * self.n()) as u64,
            tw_words: self.tw_words as u32,
            moduli_words: self.moduli.as_ref().map_or(0, |m| m.len()),
        }
    }

    /// Device bytes of the twiddle tables (forward and inverse, main and
    /// auxiliary words, every tower).
    pub(crate) fn twiddle_bytes(&self) -> usize {
        let lazy = self.lazy.as_ref().map_or(0, LazyState::bytes);
        self.twiddles.bytes() + self.inv_twiddles.bytes() + lazy
    }

    /// Runs stages `0..stop` of a transform (`stop = log N`: the whole one).
    pub(crate) fn transform(&self, dir: Direction, data: &mut DeviceView<W>, stop: u32) -> Result<()> {
        let batch = self.batch_of("data", data)?;
        let twiddles = self.table(dir);
        let inverse = dir == Direction::Inverse;
        let kernel = self.kernel_for_dir(batch, inverse);
        let log_radix = self.log_radix_for(batch, inverse);
        let tiled = &self.tiled[(log_radix - 1) as usize];
        let towers = self.tower_launch(batch);
        let cfg = |k| TiledLaunch {
            geo: self.tile_for(k, batch),
            log_radix,
            direct: !self.options.shared_only,
            stop,
        };
        if let (NttKernel::Cluster, Some(lz)) = (kernel, &self.lazy)
            && let Some(ck) = &lz.cluster
        {
            let t = lz.tables();
            return launch::cluster_ntt(self.queue(), ck, dir, data, &t, batch, self.log_n, &towers);
        }
        match self.lazy_route(dir, batch) {
            Some(LazyRoute::Fused(fk, t)) => {
                return launch::fused_ntt(self.queue(), fk, dir, data, &t, batch, self.log_n, &towers);
            }
            Some(LazyRoute::Plain(path, lz)) => {
                let (a, words) = (data.ptr(), data.len());
                let record = |q: Queue<'_>| {
                    launch::lazy_ntt(
                        q,
                        path.kernels,
                        dir,
                        (a, words),
                        &path.tables,
                        batch,
                        self.log_n,
                        &towers,
                    )
                };
                if lz.replays(batch.saturating_mul(self.towers)) {
                    // A few polynomials, or a ciphertext's towers: the
                    // launches cost much of the call, so a repeated call
                    // replays them as one graph.
                    let key = CallKey { op: dir as u8, a: (a.as_raw(), data.len()), ..CallKey::NONE };
                    return self.graphs.run(self.queue(), key, record);
                }
                return record(self.queue());
            }
            None => {}
        }
        match (kernel, &self.pipeline) {
            (NttKernel::Radix2Global, _) => launch::radix2_ntt(
                self.queue(),
                &self.kernels,
                dir,
                data,
                twiddles,
                batch,
                self.log_n,
                0..stop,
                &towers,
            ),
            (NttKernel::TwoDPipelined, Some(pipe)) => {
                let c = cfg(kernel);
                // A panic elsewhere cannot leave the streams inconsistent.
                let pipe = &*pipe.lock().unwrap_or_else(|e| e.into_inner());
                launch::tiled_ntt_pipelined(
                    self.queue(),
                    tiled,
                    dir,
                    data,
                    twiddles,
                    batch,
                    &c,
                    pipe,
                    &towers,
                )
            }
            (k, _) => launch::tiled_ntt(self.queue(), tiled, dir, data, twiddles, batch, &cfg(k), &towers),
        }
    }

    fn table(&self, dir: Direction) -> &DeviceMultiplicands<W> {
        match dir {
            Direction::Forward => &self.twiddles,
            Direction::Inverse => &self.inv_twiddles,
        }
    }

    /// `acc ← acc ⊙ other` (element-wise, each tower modulo its prime);
    /// above the launch limit, piece by piece.
    pub(crate) fn pointwise_mul(&self, acc: &mut DeviceView<W>, other: &DeviceView<W>) -> Result<()> {
        // `acc` first, then `other` (the order of the errors before issue 17).
        self.tower_set.shape_of("acc", acc.len())?;
        let layout = self.tower_set.operand_shape(acc.len(), &[("other", other.len())])?;
        if layout.batch > self.max_batch() {
            let q = self.queue();
            let second = Some(Second::Shared(other));
            return split::device_call(
                &q,
                layout,
                self.max_batch(),
                None,
                acc,
                second,
                false,
                |x, y| match y {
                    PieceB::Ref(o) => self.pointwise_mul(x, o),
                    PieceB::Mut(o) => self.pointwise_mul(x, o),
                    PieceB::None => Err(Error::LengthMismatch { what: "other", got: 0, expected: x.len() }),
                },
            );
        }
        self.batch_of("acc", acc)?;
        let batch = self.tower_set.operands(acc.len(), &[("other", other.len())])?.batch;
        let towers = self.tower_launch(batch);
        launch::pointwise_mul(self.queue(), &self.kernels, acc, other, &self.barrett, &towers)
    }

    fn pair(&self, a: &DeviceView<W>, b: &DeviceView<W>) -> Result<usize> {
        Ok(self.tower_set.operands(a.len(), &[("b", b.len())])?.batch)
    }

    /// The middle of a polymul alone, on operands after stages
    /// `0..log N − 1` of the forward transform: the fused step (fused plan)
    /// or the last forward stage of both, the pointwise product and the
    /// first inverse stage (radix-2 kernels). Both give the same words.
    pub(crate) fn hadamard_step(&self, a: &mut DeviceView<W>, b: &mut DeviceView<W>) -> Result<()> {
        let batch = self.pair(a, b)?;
        let towers = self.tower_launch(batch);
        let log_n = self.log_n;
        if let Some(f) = &self.fused {
            return launch::fused_hadamard(
                self.queue(),
                f,
                a,
                b,
                &self.twiddles,
                batch,
                log_n,
                &self.barrett,
                &towers,
            );
        }
        let last = log_n - 1..log_n;
        let (k, fwd) = (&self.kernels, &self.twiddles);
        launch::radix2_ntt(self.queue(), k, Direction::Forward, a, fwd, batch, log_n, last.clone(), &towers)?;
        launch::radix2_ntt(self.queue(), k, Direction::Forward, b, fwd, batch, log_n, last.clone(), &towers)?;
        self.pointwise_mul(a, b)?;
        let inv = &self.inv_twiddles;
        launch::radix2_ntt(self.queue(), k, Direction::Inverse, a, inv, batch, log_n, last, &towers)
    }

    /// `a ← a ⊗ b` for every pair (and tower); `b` is clobbered (transformed, or
    /// with the lazy kernels only column-transformed).
    pub(crate) fn polymul_in_place(&self, a: &mut DeviceView<W>, b: &mut DeviceView<W>) -> Result<()> {
        let layout = self.tower_set.operand_shape(a.len(), &[("b", b.len())])?;
        if layout.batch > self.max_batch() {
            let q = self.queue();
            let second = Some(Second::Clobbered(b));
            return split::device_call(&q, layout, self.max_batch(), None, a, second, true, |x, y| {
                self.product_piece(x, y)
            });
        }
        self.pair(a, b)?;
        let log_n = self.log_n;
        if self.fused.is_some() {
            // Algorithm 8: truncated forward transforms, the fused step,
            // truncated inverse.
            self.transform(Direction::Forward, a, log_n - 1)?;
            self.transform(Direction::Forward, b, log_n - 1)?;
            self.hadamard_step(a, b)?;
            return self.transform(Direction::Inverse, a, log_n - 1);
        }
        // Both directions on the lazy kernels: the product pass fuses the
        // forward row pass, the pointwise product and the inverse row pass.
        let batch = self.batch_of("a", a)?;
        let lazy = |inverse| self.kernel_for_dir(batch, inverse) == NttKernel::Lazy;
        let cluster = |inverse| self.kernel_for_dir(batch, inverse) == NttKernel::Cluster;
        if cluster(false) && cluster(true) {
            // One pass each way: 2 forward, pointwise, inverse.
            self.whole(Direction::Forward, a)?;
            self.whole(Direction::Forward, b)?;
            self.pointwise_mul(a, b)?;
            return self.whole(Direction::Inverse, a);
        }
        if let (true, true, Some(lz)) = (lazy(false), lazy(true), &self.lazy) {
            let path = lz.product_path_for(batch.saturating_mul(self.towers));
            let towers = self.tower_launch(batch);
            let (pa, pb) = (a.ptr(), b.ptr());
            let operands = (buf(pa, a.len()), buf(pb, b.len()));
            let record = |q: Queue<'_>| {
                launch::lazy_polymul(q, path.kernels, operands, &path.product, batch, log_n, &towers)
            };
            if lz.replays(batch.saturating_mul(self.towers)) {
                // As for the transforms: repeated calls replay one graph.
                let key =
                    CallKey { op: 2, a: (pa.as_raw(), a.len()), b: (pb.as_raw(), b.len()), ..CallKey::NONE };
                return self.graphs.run(self.queue(), key, record);
            }
            return record(self.queue());
        }
        self.whole(Direction::Forward, a)?;
        self.whole(Direction::Forward, b)?;
        self.pointwise_mul(a, b)?;
        self.whole(Direction::Inverse, a)
    }

    /// Queues the reduction check of `data` (whole polynomials of every
    /// tower, at most one launch's batch) on the plan's stream
    /// ([`RangeCheck`]).
    pub(crate) fn queue_reduced_check(&self, data: &DeviceView<W>) -> Result<()> {
        let layout = self.tower_set.layout_of("data", data.len())?;
        let check = match self.range.get() {
            Some(c) => c,
            None => {
                let c = RangeCheck::new(&self.gpu)?;
                // Another thread may have set one meanwhile: either serves.
                let _ = self.range.set(c);
                self.range.get().ok_or(Error::CudaCode { during: "making the range check", code: 0 })?
            }
        };
        check.queue(&self.queue(), data, &self.tower_launch(layout.batch), self.barrett.q)
    }

    /// [`Error::UnreducedDeviceInput`] if a check queued since the last
    /// call found an unreduced word (read without waiting for the GPU).
    pub(crate) fn take_reduced_error(&self) -> Result<()> {
        match self.range.get() {
            Some(c) if c.take() => Err(Error::UnreducedDeviceInput),
            _ => Ok(()),
        }
    }

    /// The ciphertext tensor product ([`crate::ciphertext`]): `a` and `b`
    /// (`2m` polynomials per tower) transformed forward in place (left in
    /// the NTT domain), the tensor kernel into `out` (`3m`), the inverse of
    /// `out`. Refused by a fused-polymul plan (no whole transforms).
    pub(crate) fn tensor_in_place(
        &self,
        a: &mut DeviceView<W>,
        b: &mut DeviceView<W>,
        out: &mut DeviceView<W>,
    ) -> Result<()> {
        let shape = TensorShape::check(self.n(), self.towers, a.len(), b.len(), out.len())?;
        if self.options.fused_polymul {
            return Err(Error::FusedPlanTransform);
        }
        // The tensor launch addresses `m · N` positions per tower.
        self.tower_set.layout(3 * shape.m)?;
        let (fwd, inv) = (
            self.lazy_route(Direction::Forward, 2 * shape.m),
            self.lazy_route(Direction::Inverse, 3 * shape.m),
        );
        if let (Some(LazyRoute::Plain(fa, lz)), Some(LazyRoute::Plain(io, _))) = (fwd, inv)
            && 3 * shape.m <= self.max_batch()
        {
            // Both forwards paired (each pass one launch over `a` and `b`),
            // the tensor kernel and the inverse: five launches (four where
            // the inverse reads the products itself), replayed as one graph
            // on a repeated call where the call is small enough.
            let (tw_in, tw_out) = (self.tower_launch(2 * shape.m), self.tower_launch(3 * shape.m));
            let (log_n, m) = (self.log_n, shape.m);
            let (ba, bb, bo) = (buf(a.ptr(), a.len()), buf(b.ptr(), b.len()), buf(out.ptr(), out.len()));
            let record = |q: Queue<'_>| {
                launch::lazy_forward_pair(q, fa.kernels, (ba, bb), &fa.tables, 2 * m, log_n, &tw_in)?;
                if io.kernels.has_tensor_inverse() {
                    // The inverse's first pass reads the products itself
                    // (four launches): no tensor kernel, and the `3m`
                    // products never go through global memory before it.
                    // SAFETY: `lazy_inverse_of_tensor`'s contract, as for
                    // `launch::tensor` below: `a` and `b` hold the
                    // forwards' reduced words, `out` overlaps neither, all
                    // three borrowed for this call (a replay runs on the
                    // key's same buffers).
                    return unsafe {
                        launch::lazy_inverse_of_tensor(
                            q,
                            io.kernels,
                            (ba, bb, bo),
                            &io.tables,
                            3 * m,
                            log_n,
                            &tw_out,
                        )
                    };
                }
                // SAFETY: `launch::tensor`'s contract: `out` is distinct from
                // `a` and `b` (a `&mut` view beside two shared ones, all
                // borrowed for this call; a replayed graph runs on the same
                // buffers, the key's), the shapes were checked by
                // `TensorShape::check` above, `tw_in` is `tower_launch(2m)`
                // and the inputs hold the forwards' reduced words.
                unsafe { launch::tensor(q, &self.kernels, (ba, bb, bo), log_n, &self.barrett, &tw_in) }?;
                let (po, words) = (out.ptr(), out.len());
                launch::lazy_ntt(
                    q,
                    io.kernels,
                    Direction::Inverse,
                    (po, words),
                    &io.tables,
                    3 * m,
                    log_n,
                    &tw_out,
                )
            };
            if lz.replays((3 * shape.m).saturating_mul(self.towers)) {
                let key = CallKey {
                    op: 3,
                    a: (a.ptr().as_raw(), a.len()),
                    b: (b.ptr().as_raw(), b.len()),
                    c: (out.ptr().as_raw(), out.len()),
                };
                return self.graphs.run(self.queue(), key, record);
            }
            return record(self.queue());
        }
        self.whole(Direction::Forward, a)?;
        self.whole(Direction::Forward, b)?;
        let towers = self.tower_launch(shape.input.batch);
        let bufs = (buf(a.ptr(), a.len()), buf(b.ptr(), b.len()), buf(out.ptr(), out.len()));
        // SAFETY: as for the replayed launch above: `out` is a `&mut` view
        // beside the shared `a` and `b`, the shapes were checked by
        // `TensorShape::check`, `towers` is `tower_launch(2m)`, and the
        // forwards above left the inputs' words reduced.
        unsafe { launch::tensor(self.queue(), &self.kernels, bufs, self.log_n, &self.barrett, &towers) }?;
        self.whole(Direction::Inverse, out)
    }

    /// [`NttEngine::tensor_in_place`] with the inputs intact: each copied
    /// into one of the plan's two tensor scratch buffers first.
    pub(crate) fn tensor_into(
        &self,
        a: &DeviceView<W>,
        b: &DeviceView<W>,
        out: &mut DeviceView<W>,
    ) -> Result<()> {
        TensorShape::check(self.n(), self.towers, a.len(), b.len(), out.len())?;
        let q = self.queue();
        let [sa, sb] = &self.tensor_scratch;
        sa.with_copy(&q, a, |ca| sb.with_copy(&q, b, |cb| self.tensor_in_place(ca, cb, out)))
    }

    /// The tensor product of host words: both validated, uploaded, computed
    /// on the device and downloaded.
    pub(crate) fn host_tensor(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let shape = TensorShape::check(self.n(), self.towers, a.len(), b.len(), a.len() / 2 * 3)?;
        self.tower_set.check("a", a)?;
        self.tower_set.check("b", b)?;
        let q = self.queue();
        let (mut da, mut db) = (self.gpu.upload(a)?, self.gpu.upload(b)?);
        let mut out = self.gpu.zeros(shape.out_words())?;
        self.tensor_in_place(&mut da, &mut db, &mut out)?;
        q.download(&out)
    }

    /// A whole transform; refused by a fused-polymul plan. Above the
    /// launch limit, piece by piece.
    pub(crate) fn whole(&self, dir: Direction, data: &mut DeviceView<W>) -> Result<()> {
        if self.options.fused_polymul {
            return Err(Error::FusedPlanTransform);
        }
        let layout = self.tower_set.shape_of("data", data.len())?;
        if layout.batch > self.max_batch() {
            let q = self.queue();
            return split::device_call(&q, layout, self.max_batch(), None, data, None, false, |x, _| {
                self.transform(dir, x, self.log_n)
            });
        }
        self.transform(dir, data, self.log_n)
    }
}

impl<W: Coeff> SplitPlan<W> for NttEngine<W> {
    fn split_towers(&self) -> &Towers<W> {
        &self.tower_set
    }

    fn split_queue(&self) -> Queue<'_> {
        self.queue()
    }

    fn run_piece(&self, op: Op, a: &mut DeviceView<W>, b: Option<&mut DeviceView<W>>) -> Result<()> {
        let missing = |len| Error::LengthMismatch { what: "b", got: 0, expected: len };
        match (op, b) {
            (Op::Product, Some(b)) => self.polymul_in_place(a, b),
            (Op::Pointwise, Some(b)) => self.pointwise_mul(a, b),
            (Op::Forward, _) => self.whole(Direction::Forward, a),
            (Op::Inverse, _) => self.whole(Direction::Inverse, a),
            (Op::Product | Op::Pointwise, None) => Err(missing(a.len())),
        }
    }
}
