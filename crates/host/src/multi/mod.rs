//! Several devices behind one plan: [`MultiPlan`] spreads each call over
//! the plans it holds (one per GPU, typically), by polynomials or by
//! towers, and implements the same traits as every other plan.
//!
//! - `multi/shares.rs`: the split of one call's words, as data (which
//!   polynomials and towers each plan computes), and the host copies that
//!   gather and scatter a share's words. No device.
//! - `multi/mod.rs` (here): the plan, its rule for how many devices a call
//!   uses, and host-slice calls: each share on its plan, from a thread of
//!   its own, so that every device's copies and kernels run at once.
//! - `multi/prechecked.rs`: host products of the crate's GPU plans on
//!   words this plan validated already (each share to its plan's copy
//!   pipeline, not to the plan's checked call: one scan of the words).
//! - `multi/limbs.rs`: limb (big-integer) products of RNS plans: split by
//!   towers, every GPU converts a slice of the coefficients and multiplies
//!   its towers, the residues exchanged by peer copies.
//! - `multi/spread.rs`: [`SpreadVec`], words resident on several devices,
//!   and the device-resident calls (queued on every device's stream, each
//!   from a thread of its own).
//!
//! Results are those of one plan: every share runs the same kernels on
//! its own polynomials (by batch) or towers (by towers), and products of
//! different polynomials or towers never mix.

mod limbs;
mod prechecked;
mod shares;
mod spread;

pub use limbs::{LIMB_PIECE_WORDS, LimbScratch};
pub use shares::Split;
pub use spread::{SpreadPart, SpreadVec};

use crate::layout::{Layout, Towers};
use crate::{Backend, Coeff, Error, Gpu, Plan, Product, Result, Transform};
use shares::Share;
use std::marker::PhantomData;
use std::ops::Range;

/// Words per device below which a call split by batch uses fewer devices
/// ([`MultiPlan::min_words_per_device`]): 2^19, where a split began to pay
/// on two H200s (2026-11-28, device-resident `u64` products,
/// docs/scaling.md): with 2^19 words on each GPU, N = 2^12 × 256 ran 1.37×
/// and N = 2^16 × 16 1.16× faster on two than on one; with 2^18, 0.75×
/// and 1.08×; below that the second GPU's launches cost more than half the
/// work saves.
pub const MIN_WORDS_PER_DEVICE: usize = 1 << 19;

/// One plan over several devices: a batch (or an RNS product's towers)
/// spread over plans `P` of one kind, typically one per GPU of a host,
/// with the same traits as every other plan ([`Plan`], [`Product`],
/// [`Transform`] where `P` has it) on host slices and on [`SpreadVec`]s,
/// device words spread over the plans' GPUs.
///
/// - [`MultiPlan::by_batch`]: plans with the same N and moduli; each call's
///   polynomials are split among them (as evenly as can be). A call of
///   fewer than [`MultiPlan::min_words_per_device`] words per device uses
///   fewer devices (a small batch stays on the first).
/// - [`MultiPlan::by_towers`]: plans with the same N whose moduli, in
///   order, are the towers of an RNS basis; each call's towers are split
///   among them ([`MultiPlan::rns`] makes one from a basis and GPUs).
///
/// Host slices: each plan runs its share (upload, kernels, download,
/// pipelined in pieces where large, as one plan does) from a thread of its
/// own, all at once. Shares that are not one contiguous run of the buffer
/// (by batch, several towers) are copied into a buffer of their own and
/// back. A call validates every operand before any share starts; a device
/// failure in one share leaves the others' results written.
///
/// ```no_run
/// use polymul::prelude::*;
/// use polymul::{Gpu, MultiPlan, NttParams};
///
/// let gpus = Gpu::all()?;                                   // every GPU of the host
/// let params = NttParams::<u64>::with_prime_bits(1 << 16, 62)?;
/// let plan = MultiPlan::ntt(&gpus, params)?;                // one NttPlan per GPU
/// let (a, b) = (vec![1u64; 256 << 16], vec![2u64; 256 << 16]);
/// let c = plan.polymul(&a, &b)?;                            // host → host, every GPU
/// let (mut x, mut y) = (plan.upload(&a)?, plan.upload(&b)?); // resident, spread
/// plan.polymul_in_place(&mut x, &mut y)?;                   // queued on every GPU
/// assert_eq!(plan.download(&x)?, c);
/// # Ok::<(), polymul::Error>(())
/// ```
pub struct MultiPlan<W: Coeff, P> {
    plans: Vec<P>,
    split: Split,
    /// All moduli, as the kernels' words, for validating host words.
    towers: Towers<W>,
    /// By towers: plan `i`'s towers.
    tower_ranges: Vec<Range<usize>>,
    min_words: usize,
    /// RNS plans: the whole basis and its conversions on every plan's
    /// GPU, made by the first limb product (multi/limbs.rs).
    stations: std::sync::OnceLock<Box<limbs::Stations<W>>>,
    _word: PhantomData<fn() -> W>,
}

