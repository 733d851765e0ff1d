//! The lazy kernels' state of an [`super::NttEngine`]: their schedule,
//! kernels and Shoup-pair tables of every tower, and which launch path a
//! call takes (fused, latency, or the full-tile passes).

use super::super::PlanOptions;
use super::super::launch::{ClusterKernels, FusedKernels, LazyKernels, LazyTables};
use super::super::lazy::{LazySchedule, TablePair};
use crate::gpu::{DeviceVec, Gpu};
use crate::params::NttParams;
use crate::{Coeff, Error, Result};
use polymul_kernels::arith::Barrett4;

/// What a plan needs to run [`NttKernel::Lazy`]: the schedule, its
/// kernels and the Shoup-pair tables of every tower.
pub(super) struct LazyState<W: Coeff> {
    pub(super) kernels: LazyKernels<W>,
    /// The one-pass cluster kernels, where the size, GPU and driver have them.
    pub(super) cluster: Option<ClusterKernels<W>>,
    /// Both passes in one launch, where the size has them.
    pub(super) fused: Option<FusedKernels<W>>,
    /// The tables of every tower.
    pub(super) tables: LazyTableSet<W>,
    /// Tower 0's Algorithm-4 constants (the scalars of a one-tower launch).
    pub(super) barrett: Barrett4<W>,
    /// The latency schedule's kernels (`LazySchedule::latency`) and its
    /// tables where they differ from `tables`, for launches too small to
    /// fill the GPU with full tiles ([`LazyState::latency_for`]).
    pub(super) latency: Option<LatencyPath<W>>,
    /// The full tiles at radix 8 for polymuls of moderate batches
    /// ([`LazyState::product_path_for`]) and transforms in measured bands
    /// ([`LazyState::transform_moderate`]), where the plan's size and
    /// towers have them.
    pub(super) moderate: Option<ModeratePath<W>>,
    /// `log2 N`.
    pub(super) log_n: u32,
    /// Blocks of the full-tile schedule's first forward pass per polynomial.
    pub(super) blocks_per_poly: usize,
    /// The GPU's SMs.
    pub(super) multiprocessors: usize,
}

/// The latency schedule of a plan: its pass kernels and its own tables
/// where they differ from the full-tile schedule's. (Both passes in one
/// launch, as the fused kernels run them, measured slower here: H100, `u32`
/// N = 2^16 forward back to back 10.7 µs against 7.1 for two launches;
/// docs/latency.md.)
pub(super) struct LatencyPath<W: Coeff> {
    pub(super) kernels: LazyKernels<W>,
    pub(super) tables: Option<LazyTableSet<W>>,
}

/// The moderate schedule of a plan: full tiles at radix 8 (twice the
/// threads per word of the default's radix-16 passes), which a polymul of
/// a moderate batch ([`moderate_product_bounds`]) and a transform in a
/// measured band ([`moderate_transform_words`]) run.
pub(super) struct ModeratePath<W: Coeff> {
    pub(super) kernels: LazyKernels<W>,
    /// Its tables (every pass's: its row and product passes share one
    /// radix); `None` where they are the plan's transform tables
    /// (`LazySchedule::product_reads_tables_of`: `u64` sizes whose row
    /// passes run radix 8 already).
    pub(super) tables: Option<LazyTableSet<W>>,
}

/// One schedule's tables of every tower, tower after tower.
pub(super) struct LazyTableSet<W: Coeff> {
    /// Forward tables, `tw_pairs` pairs per tower.
    pub(super) fwd: DeviceVec<W>,
    /// Inverse tables.
    pub(super) inv: DeviceVec<W>,
    /// Pairs of one tower's table in each direction.
    pub(super) tw_pairs: u32,
    /// A polymul's own tables (forward, inverse, pairs per tower), where the
    /// product pass has another radix than the row passes
    /// (`plan::lazy::product_tables`).
    pub(super) product: Option<(DeviceVec<W>, DeviceVec<W>, u32)>,
    /// The tables end in the computed row twiddles' small tables
    /// (`LazySchedule::computed_rows`), the product's too.
    pub(super) computed_rows: bool,
}

