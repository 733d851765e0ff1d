//! Words resident on several devices: [`SpreadVec`], and a multi-device
//! plan's device calls on it, queued on every part's plan (and so its
//! GPU's stream) in turn from the calling thread: each call only queues
//! work, and the GPUs run it at once. (A thread per part and call cost more
//! than it saved: on two H200s a 40-tower RNS product split by towers took
//! 306 µs that way against 203 µs queued in turn, docs/scaling.md.)
//! Uploads and downloads, which wait for their copies, run a thread per
//! part.

use super::shares::{self, Share};
use super::{MultiPlan, run_all};
use crate::layout::Layout;
use crate::{Coeff, DevicePlan, DeviceVec, Error, Product, Result, Transform};

/// Polynomials spread over the devices of a [`MultiPlan`]: one
/// [`DeviceVec`] per share (a range of polynomials of every tower, or a
/// range of towers), each resident on its plan's GPU and never copied to
/// another. Made by [`MultiPlan::upload`] and [`MultiPlan::zeros`]; read
/// back with [`MultiPlan::download`].
///
/// [`SpreadVec::part`] says which device holds which words, so one part
/// can also go to that device's own plans (as a [`DeviceVec`]).
pub struct SpreadVec<W: Coeff> {
    layout: Layout,
    shares: Vec<Share>,
    parts: Vec<DeviceVec<W>>,
    /// The CUDA ordinal of each part's device.
    ordinals: Vec<u32>,
}

impl<W: Coeff> std::fmt::Debug for SpreadVec<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpreadVec").field("layout", &self.layout).field("ordinals", &self.ordinals).finish()
    }
}

/// One part of a [`SpreadVec`]: where it lives and which words it holds.
#[derive(Debug)]
pub struct SpreadPart<'a, W: Coeff> {
    /// The plan of the [`MultiPlan`] that computes on it (its index in
    /// [`MultiPlan::plans`]).
    pub plan: usize,
    /// The CUDA ordinal of the device that holds it.
    pub ordinal: u32,
    /// Its towers of the whole buffer.
    pub towers: std::ops::Range<usize>,
    /// Its polynomials (of each of those towers).
    pub polys: std::ops::Range<usize>,
    /// The words, tower-major (the part's towers × polynomials).
    pub words: &'a DeviceVec<W>,
}

impl<W: Coeff> SpreadVec<W> {
    /// The layout of the whole buffer.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// How many parts (devices) it is spread over.
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// Part `i`, or `None` past the last.
    pub fn part(&self, i: usize) -> Option<SpreadPart<'_, W>> {
        let s = self.shares.get(i)?;
        Some(SpreadPart {
            plan: s.plan,
            ordinal: self.ordinals[i],
            towers: s.towers.clone(),
            polys: s.polys.clone(),
            words: &self.parts[i],
        })
    }

    /// The CUDA ordinals of the devices holding it, one per part.
    pub fn ordinals(&self) -> &[u32] {
        &self.ordinals
    }
}

impl<W: Coeff, P: DevicePlan<W>> MultiPlan<W, P> {
    /// Validates host words (tower-major, as [`DevicePlan::upload`]) and
    /// uploads each share to its plan's GPU: the call's devices are those
    /// a host call of the same batch would use
    /// ([`MultiPlan::devices_for`]), and every operand of a later call
    /// must be spread the same way (made by this plan, or one of the same
    /// split, with the same batch).
    pub fn upload(&self, words: &[W]) -> Result<SpreadVec<W>> {
        let whole = self.towers.check("words", words)?;
        let shares = self.shares(whole);
        let contiguous = shares::all_contiguous(&shares, whole);
        let cuts = if contiguous { shares::cut(&shares, whole, words) } else { Vec::new() };
        let parts = run_each(shares.iter().enumerate().collect(), |(i, s)| {
            let plan = &self.plans[s.plan];
            if contiguous { plan.upload(cuts[i]) } else { plan.upload(&shares::gather(s, whole, words)) }
        })?;
        Ok(self.spread(whole, shares, parts))
    }

    /// `batch` zero polynomials per tower, spread as [`MultiPlan::upload`]
    /// spreads them.
    pub fn zeros(&self, batch: usize) -> Result<SpreadVec<W>> {
        let whole = self.towers.shape(batch)?;
        let shares = self.shares(whole);
        let parts =
            shares.iter().map(|s| self.plans[s.plan].zeros(s.polys.len())).collect::<Result<Vec<_>>>()?;
        Ok(self.spread(whole, shares, parts))
    }

    fn spread(&self, layout: Layout, shares: Vec<Share>, parts: Vec<DeviceVec<W>>) -> SpreadVec<W> {
        let ordinals = shares.iter().map(|s| self.plans[s.plan].gpu().info().ordinal).collect();
        SpreadVec { layout, shares, parts, ordinals }
    }

    /// Copies the words back (after the work queued on every part's plan),
    /// in the whole buffer's tower-major order.
    pub fn download(&self, v: &SpreadVec<W>) -> Result<Vec<W>> {
        self.check_spread("v", v, v)?;
        let mut out = vec![W::default(); v.layout.words()];
        let own =
            run_each(v.shares.iter().zip(&v.parts).collect(), |(s, part)| self.plans[s.plan].download(part))?;
        for (s, own) in v.shares.iter().zip(&own) {
            shares::scatter(s, v.layout, own, &mut out);
        }
        Ok(out)
    }