impl<W: Coeff, P: std::fmt::Debug> std::fmt::Debug for MultiPlan<W, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiPlan")
            .field("split", &self.split)
            .field("min_words_per_device", &self.min_words)
            .field("plans", &self.plans)
            .finish_non_exhaustive()
    }
}

impl<W: Coeff, P: Plan<W>> MultiPlan<W, P> {
    /// Spreads each call's polynomials over `plans`, which must all have
    /// the same N and moduli (typically the same parameters on different
    /// GPUs).
    ///
    /// # Errors
    /// [`Error::PlansDisagree`] for no plans or plans of different N or
    /// moduli.
    pub fn by_batch(plans: Vec<P>) -> Result<Self> {
        let first = plans.first().ok_or(Error::PlansDisagree { why: "no plans were given".into() })?;
        let (n, moduli) = (first.n(), first.moduli());
        if let Some(i) = plans.iter().position(|p| p.n() != n || p.moduli() != moduli) {
            return Err(Error::PlansDisagree {
                why: format!(
                    "plan {i} has another N or other moduli than plan 0 (a split by batch needs the same)"
                ),
            });
        }
        Self::assemble(plans, Split::Batch, n, moduli, Vec::new())
    }

    /// Spreads each call's towers over `plans`: plan `i` computes the
    /// towers of its own moduli, and the multi-device plan's moduli are
    /// the plans' in order (an RNS basis cut into consecutive parts).
    ///
    /// # Errors
    /// [`Error::PlansDisagree`] for no plans or plans of different N;
    /// [`Error::DuplicatePrime`] where two plans share a modulus.
    pub fn by_towers(plans: Vec<P>) -> Result<Self> {
        let n = plans.first().ok_or(Error::PlansDisagree { why: "no plans were given".into() })?.n();
        if let Some(i) = plans.iter().position(|p| p.n() != n) {
            return Err(Error::PlansDisagree { why: format!("plan {i} has another N than plan 0") });
        }
        let mut moduli = Vec::new();
        let mut ranges = Vec::with_capacity(plans.len());
        for p in &plans {
            let m = p.moduli();
            ranges.push(moduli.len()..moduli.len() + m.len());
            moduli.extend(m);
        }
        Self::assemble(plans, Split::Towers, n, moduli, ranges)
    }

    fn assemble(
        plans: Vec<P>,
        split: Split,
        n: usize,
        moduli: Vec<u64>,
        tower_ranges: Vec<Range<usize>>,
    ) -> Result<Self> {
        // Every plan's moduli are its own words' (`Plan::moduli` widens them).
        let towers = Towers::new(n, moduli.iter().map(|&q| W::from_u64(q)).collect())?;
        Ok(Self {
            plans,
            split,
            towers,
            tower_ranges,
            min_words: MIN_WORDS_PER_DEVICE,
            stations: std::sync::OnceLock::new(),
            _word: PhantomData,
        })
    }

    /// The plans, one per device.
    pub fn plans(&self) -> &[P] {
        &self.plans
    }

    /// How calls are split.
    pub fn split(&self) -> Split {
        self.split
    }

    /// Words per device below which a call split by batch uses fewer
    /// devices ([`MIN_WORDS_PER_DEVICE`] unless set).
    pub fn min_words_per_device(&self) -> usize {
        self.min_words
    }

    /// Sets [`MultiPlan::min_words_per_device`]: 0 or 1 spreads every call
    /// over every plan (as far as it has polynomials); a split by towers
    /// ignores it.
    pub fn set_min_words_per_device(&mut self, words: usize) {
        self.min_words = words;
    }