impl<W: Coeff> LazyTableSet<W> {
    pub(super) fn new(gpu: &Gpu, towers: &[NttParams<W>], sched: &LazySchedule) -> Result<Self> {
        // Every tower's tables of each direction, tower after tower, as words.
        let upload = |tables: fn(&NttParams<W>, &LazySchedule) -> Result<TablePair<W>>| {
            let (mut fwd, mut inv) = (Vec::new(), Vec::new());
            for p in towers {
                let (f, i) = tables(p, sched)?;
                fwd.extend(f.iter().flat_map(|t| [t.w, t.wp]));
                inv.extend(i.iter().flat_map(|t| [t.w, t.wp]));
            }
            Ok::<_, Error>((gpu.upload(&fwd)?, gpu.upload(&inv)?))
        };
        let (fwd, inv) = upload(super::super::lazy::tables)?;
        let product = if sched.product_has_own_tables() {
            let (f, i) = upload(super::super::lazy::product_tables)?;
            Some((f, i, sched.product_table_pairs() as u32))
        } else {
            None
        };
        Ok(Self {
            fwd,
            inv,
            tw_pairs: sched.table_pairs() as u32,
            product,
            computed_rows: sched.computed_rows,
        })
    }

    pub(super) fn bytes(&self) -> usize {
        let p = self.product.as_ref().map_or(0, |(f, i, _)| f.len() + i.len());
        (self.fwd.len() + self.inv.len() + p) * std::mem::size_of::<W>()
    }

    pub(super) fn tables(&self, barrett: Barrett4<W>) -> LazyTables<W> {
        LazyTables {
            fwd: self.fwd.ptr(),
            inv: self.inv.ptr(),
            words: (self.fwd.len(), self.inv.len()),
            tw_pairs: self.tw_pairs,
            computed_rows: self.computed_rows,
            barrett,
        }
    }

    /// The tables every pass of a polymul reads.
    pub(super) fn product_tables(&self, barrett: Barrett4<W>) -> LazyTables<W> {
        match &self.product {
            Some((f, i, pairs)) => LazyTables {
                fwd: f.ptr(),
                inv: i.ptr(),
                words: (f.len(), i.len()),
                tw_pairs: *pairs,
                computed_rows: self.computed_rows,
                barrett,
            },
            None => self.tables(barrett),
        }
    }
}

impl<W: Coeff> LazyState<W> {
    pub(super) fn new(
        gpu: &Gpu,
        towers: &[NttParams<W>],
        sched: &LazySchedule,
        log_r: Option<u32>,
        options: &PlanOptions,
    ) -> Result<Self> {
        let tables = LazyTableSet::new(gpu, towers, sched)?;
        // `latency_kernels: false`: none, for comparing the two in one process.
        let wanted = options.latency_kernels;
        // A plan that asks for a radix runs it everywhere: no latency path.
        let wanted =
            wanted && log_r.is_none() && sched.log_n >= polymul_kernels::ntt::lazy::LATENCY_MIN_LOG_N;
        // `latency_radix` = 4, 8 or 16 (checked by `NttEngine::new`):
        // another radix for the latency passes, for comparing them.
        let latency_log_r = options.latency_radix.map(|r| r.trailing_zeros());
        // Computed row twiddles (`sched.computed_rows`) exist as two-pass
        // (or one-pass) full-tile kernels only (`lazy::has_computed_rows`):
        // such a plan has no latency, fused or cluster path, whose kernels
        // read the thread-ordered region its tables lack (docs/ntt.md,
        // "Computed row twiddles").
        let wanted = wanted && !sched.computed_rows;
        let latency = match LazySchedule::latency::<W>(sched.log_n, latency_log_r).filter(|_| wanted) {
            Some(ls) if ls.max_smem_bytes::<W>() as usize <= gpu.info().max_shared_per_block => {
                let own =
                    if ls.same_tables(sched) { None } else { Some(LazyTableSet::new(gpu, towers, &ls)?) };
                Some(LatencyPath { kernels: LazyKernels::new(gpu, &ls)?, tables: own })
            }
            _ => None,
        };
        // The moderate path, where a polymul or a forward transform of this
        // plan could take it: a measured size, and every tower's polynomial
        // within a bound.
        let (_, moderate_max) = moderate_product_bounds(W::BITS, sched.log_n);
        let transform_max = [false, true]
            .into_iter()
            .filter_map(|inverse| moderate_transform_words(W::BITS, sched.log_n, inverse))
            .map(|(_, up_to)| up_to)
            .max()
            .unwrap_or(0);
        let words = towers.len().saturating_mul(1 << sched.log_n);
        let reachable = words <= moderate_max.max(transform_max);
        let moderate = match LazySchedule::new::<W>(sched.log_n, Some(3)).filter(|_| wanted) {
            Some(ms) if MODERATE_LOG_N.contains(&sched.log_n) && reachable && ms != *sched => {
                let own = if ms.product_reads_tables_of(sched) {
                    None
                } else {
                    Some(LazyTableSet::new(gpu, towers, &ms)?)
                };
                Some(ModeratePath { kernels: LazyKernels::new(gpu, &ms)?, tables: own })
            }
            _ => None,
        };
        Ok(Self {
            kernels: LazyKernels::new(gpu, sched)?,
            cluster: if sched.computed_rows {
                None
            } else {
                ClusterKernels::new(gpu, sched.log_n, sched.row_shape().log_r)?
            },
            fused: if sched.computed_rows {
                None
            } else {
                FusedKernels::new(gpu, sched, options.lazy_fused)?
            },
            tables,
            barrett: *towers[0].barrett(),
            latency,
            moderate,
            log_n: sched.log_n,
            blocks_per_poly: sched.forward[0].blocks(sched.log_n, 1) as usize,
            multiprocessors: gpu.info().multiprocessors.max(1) as usize,
        })
    }