    /// Waits for the work queued on every plan.
    pub fn synchronize(&self) -> Result<()> {
        self.plans.iter().try_for_each(|p| p.synchronize())
    }

    /// The parts of `vs`, each matched with its plan's device (by
    /// `check_spread`, which the callers ran), for [`Self::each_part`].
    fn matched(vs: &[&SpreadVec<W>]) -> Vec<crate::gpu::external::Vouched> {
        vs.iter()
            .flat_map(|v| v.parts.iter().zip(&v.ordinals).map(|(p, &o)| crate::gpu::external::vouched(p, o)))
            .collect()
    }

    /// Runs `f` on every part's plan in turn, on the calling thread. The
    /// callers matched every part with its plan's device
    /// (`check_spread`), so the plans do not ask the driver again for
    /// those parts (`matched`, on their own devices only).
    fn each_part<J>(
        &self,
        matched: Vec<crate::gpu::external::Vouched>,
        shares: &[Share],
        jobs: Vec<J>,
        f: impl Fn(&P, J) -> Result<()>,
    ) -> Result<()> {
        let _matched = crate::gpu::external::Resident::vouch(matched);
        shares.iter().zip(jobs).try_for_each(|(s, j)| f(&self.plans[s.plan], j))
    }

    /// Whether `v` is spread as this plan spreads `first`'s layout, on
    /// these plans' devices (`what` names it in the error).
    fn check_spread(&self, what: &'static str, first: &SpreadVec<W>, v: &SpreadVec<W>) -> Result<()> {
        let mismatch = || Error::SpreadMismatch { what };
        if v.layout != first.layout
            || v.shares != self.shares(first.layout)
            || v.parts.len() != v.shares.len()
            || v.shares.iter().zip(&v.ordinals).any(|(s, &o)| self.plans[s.plan].gpu().info().ordinal != o)
        {
            return Err(mismatch());
        }
        Ok(())
    }
}

/// Queued on every part's plan; `polymul_in_place` clobbers `b`'s parts as
/// each plan's does.
impl<W: Coeff + 'static, P: DevicePlan<W> + Product<W, [W]> + 'static> Product<W, SpreadVec<W>>
    for MultiPlan<W, P>
{
    fn polymul_into(&self, a: &SpreadVec<W>, b: &SpreadVec<W>, out: &mut SpreadVec<W>) -> Result<()> {
        self.check_spread("a", a, a)?;
        self.check_spread("b", a, b)?;
        self.check_spread("out", a, out)?;
        let m = Self::matched(&[a, b, out]);
        let jobs = a.parts.iter().zip(&b.parts).zip(out.parts.iter_mut()).collect();
        self.each_part(m, &a.shares, jobs, |p, ((a, b), out)| p.polymul_into(a, b, out))
    }

    fn polymul_in_place(&self, a: &mut SpreadVec<W>, b: &mut SpreadVec<W>) -> Result<()> {
        self.check_spread("a", a, a)?;
        self.check_spread("b", a, b)?;
        let m = Self::matched(&[a, b]);
        let jobs = a.parts.iter_mut().zip(b.parts.iter_mut()).collect();
        self.each_part(m, &a.shares, jobs, |p, (a, b)| p.polymul_in_place(a, b))
    }
}

/// Queued on every part's plan.
impl<W: Coeff + 'static, P: DevicePlan<W> + Product<W, [W]> + Transform<W, crate::DeviceView<W>> + 'static>
    Transform<W, SpreadVec<W>> for MultiPlan<W, P>
{
    fn forward(&self, data: &mut SpreadVec<W>) -> Result<()> {
        self.check_spread("data", data, data)?;
        let m = Self::matched(&[data]);
        self.each_part(m, &data.shares, data.parts.iter_mut().collect(), |p, x| p.forward(x))
    }

    fn inverse(&self, data: &mut SpreadVec<W>) -> Result<()> {
        self.check_spread("data", data, data)?;
        let m = Self::matched(&[data]);
        self.each_part(m, &data.shares, data.parts.iter_mut().collect(), |p, x| p.inverse(x))
    }

    fn pointwise_mul(&self, acc: &mut SpreadVec<W>, other: &SpreadVec<W>) -> Result<()> {
        self.check_spread("acc", acc, acc)?;
        self.check_spread("other", acc, other)?;
        let m = Self::matched(&[acc, other]);
        let jobs = acc.parts.iter_mut().zip(&other.parts).collect();
        self.each_part(m, &acc.shares, jobs, |p, (x, y)| p.pointwise_mul(x, y))
    }
}

/// `f` of every job, in order, each job on a thread of its own where there
/// are several ([`run_all`]); the first error in job order.
fn run_each<J: Send, T: Send>(jobs: Vec<J>, f: impl Fn(J) -> Result<T> + Sync) -> Result<Vec<T>> {
    let mut slots: Vec<Option<T>> = jobs.iter().map(|_| None).collect();
    run_all(jobs.into_iter().zip(slots.iter_mut()).collect(), |(j, slot)| {
        *slot = Some(f(j)?);
        Ok(())
    })?;
    slots
        .into_iter()
        .collect::<Option<Vec<T>>>()
        .ok_or(Error::PlansDisagree { why: "a device's part was not made".into() })
}