    /// How many plans a call on `batch` polynomials per tower runs on: by
    /// towers, all of them; by batch, as many as get at least
    /// [`MultiPlan::min_words_per_device`] words each (at least one, at
    /// most one per polynomial).
    pub fn devices_for(&self, batch: usize) -> usize {
        match self.split {
            Split::Towers => self.plans.len(),
            Split::Batch => {
                let words = batch.saturating_mul(self.towers.n() * self.towers.len());
                (words / self.min_words.max(1)).clamp(1, self.plans.len()).min(batch.max(1))
            }
        }
    }

    /// The plan a host call of `len` words runs on by itself, where it runs
    /// on one (the plan validates its words: scanning them here too cost a
    /// quarter of a large host → host call, docs/scaling.md).
    fn alone(&self, len: usize) -> Option<&P> {
        let whole = self.towers.shape_of("a", len).ok()?;
        (self.shares(whole).len() == 1).then(|| &self.plans[0])
    }

    /// The shares of a call of layout `whole`.
    fn shares(&self, whole: Layout) -> Vec<Share> {
        match self.split {
            Split::Batch => shares::by_batch(whole, self.devices_for(whole.batch)),
            Split::Towers => shares::by_towers(whole, &self.tower_ranges),
        }
    }

    /// Runs `f` on every share's plan and words of the host buffer `out`
    /// (of layout `whole`), with the same share's words of `scratch` (an
    /// operand the plan may clobber) and of `inputs`: in place where the
    /// shares are contiguous, else on gathered copies, `out`'s scattered
    /// back. One share runs on the calling thread, several each on a
    /// thread of its own.
    ///
    /// (`f` is a trait object, not a type parameter: one copy of this code
    /// per plan type rather than one per call site keeps the binaries under
    /// their size limit.)
    fn host_shares(
        &self,
        whole: Layout,
        out: &mut [W],
        scratch: Option<&mut [W]>,
        inputs: &[&[W]],
        f: &ShareFn<'_, W, P>,
    ) -> Result<()>
    where
        P: Sync,
    {
        let shares = self.shares(whole);
        if shares::all_contiguous(&shares, whole) {
            let outs = shares::cut_mut(&shares, whole, out);
            let mut scratches: Vec<&mut [W]> = match scratch {
                Some(s) => shares::cut_mut(&shares, whole, s),
                None => shares.iter().map(|_| <&mut [W]>::default()).collect(),
            };
            let ins: Vec<Vec<&[W]>> = inputs.iter().map(|x| shares::cut(&shares, whole, x)).collect();
            let jobs: Vec<_> = outs
                .into_iter()
                .zip(scratches.drain(..))
                .enumerate()
                .map(|(i, (o, s))| (shares[i].plan, o, s, ins.iter().map(|x| x[i]).collect::<Vec<_>>()))
                .collect();
            run_all(jobs, |(plan, o, s, x)| f(&self.plans[plan], o, s, &x))
        } else {
            let gather = |words: &[W]| -> Vec<Vec<W>> {
                shares.iter().map(|s| shares::gather(s, whole, words)).collect()
            };
            let mut owned = gather(out);
            let mut scratches = match scratch {
                Some(s) => gather(s),
                None => shares.iter().map(|_| Vec::new()).collect(),
            };
            let ins: Vec<Vec<Vec<W>>> = inputs.iter().map(|x| gather(x)).collect();
            let jobs: Vec<_> = owned
                .iter_mut()
                .zip(scratches.iter_mut())
                .enumerate()
                .map(|(i, (o, s))| (shares[i].plan, o, s, ins.iter().map(|x| &x[i][..]).collect::<Vec<_>>()))
                .collect();
            let done = run_all(jobs, |(plan, o, s, x)| f(&self.plans[plan], o, s, &x));
            // Scatter what every share computed, also where another failed
            // (the traits' promise: finished parts are written).
            for (s, o) in shares.iter().zip(&owned) {
                shares::scatter(s, whole, o, out);
            }
            done
        }
    }
}

/// The layout of a share of `len` words on `plan` (its own towers).
fn share_layout<W: Coeff, P: Plan<W>>(plan: &P, n: usize, len: usize) -> Layout {
    let towers = plan.moduli().len();
    Layout { n, towers, batch: len / (n * towers) }
}

/// What a host call runs on one share: the plan, the share's words of
/// the written buffer, of the scratch operand, and of the inputs.
type ShareFn<'f, W, P> = dyn Fn(&P, &mut [W], &mut [W], &[&[W]]) -> Result<()> + Sync + 'f;