    /// The fused kernels, where a transform of `batch` polynomials per tower
    /// runs on them (`FusedKernels::wants`).
    pub(super) fn fused_for(&self, batch: usize) -> Option<&FusedKernels<W>> {
        self.fused.as_ref().filter(|f| f.wants(batch))
    }

    /// Whether a launch over `polys` polynomials (every tower's) is small:
    /// full tiles would give fewer blocks than the GPU has SMs, so the
    /// launches cost more than the work.
    pub(super) fn is_small(&self, polys: usize) -> bool {
        polys.saturating_mul(self.blocks_per_poly) < self.multiprocessors
    }

    /// Whether a repeated call whose largest launch covers `polys`
    /// polynomials (every tower's) replays a captured graph
    /// ([`GraphCache`](crate::gpu::graph::GraphCache)): small launches
    /// ([`LazyState::is_small`]), and launches of at most
    /// [`REPLAY_MAX_WORDS`] words, where the CPU's launches still cost a
    /// large part of the call — a ciphertext of L towers (issue 54: `u32`
    /// N = 2^16, L = 32, one forward took 20.6 µs, of which 9.8 µs is the
    /// floor of its two plain launches; replayed, two launches cost 4.7).
    pub(super) fn replays(&self, polys: usize) -> bool {
        self.is_small(polys) || polys.saturating_mul(1 << self.log_n) <= REPLAY_MAX_WORDS
    }

    /// The latency schedule, where a transform over `polys` polynomials
    /// runs it ([`transform_takes_latency`]).
    pub(super) fn latency_for(&self, polys: usize) -> Option<&LatencyPath<W>> {
        let takes = transform_takes_latency(W::BITS, &self.launch(polys), self.multiprocessors);
        self.latency.as_ref().filter(|_| takes)
    }

    /// A launch of this plan over `polys` polynomials, as the bounds weigh it.
    fn launch(&self, polys: usize) -> Launch {
        Launch { polys, blocks_per_poly: self.blocks_per_poly, log_n: self.log_n }
    }

    /// The kernels and tables (transform, product) a launch over `polys`
    /// polynomials runs: the latency schedule's ([`LazyState::latency_for`]),
    /// else the full tiles'.
    pub(super) fn path_for(&self, polys: usize) -> LazyPath<'_, W> {
        self.path(self.latency_for(polys))
    }

    /// [`LazyState::path_for`] for a polymul: the latency schedule up to
    /// [`product_takes_latency`]'s size, and where the plan has the
    /// moderate path, up to its own bound only; then the moderate path up
    /// to its bound ([`moderate_product_bounds`]); then the full tiles.
    pub(super) fn product_path_for(&self, polys: usize) -> LazyPath<'_, W> {
        let has = (self.latency.is_some(), self.moderate.is_some());
        match (product_path(W::BITS, &self.launch(polys), self.multiprocessors, has), &self.moderate) {
            (ProductPath::Latency, _) => self.path(self.latency.as_ref()),
            (ProductPath::Moderate, Some(m)) => self.moderate_path(m),
            _ => self.path(None),
        }
    }

    /// The moderate path's kernels and tables, where a forward (or, with
    /// `inverse`, an inverse) transform over `polys` polynomials runs them
    /// ([`moderate_transform_words`]): before the fused and latency kernels.
    /// `None`: the transform runs what it would without the moderate path.
    pub(super) fn transform_moderate(&self, polys: usize, inverse: bool) -> Option<LazyPath<'_, W>> {
        let takes =
            transform_takes_moderate(W::BITS, self.log_n, inverse, polys.saturating_mul(1 << self.log_n));
        self.moderate.as_ref().filter(|_| takes).map(|m| self.moderate_path(m))
    }

    /// The moderate path's kernels, and its tables for every pass (its own,
    /// or the plan's where its row passes' steps are the plan's).
    fn moderate_path<'a>(&'a self, m: &'a ModeratePath<W>) -> LazyPath<'a, W> {
        let own = m.tables.as_ref().map(|t| t.product_tables(self.barrett));
        let t = own.unwrap_or_else(|| self.tables.tables(self.barrett));
        LazyPath { kernels: &m.kernels, tables: t, product: t }
    }

    fn path<'a>(&'a self, latency: Option<&'a LatencyPath<W>>) -> LazyPath<'a, W> {
        let set = |t: &LazyTableSet<W>| (t.tables(self.barrett), t.product_tables(self.barrett));
        match latency {
            Some(l) => {
                let (tables, product) = set(l.tables.as_ref().unwrap_or(&self.tables));
                LazyPath { kernels: &l.kernels, tables, product }
            }
            _ => {
                let (tables, product) = set(&self.tables);
                LazyPath { kernels: &self.kernels, tables, product }
            }
        }
    }

    /// The full-tile tables (the fused and cluster kernels' schedule).
    pub(super) fn tables(&self) -> LazyTables<W> {
        self.tables.tables(self.barrett)
    }

    pub(super) fn bytes(&self) -> usize {
        self.tables.bytes()
            + self.latency.as_ref().and_then(|l| l.tables.as_ref()).map_or(0, |t| t.bytes())
            + self.moderate.as_ref().and_then(|m| m.tables.as_ref()).map_or(0, |t| t.bytes())
    }
}

/// Whether a `bits`-bit transform over `polys` polynomials of `2^log_n`
/// words (every tower's) runs the latency schedule (radix 4, four times
/// the threads per word, [`LazySchedule::latency`]) instead of the full
/// tiles (`blocks_per_poly` blocks each) on a GPU of `sms` SMs: `u64`
/// below one wave of full-tile blocks; `u32` up to a quarter of one and
/// below 2^19 words. A rule fitted to measurements (NVIDIA H100 80GB HBM3,
/// 2026-11-27, results/2026-11-27-nvidia-h100-latency-rule, `profile`, the
/// latency schedule against the full tiles, alternated twice): `u32`
/// transforms are faster on the latency schedule at 2^16 × 4, 2^15 × 8,
/// 2^14 × 16 and × 17 and 2^12 × 32, slower at 2^16 × 8, 2^15 × 16,
/// 2^14 × 32 and 2^12 × 64 (up to 1.2×) and 1.3–1.8× slower at twice to
/// four times those (2^14 and 2^12 are one pass of one block per
/// polynomial, which holds four or one times the words of a 2^16 block:
/// hence the words' bound beside the blocks'). At 128 blocks the
/// `u64` transforms are still faster on it at 2^16 and mixed at 2^14 and
/// 2^15 (the forward faster, the inverse slower), so they keep the
/// one-wave rule.
fn transform_takes_latency(bits: u32, launch: &Launch, sms: usize) -> bool {
    if bits == 64 {
        launch.within(sms.saturating_sub(1), usize::MAX)
    } else {
        launch.within(sms / 4, (1 << 19) - 1)
    }
}