/// Runs `f` on every job: the only one on the calling thread, several each
/// on a scoped thread of its own (so that every device's copies and kernels
/// run at once). The first failing job's error (in job order) is returned
/// once all have finished.
fn run_all<J: Send, F: Fn(J) -> Result<()> + Sync>(jobs: Vec<J>, f: F) -> Result<()> {
    let f = &f;
    run_jobs(jobs.into_iter().map(|j| Box::new(move || f(j)) as Job<'_>).collect())
}

/// One job of [`run_all`], boxed: the threads' code exists once, not once
/// per call site (the binaries' size limit).
type Job<'a> = Box<dyn FnOnce() -> Result<()> + Send + 'a>;

/// [`run_all`]'s body.
fn run_jobs(mut jobs: Vec<Job<'_>>) -> Result<()> {
    if jobs.len() == 1 {
        return jobs.pop().map_or(Ok(()), |j| j());
    }
    let results: Vec<Result<()>> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs.into_iter().map(|j| s.spawn(j)).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::PlansDisagree { why: "a device's thread panicked".into() })
                })
            })
            .collect()
    });
    results.into_iter().collect()
}

impl<W: Coeff + 'static, P: Plan<W> + 'static> Plan<W> for MultiPlan<W, P>
where
    P: Product<W, [W]>,
{
    fn n(&self) -> usize {
        self.towers.n()
    }

    fn moduli(&self) -> Vec<u64> {
        self.towers.primes()
    }

    fn backend(&self) -> Backend {
        Backend::Several(self.plans.iter().map(|p| p.backend()).collect())
    }

    fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let mut out = vec![W::default(); a.len()];
        Product::<W, [W]>::polymul_into(self, a, b, &mut out)?;
        Ok(out)
    }
}

/// Host slices: each plan's share from a thread of its own ([`MultiPlan`]);
/// a call on one plan is that plan's call.
impl<W: Coeff + 'static, P: Product<W, [W]> + 'static> Product<W, [W]> for MultiPlan<W, P> {
    fn polymul_into(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        if out.len() != a.len() {
            return Err(Error::LengthMismatch { what: "out", got: out.len(), expected: a.len() });
        }
        if let Some(p) = self.alone(a.len()) {
            return p.polymul_into(a, b, out);
        }
        let whole = self.towers.check_pair(a, b)?;
        self.host_shares(whole, out, None, &[a, b], &|p, o, _, x| match prechecked::product(
            p,
            Some(x[0]),
            x[1],
            o,
            share_layout(p, whole.n, o.len()),
        ) {
            Some(done) => done,
            None => p.polymul_into(x[0], x[1], o),
        })
    }

    fn polymul_in_place(&self, a: &mut [W], b: &mut [W]) -> Result<()> {
        if let Some(p) = self.alone(a.len()) {
            return p.polymul_in_place(a, b);
        }
        let whole = self.towers.check_pair(a, b)?;
        self.host_shares(whole, a, Some(b), &[], &|p, o, b, _| match prechecked::product(
            p,
            None,
            b,
            o,
            share_layout(p, whole.n, o.len()),
        ) {
            Some(done) => done,
            None => p.polymul_in_place(o, b),
        })
    }
}

/// Host slices, as [`Product`].
impl<W: Coeff + 'static, P: Transform<W, [W]> + 'static> Transform<W, [W]> for MultiPlan<W, P> {
    fn forward(&self, data: &mut [W]) -> Result<()> {
        if let Some(p) = self.alone(data.len()) {
            return p.forward(data);
        }
        let whole = self.towers.check("data", data)?;
        self.host_shares(whole, data, None, &[], &|p, o, _, _| p.forward(o))
    }

    fn inverse(&self, data: &mut [W]) -> Result<()> {
        if let Some(p) = self.alone(data.len()) {
            return p.inverse(data);
        }
        let whole = self.towers.check("data", data)?;
        self.host_shares(whole, data, None, &[], &|p, o, _, _| p.inverse(o))
    }

    fn pointwise_mul(&self, acc: &mut [W], other: &[W]) -> Result<()> {
        if let Some(p) = self.alone(acc.len()) {
            return p.pointwise_mul(acc, other);
        }
        let whole = self.towers.check("acc", acc)?;
        if other.len() != acc.len() {
            return Err(Error::LengthMismatch { what: "other", got: other.len(), expected: acc.len() });
        }
        self.towers.check("other", other)?;
        self.host_shares(whole, acc, None, &[other], &|p, o, _, x| p.pointwise_mul(o, x[0]))
    }
}