/// [`transform_takes_latency`] for a polymul (both forward transforms, the
/// product pass and the inverse): `u64` up to twice the SMs' full-tile
/// blocks; `u32` up to half of them and 2^19 words. H100, 2026-11-27: the
/// `u64` polymul at 2^16 × 12 and × 16, 2^15 × 24 and 2^14 × 48 (192–256
/// blocks) 7–15% faster on the latency schedule, 2^15 × 32 3%, 2^14 × 64
/// the same (results/2026-11-27-nvidia-h100-moderate-products); the `u32`
/// polymul 7–14% faster there at 2^16 × 8, 2^15 × 16 and 2^12 × 64, the
/// same at 2^14 × 32, and 1.2–1.7× slower at 2^16 × 12, 2^15 × 24,
/// 2^14 × 48 and 2^12 × 128 and beyond (results/2026-11-27-nvidia-h100-latency-rule).
fn product_takes_latency(bits: u32, launch: &Launch, sms: usize) -> bool {
    if bits == 64 {
        launch.within(sms.saturating_mul(2), usize::MAX)
    } else {
        launch.within(sms / 2, 1 << 19)
    }
}

/// The sizes `log2 N` whose plans have the moderate path (measured there).
const MODERATE_LOG_N: std::ops::RangeInclusive<u32> = 12..=17;

/// The words (over every polynomial of the call) up to which a polymul of
/// a plan with the moderate path runs the latency schedule (where
/// [`product_takes_latency`] also allows it), and up to which it runs the
/// moderate path (full tiles at radix 8) instead of the full tiles at the
/// default radix. Fitted to measurements (NVIDIA H100 80GB HBM3,
/// 2026-11-27, results/2026-11-27-nvidia-h100-moderate-radix, `profile`
/// of the default plan against `lazy-r8`, N = 2^12 … 2^17, 2^16 … 2^22
/// words, alternated twice): the radix-8 full tiles took the polymul
/// 1.1–1.8× faster from just past these latency bounds (`u32` 2^16 × 6
/// 28.4 → 24.0 µs, × 16 40.8 → 30.1; 2^17 × 4 42.5 → 24.1; `u64` 2^16 ×
/// 16 72.9 → 64.0, × 32 124.4 → 110.0; 2^12 × 128 36.2 → 24.5) up to
/// 2^20 or 2^21 words, and were slower beyond (where the `u32` fused
/// transforms start at N ≥ 2^15, and `u32` 2^12 from × 384 on): except
/// `u64` 2^12 × 512 (2^21 words, 3% slower: radix 8 reaches there past
/// the 264 polynomials the latency bound would take, which it beats 1.5×
/// at × 256) and `u64` 2^17 × 3 and × 4 (4–14% slower; 1.3× faster at ×
/// 1, × 2 and × 8). `u64` at 2^13 is interpolated.
fn moderate_product_bounds(bits: u32, log_n: u32) -> (usize, usize) {
    match (bits, log_n) {
        (64, ..=13) => (1 << 18, 1 << 21),
        (64, _) => (1 << 19, 1 << 21),
        (_, ..=14) => ((1 << 18) - 1, 1 << 20),
        (_, _) => (1 << 18, 1 << 21),
    }
}

/// Which kernels a polymul runs ([`LazyState::product_path_for`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProductPath {
    Latency,
    Moderate,
    Full,
}

/// The path of a `bits`-bit polymul `launch` on a GPU of `sms` SMs, for a
/// plan that has the latency and the moderate path (`has`): the latency
/// schedule up to [`product_takes_latency`]'s size and, where the plan has
/// the moderate path, up to [`moderate_product_bounds`]' latency words;
/// the moderate path up to its words; else the full tiles.
fn product_path(bits: u32, launch: &Launch, sms: usize, (latency, moderate): (bool, bool)) -> ProductPath {
    let (latency_max, moderate_max) = moderate_product_bounds(bits, launch.log_n);
    let takes =
        product_takes_latency(bits, launch, sms) && (!moderate || launch.within(usize::MAX, latency_max));
    match (latency && takes, moderate && launch.within(usize::MAX, moderate_max)) {
        (true, _) => ProductPath::Latency,
        (false, true) => ProductPath::Moderate,
        (false, false) => ProductPath::Full,
    }
}

/// The words (over every polynomial of the call) of a forward transform
/// (an inverse one with `inverse`) that runs the moderate path (the full
/// tiles at radix 8): above the first, up to the second; `None` where it
/// never does. Measured (NVIDIA H100 80GB HBM3, 2026-11-27,
/// results/2026-11-27-nvidia-h100-moderate-radix, `sweep.md` and
/// `large.md`: the default plan against `lazy-r8`). Forward: `u64` N = 2^12
/// from 2^18 words on (1.10–1.25× at × 96 … × 1536, 1.07× at 2^26 words,
/// where the default runs one radix-16 pass); `u64` 2^14 from 2^19 to 2^22
/// words (1.06–1.31×); `u64` 2^17 up to 2^20 words (1.06–1.75×); `u32`
/// 2^14 above 2^18 up to 2^20 (1.11–1.29×) and `u32` 2^17 above 2^19 up to
/// 2^21 (1.18–1.61×). Inverse: `u64` 2^12 above 2^18 up to 1.5 · 2^19
/// words (× 96 … × 192: 1.07–1.33×) and `u32` 2^14 above 1.5 · 2^18 up to
/// 2^20 (× 32 … × 64: 1.10–1.17×). Elsewhere within a few percent either
/// way or slower.
fn moderate_transform_words(bits: u32, log_n: u32, inverse: bool) -> Option<(usize, usize)> {
    match (inverse, bits, log_n) {
        (false, 64, 12) => Some((1 << 18, usize::MAX)),
        (false, 64, 14) => Some(((1 << 19) - 1, 1 << 22)),
        (false, 64, 17) => Some((0, 1 << 20)),
        (false, 32, 14) => Some((1 << 18, 1 << 20)),
        (false, 32, 17) => Some((1 << 19, 1 << 21)),
        (true, 64, 12) => Some((1 << 18, 3 << 18)),
        (true, 32, 14) => Some((3 << 17, 1 << 20)),
        _ => None,
    }
}

/// Whether a `bits`-bit transform (inverse with `inverse`) over `words`
/// words in all, of `2^log_n` each, lies in a band of
/// [`moderate_transform_words`].
fn transform_takes_moderate(bits: u32, log_n: u32, inverse: bool, words: usize) -> bool {
    moderate_transform_words(bits, log_n, inverse)
        .is_some_and(|(above, up_to)| words > above && words <= up_to)
}

/// The most words (every tower's) the largest launch of a repeated call
/// may cover for the call to replay a graph ([`LazyState::replays`]): 2^23,
/// which takes in the ciphertexts of issue 54 (the tensor product's
/// inverse of three `u32` polynomials of 32 towers at N = 2^16 is 3 · 2^21)
/// and leaves the large batches of the goals table (2^26 words), whose
/// launches cost a few percent of the call, as they were.
const REPLAY_MAX_WORDS: usize = 1 << 23;

/// A launch over `polys` polynomials of `2^log_n` words,
/// `blocks_per_poly` full-tile blocks each: what the latency bounds
/// ([`transform_takes_latency`], [`product_takes_latency`]) weigh.
struct Launch {
    polys: usize,
    blocks_per_poly: usize,
    log_n: u32,
}

impl Launch {
    /// Whether its full tiles are at most `max_blocks` blocks and its
    /// words at most `max_words`.
    fn within(&self, max_blocks: usize, max_words: usize) -> bool {
        self.polys.saturating_mul(self.blocks_per_poly) <= max_blocks
            && self.polys.saturating_mul(1 << self.log_n) <= max_words
    }
}

/// What one launch over a few polynomials or many runs (`LazyState::path_for`).
pub(super) struct LazyPath<'a, W: Coeff> {
    pub(super) kernels: &'a LazyKernels<W>,
    /// The transforms' tables.
    pub(super) tables: LazyTables<W>,
    /// A polymul's tables.
    pub(super) product: LazyTables<W>,
}

#[cfg(test)]
mod tests {
    use super::{
        Launch, ProductPath, moderate_transform_words, product_path, product_takes_latency,
        transform_takes_latency, transform_takes_moderate,
    };