impl<W: Coeff> MultiPlan<W, crate::NttPlan<W>> {
    /// One [`crate::NttPlan`] of `params` per GPU, split by batch.
    ///
    /// # Errors
    /// [`Error::PlansDisagree`] for no GPUs; each plan's errors.
    pub fn ntt(gpus: &[Gpu], params: crate::NttParams<W>) -> Result<Self> {
        let plans =
            gpus.iter().map(|g| crate::NttPlan::new(g, params.clone())).collect::<Result<Vec<_>>>()?;
        Self::by_batch(plans)
    }
}

impl<W: Coeff> MultiPlan<W, crate::RnsPlan<W>> {
    /// An RNS product split by towers: `basis` cut into as many consecutive
    /// parts as there are GPUs (at most one per tower; the first parts get
    /// the extra towers), an [`crate::RnsPlan`] of each part on its GPU.
    ///
    /// # Errors
    /// [`Error::PlansDisagree`] for no GPUs; each plan's errors.
    pub fn rns(gpus: &[Gpu], basis: &crate::RnsBasis<W>) -> Result<Self> {
        let primes = basis.primes();
        let cut = shares::by_batch(Layout { n: basis.n(), towers: 1, batch: primes.len() }, gpus.len());
        let plans = cut
            .iter()
            .map(|s| {
                let part = crate::RnsBasis::from_primes(basis.n(), &primes[s.polys.clone()])?;
                crate::RnsPlan::new(&gpus[s.plan], &part)
            })
            .collect::<Result<Vec<_>>>()?;
        Self::by_towers(plans)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::negacyclic_naive;
    use crate::{CpuPlan, CpuRnsPlan, NttParams, RnsBasis};

    fn random(q: &[u64], n: usize, batch: usize, seed: u64) -> Vec<u64> {
        let mut s = seed;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        q.iter().flat_map(|&q| (0..n * batch).map(|_| next() % q).collect::<Vec<_>>()).collect()
    }

    /// Split by batch over 1–4 CPU plans, every batch from 1 to 9 (under
    /// Miri, which interprets it, 2 and 3 plans and batches 1, 2, 5): the
    /// products equal one plan's and the naive convolution's, and the
    /// transforms one plan's.
    #[test]
    fn by_batch_matches_one_plan_and_the_naive_product() {
        let params = NttParams::<u64>::with_prime_bits(32, 50).unwrap();
        let q = params.q();
        let one = CpuPlan::new(params.clone()).unwrap();
        let (counts, batches): (Vec<usize>, Vec<usize>) =
            if cfg!(miri) { (vec![2, 3], vec![1, 2, 5]) } else { ((1..=4).collect(), (1..=9).collect()) };
        for parts in counts {
            let plans = (0..parts).map(|_| CpuPlan::new(params.clone()).unwrap()).collect();
            let mut multi = MultiPlan::by_batch(plans).unwrap();
            multi.set_min_words_per_device(0);
            for &batch in &batches {
                let (a, b) = (random(&[q], 32, batch, batch as u64), random(&[q], 32, batch, 99));
                let c = multi.polymul(&a, &b).unwrap();
                assert_eq!(c, one.polymul(&a, &b).unwrap());
                for i in [0, batch - 1] {
                    let r = i * 32..(i + 1) * 32;
                    assert_eq!(c[r.clone()], negacyclic_naive(&a[r.clone()], &b[r], q).unwrap()[..]);
                }
                let (mut x, mut y) = (a.clone(), b.clone());
                multi.polymul_in_place(&mut x, &mut y).unwrap();
                assert_eq!(x, c);
                let mut f = a.clone();
                multi.forward(&mut f).unwrap();
                let mut g = a.clone();
                one.forward(&mut g).unwrap();
                assert_eq!(f, g);
                multi.inverse(&mut f).unwrap();
                assert_eq!(f, a);
            }
        }
    }

    /// Several towers split by batch (gathered shares) and by towers (each
    /// plan a part of the basis): both equal one RNS plan, also with the
    /// edge words 0 and q − 1.
    #[test]
    fn towers_split_both_ways_match_one_rns_plan() {
        let basis = RnsBasis::<u64>::new(16, 40, 5).unwrap();
        let primes = basis.primes();
        let one = CpuRnsPlan::new(&basis).unwrap();
        for batch in [1, 3, 4] {
            let (mut a, b) = (random(&primes, 16, batch, 7), random(&primes, 16, batch, 8));
            for (t, &q) in primes.iter().enumerate() {
                a[t * batch * 16] = q - 1;
                a[t * batch * 16 + 1] = 0;
            }
            let expected = one.polymul(&a, &b).unwrap();
            let plans = (0..2).map(|_| CpuRnsPlan::new(&basis).unwrap()).collect();
            let mut multi = MultiPlan::by_batch(plans).unwrap();
            multi.set_min_words_per_device(1);
            assert_eq!(multi.polymul(&a, &b).unwrap(), expected);
            let (mut x, mut y) = (a.clone(), b.clone());
            multi.polymul_in_place(&mut x, &mut y).unwrap();
            assert_eq!(x, expected);
            // The basis cut at these towers' ends: whole, in two, in four.
            let ends: [&[usize]; 3] = [&[5], &[2, 5], &[1, 2, 3, 5]];
            for cut in ends {
                let plans = cut
                    .iter()
                    .scan(0, |start, &end| Some(std::mem::replace(start, end)..end))
                    .map(|r| CpuRnsPlan::new(&RnsBasis::from_primes(16, &primes[r]).unwrap()).unwrap())
                    .collect();
                let multi = MultiPlan::by_towers(plans).unwrap();
                assert_eq!(multi.moduli(), primes);
                assert_eq!(multi.polymul(&a, &b).unwrap(), expected);
                let mut f = a.clone();
                multi.forward(&mut f).unwrap();
                let mut g = f.clone();
                multi.pointwise_mul(&mut g, &f).unwrap();
                let mut h = a.clone();
                one.forward(&mut h).unwrap();
                assert_eq!(f, h);
                multi.inverse(&mut f).unwrap();
                assert_eq!(f, a);
            }
        }
    }

    /// Bad input: typed errors before anything is computed.
    #[test]
    fn bad_input_and_bad_plans_are_refused() {
        let params = NttParams::<u64>::with_prime_bits(16, 40).unwrap();
        let q = params.q();
        assert!(matches!(MultiPlan::<u64, CpuPlan<u64>>::by_batch(vec![]), Err(Error::PlansDisagree { .. })));
        let other = NttParams::<u64>::with_prime_bits(32, 40).unwrap();
        let mixed = vec![CpuPlan::new(params.clone()).unwrap(), CpuPlan::new(other).unwrap()];
        assert!(matches!(MultiPlan::by_batch(mixed), Err(Error::PlansDisagree { .. })));
        let same = vec![CpuPlan::new(params.clone()).unwrap(), CpuPlan::new(params.clone()).unwrap()];
        assert!(matches!(MultiPlan::by_towers(same), Err(Error::DuplicatePrime { .. })));
        let multi =
            MultiPlan::by_batch(vec![CpuPlan::new(params.clone()).unwrap(), CpuPlan::new(params).unwrap()])
                .unwrap();
        let a = vec![1u64; 32];
        let mut bad = a.clone();
        bad[20] = q;
        assert!(matches!(multi.polymul(&a, &bad), Err(Error::CoefficientOutOfRange { index: 20, .. })));
        assert!(matches!(multi.polymul(&a, &a[..16]), Err(Error::LengthMismatch { .. })));
        assert!(matches!(multi.polymul(&a[..15], &a[..15]), Err(Error::NotAMultipleOfN { .. })));
        let mut out = vec![0u64; 16];
        assert!(matches!(multi.polymul_into(&a, &a, &mut out), Err(Error::LengthMismatch { .. })));
    }

    /// The device count rule: small calls stay on the first plan.
    #[test]
    fn small_batches_stay_on_one_plan() {
        let params = NttParams::<u64>::with_prime_bits(16, 40).unwrap();
        let plans = (0..4).map(|_| CpuPlan::new(params.clone()).unwrap()).collect();
        let mut multi = MultiPlan::by_batch(plans).unwrap();
        let per = MIN_WORDS_PER_DEVICE / 16; // polynomials of N = 16 per device
        assert_eq!(multi.devices_for(1), 1);
        assert_eq!(multi.devices_for(2 * per - 1), 1);
        assert_eq!(multi.devices_for(2 * per), 2);
        assert_eq!(multi.devices_for(3 * per - 1), 2);
        assert_eq!(multi.devices_for(1 << 30), 4);
        multi.set_min_words_per_device(0);
        assert_eq!((multi.devices_for(1), multi.devices_for(3), multi.devices_for(9)), (1, 3, 4));
    }
}