    #[test]
    fn the_latency_schedule_runs_up_to_each_words_measured_crossover() {
        // H100: 132 SMs. Full-tile blocks per polynomial: u64 16 at N =
        // 2^16, 4 at 2^14; u32 8 at 2^16, 1 at 2^14 and 2^12 (one pass).
        let sms = 132;
        let t = |bits, log_n, polys, bpp| {
            transform_takes_latency(bits, &Launch { polys, blocks_per_poly: bpp, log_n }, sms)
        };
        let p = |bits, log_n, polys, bpp| {
            product_takes_latency(bits, &Launch { polys, blocks_per_poly: bpp, log_n }, sms)
        };
        // u64 transforms: below one wave; u64 products: up to two.
        assert!(t(64, 16, 8, 16) && !t(64, 16, 9, 16));
        assert!(p(64, 16, 16, 16) && !p(64, 16, 17, 16));
        assert!(p(64, 14, 64, 4) && !p(64, 14, 67, 4));
        // u32 transforms: a quarter of a wave and below 2^19 words.
        assert!(t(32, 16, 4, 8) && !t(32, 16, 5, 8));
        assert!(t(32, 14, 31, 1) && !t(32, 14, 32, 1));
        assert!(t(32, 12, 32, 1) && !t(32, 12, 34, 1));
        // u32 products: half a wave and 2^19 words.
        assert!(p(32, 16, 8, 8) && !p(32, 16, 9, 8));
        assert!(p(32, 14, 32, 1) && !p(32, 14, 33, 1));
        assert!(p(32, 12, 66, 1) && !p(32, 12, 67, 1));
        for bits in [32, 64] {
            assert!(t(bits, 16, 1, 16) && p(bits, 16, 1, 16));
            assert!(!t(bits, 16, usize::MAX, 16) && !p(bits, 16, usize::MAX, 16));
        }
    }

    #[test]
    fn a_polymul_takes_the_moderate_path_between_the_latency_bound_and_its_own() {
        use ProductPath::{Full, Latency, Moderate};
        let sms = 132;
        let path = |bits, log_n, polys, bpp, has| {
            product_path(bits, &Launch { polys, blocks_per_poly: bpp, log_n }, sms, has)
        };
        let all = (true, true);
        // u32 2^16 (8 blocks per polynomial): latency up to 2^18 words, then
        // radix 8 up to 2^21, then the full tiles.
        assert_eq!([4, 5, 32, 33].map(|b| path(32, 16, b, 8, all)), [Latency, Moderate, Moderate, Full]);
        // u32 2^14 (one block): latency below 2^18 words, radix 8 up to 2^20.
        assert_eq!([15, 16, 64, 65].map(|b| path(32, 14, b, 1, all)), [Latency, Moderate, Moderate, Full]);
        // u64 2^16 (16 blocks): latency up to 2^19 words, radix 8 up to 2^21.
        assert_eq!([8, 9, 32, 33].map(|b| path(64, 16, b, 16, all)), [Latency, Moderate, Moderate, Full]);
        // u64 2^12: latency up to 2^18 words.
        assert_eq!([64, 65].map(|b| path(64, 12, b, 1, all)), [Latency, Moderate]);
        // 2^17 has no latency schedule: radix 8 from one polynomial.
        assert_eq!([1, 16, 17].map(|b| path(64, 17, b, 32, (false, true))), [Moderate, Moderate, Full]);
        // Without the moderate path the latency bounds are product_takes_latency's.
        assert_eq!([8, 9].map(|b| path(32, 16, b, 8, (true, false))), [Latency, Full]);
        assert_eq!([16, 17].map(|b| path(64, 16, b, 16, (true, false))), [Latency, Full]);
        // u64 2^12 radix 8 up to 2^21 words, past product_takes_latency's
        // 264 one-block polynomials.
        assert_eq!([264, 512, 513].map(|b| path(64, 12, b, 1, all)), [Moderate, Moderate, Full]);
    }

    #[test]
    fn inverse_transforms_take_the_moderate_path_in_their_own_bands() {
        let takes = |inverse, bits, log_n: u32, polys: usize| {
            transform_takes_moderate(bits, log_n, inverse, polys << log_n)
        };
        // u64 2^12: × 96 … × 192 (the forward from × 65 on, unbounded).
        assert_eq!([64, 65, 192, 193].map(|b| takes(true, 64, 12, b)), [false, true, true, false]);
        assert_eq!([64, 65, 193, 1 << 14].map(|b| takes(false, 64, 12, b)), [false, true, true, true]);
        // u32 2^14: × 25 … × 64 (the forward × 17 … × 64).
        assert_eq!([24, 25, 64, 65].map(|b| takes(true, 32, 14, b)), [false, true, true, false]);
        assert_eq!([16, 17, 64, 65].map(|b| takes(false, 32, 14, b)), [false, true, true, false]);
        // No inverse band elsewhere.
        assert!(
            [(64, 14), (64, 16), (64, 17), (32, 16), (32, 17)]
                .iter()
                .all(|&(bits, log_n)| moderate_transform_words(bits, log_n, true).is_none())
        );
    }
}
