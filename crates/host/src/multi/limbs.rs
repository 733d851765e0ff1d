//! Big integers through an RNS product spread over several GPUs: limb
//! products (`a · b mod Q`, limbs in and limbs out, as
//! [`RnsPlan::polymul_limbs`]) on a [`MultiPlan`] of [`RnsPlan`]s.
//!
//! Device limbs live on the first plan's GPU, the *root*.
//!
//! **Split by towers** ([`MultiPlan::rns`]). The conversions cost `K · L`
//! word products per coefficient (more than the towers' NTTs at 40
//! towers), so every GPU converts a slice of the coefficients while it
//! multiplies a part of the towers:
//!
//! 1. each GPU fetches its slice of both operands' limbs from the root
//!    (host calls upload each slice straight to its GPU instead);
//! 2. each GPU decomposes its slice into every tower (the whole basis's
//!    tables are on every GPU), and sends each GPU (itself included) that
//!    GPU's towers of the slice: one strided copy per pair
//!    (`cuMemcpy3DPeerAsync`, over NVLink where the GPUs have it);
//! 3. each GPU multiplies its towers of the whole batch;
//! 4. each GPU fetches every tower of its slice back, runs the CRT on it,
//!    and sends the limbs to the root (host calls download each slice
//!    straight from its GPU).
//!
//! Events order each GPU's steps after the others' they read, so the host
//! only queues. With one plan the same call is the one-GPU pipeline
//! (decomposition, product, CRT) with no copies.
//!
//! **Split by batch** (plans of the whole basis): host limbs go share by
//! share to each plan's own limb product, a thread per share; device limbs
//! (on the root) run on the root's plan.
//!
//! Results are those of one [`RnsPlan`] of the whole basis, bit for bit:
//! the same kernels on the same words, in another place.

use super::{MultiPlan, Split, run_all, shares};
use crate::gpu::launch::Queue;
use crate::gpu::peer::{self, PeerEvent};
use crate::layout::Layout;
use crate::rns::{BasisConvert, DeviceLimbs, RnsBasis, RnsPlan};
use crate::{Coeff, DevicePlan, DeviceVec, DeviceView, Error, Gpu, Product, Result};
use num_bigint::BigUint;
use std::ops::Range;

/// The whole basis, and split by towers its conversions on every plan's
/// GPU (made at the first limb call).
pub(crate) struct Stations<W: Coeff> {
    basis: RnsBasis<W>,
    /// Plan `j`'s GPU's conversions of the whole basis (split by towers).
    converts: Vec<BasisConvert<W>>,
    /// Plan `j`'s GPU's stream for the call's copies (split by towers).
    copies: Vec<crate::GpuStream>,
}

/// Device scratch of a [`MultiPlan`]'s device limb products
/// ([`MultiPlan::polymul_limbs_into`]), made by
/// [`MultiPlan::limb_scratch`] for one batch; its words are clobbered by
/// every call. Split by towers, each GPU holds its slice of both
/// operands' limbs and residues, and its towers of both; split by batch,
/// the root holds both operands' residues.
pub struct LimbScratch<W: Coeff> {
    batch: usize,
    /// The CUDA ordinal of each plan's device (split by batch: the root's).
    ordinals: Vec<u32>,
    /// Per plan: its coefficient slice's limbs of both operands (device
    /// calls read the root's slice in place: empty there).
    limbs: Vec<[DeviceVec<u64>; 2]>,
    /// Per plan: its slice's residues of every tower, both operands
    /// (split by batch: the root's residues of the whole batch).
    slices: Vec<[DeviceVec<W>; 2]>,
    /// Per plan: its towers of the whole batch, both operands.
    towers: Vec<[DeviceVec<W>; 2]>,
}

impl<W: Coeff> std::fmt::Debug for LimbScratch<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LimbScratch").field("batch", &self.batch).field("ordinals", &self.ordinals).finish()
    }
}

impl<W: Coeff> LimbScratch<W> {
    /// Polynomials it holds residues of.
    pub fn batch(&self) -> usize {
        self.batch
    }
}

/// The coefficient slices of `count` coefficients over `parts` GPUs: as
/// even as can be, in order.
fn slices(count: usize, parts: usize) -> Vec<Range<usize>> {
    (0..parts).map(|j| j * count / parts..(j + 1) * count / parts).collect()
}

/// The error for a scratch or limb buffer of another shape than the call
/// (the checks before the first copy make it unreachable).
fn bad_scratch() -> Error {
    Error::SpreadMismatch { what: "scratch" }
}

/// Words `start..` of `v`.
fn tail<W: Coeff>(v: &DeviceView<W>, start: usize) -> Result<&DeviceView<W>> {
    v.get(start..v.len()).ok_or_else(bad_scratch)
}

/// Words `start..` of `v`, writable.
fn tail_mut<W: Coeff>(v: &mut DeviceView<W>, start: usize) -> Result<&mut DeviceView<W>> {
    let len = v.len();
    v.get_mut(start..len).ok_or_else(bad_scratch)
}

impl<W: Coeff> MultiPlan<W, RnsPlan<W>> {
    /// The whole basis and every GPU's conversions, made on the first call.
    fn stations(&self) -> Result<&Stations<W>> {
        if let Some(r) = self.stations.get() {
            return Ok(r);
        }
        let first = &self.plans[0];
        let stations = match self.split {
            Split::Batch => {
                Stations { basis: first.basis().clone(), converts: Vec::new(), copies: Vec::new() }
            }
            Split::Towers => {
                let basis = RnsBasis::from_primes(self.towers.n(), &self.towers.primes())?;
                for p in &self.plans {
                    for other in &self.plans {
                        // Where two GPUs cannot reach each other, their copies
                        // go through host memory by themselves: slower, the
                        // same words.
                        peer::enable_peer_access(p.gpu(), other.gpu())?;
                    }
                }
                let converts = self
                    .plans
                    .iter()
                    .map(|p| BasisConvert::new(p.gpu(), basis.clone()))
                    .collect::<Result<Vec<_>>>()?;
                let copies =
                    self.plans.iter().map(|p| p.gpu().create_stream()).collect::<Result<Vec<_>>>()?;
                Stations { basis, converts, copies }
            }
        };
        // Another thread may have made them meanwhile: either is the same.
        let _ = self.stations.set(Box::new(stations));
        self.stations.get().map(|r| &**r).ok_or(Error::PlansDisagree { why: "the limb conversions".into() })
    }

    /// The whole basis: every plan's towers in order (split by towers), or
    /// the plans' common basis (split by batch).
    ///
    /// # Errors
    /// Those of making the conversion tables (device memory).
    pub fn basis(&self) -> Result<&RnsBasis<W>> {
        Ok(&self.stations()?.basis)
    }

    /// The GPU that holds a limb product's limbs (the first plan's).
    pub fn root_gpu(&self) -> &Gpu {
        self.plans[0].gpu()
    }

    /// Validates host limbs against the whole basis
    /// ([`RnsBasis::check_limbs`]) and uploads them to the root GPU.
    ///
    /// # Errors
    /// Those of [`RnsBasis::check_limbs`]; device errors.
    pub fn upload_limbs(&self, limbs: &[u64]) -> Result<DeviceLimbs> {
        let basis = self.basis()?;
        let batch = basis.check_limbs("limbs", limbs)?;
        self.plans[0].stage_limbs(limbs, batch, basis.limbs())
    }

    /// `batch` zero polynomials of the whole basis's limbs on the root GPU.
    ///
    /// # Errors
    /// [`Error::NotAMultipleOfN`] for `batch = 0`,
    /// [`Error::BatchTooLarge`], device errors.
    pub fn zeros_limbs(&self, batch: usize) -> Result<DeviceLimbs> {
        let l = self.basis()?.limbs();
        self.plans[0].zeros_limbs_of(batch, l)
    }

    /// Copies limbs back from the root GPU (after the work queued there).
    ///
    /// # Errors
    /// [`Error::WrongDevice`] for limbs of another GPU; device errors.
    pub fn download_limbs(&self, limbs: &DeviceLimbs) -> Result<Vec<u64>> {
        self.plans[0].download_limbs(limbs)
    }

    /// Scratch for device limb products of `batch` polynomials.
    ///
    /// # Errors
    /// [`Error::NotAMultipleOfN`] for `batch = 0`,
    /// [`Error::BatchTooLarge`], device errors.
    pub fn limb_scratch(&self, batch: usize) -> Result<LimbScratch<W>> {
        self.scratch_of(batch, false)
    }

    /// [`MultiPlan::limb_scratch`]; `spread`: with every GPU's slice of the
    /// limbs, the root's too (host calls upload each slice to its GPU).
    fn scratch_of(&self, batch: usize, spread: bool) -> Result<LimbScratch<W>> {
        let basis = self.basis()?;
        let (n, k, l) = (basis.n(), basis.len(), basis.limbs());
        crate::params::check_batch_size(n, batch)?;
        let first = &self.plans[0];
        let pair = |gpu: &Gpu, words: usize| -> Result<[DeviceVec<W>; 2]> {
            Ok([gpu.zeros(words)?, gpu.zeros(words)?])
        };
        if self.split == Split::Batch {
            return Ok(LimbScratch {
                batch,
                ordinals: vec![first.gpu().info().ordinal],
                limbs: Vec::new(),
                slices: vec![pair(first.gpu(), k * batch * n)?],
                towers: Vec::new(),
            });
        }
        let parts = self.plans.len();
        let cuts = slices(batch * n, parts);
        let (mut limbs, mut own, mut towers) = (Vec::new(), Vec::new(), Vec::new());
        for (j, p) in self.plans.iter().enumerate() {
            let (g, len) = (p.gpu(), cuts[j].len());
            let fetched = if spread || j > 0 { len * l } else { 0 };
            limbs.push([g.zeros(fetched)?, g.zeros(fetched)?]);
            own.push(pair(g, if parts == 1 { 0 } else { k * len })?);
            towers.push([p.zeros(batch)?, p.zeros(batch)?]);
        }
        let ordinals = self.plans.iter().map(|p| p.gpu().info().ordinal).collect();
        Ok(LimbScratch { batch, ordinals, limbs, slices: own, towers })
    }

    /// Limbs of the whole basis's shape on the root GPU.
    fn check_limbs_on_root(&self, what: &'static str, limbs: &DeviceLimbs) -> Result<()> {
        let basis = self.basis()?;
        let (plan_n, plan_limbs) = (basis.n(), basis.limbs());
        if (limbs.n, limbs.l) != (plan_n, plan_limbs) {
            return Err(Error::LimbsMismatch { what, limbs: limbs.l, n: limbs.n, plan_limbs, plan_n });
        }
        let expected = self.plans[0].gpu().info().ordinal;
        if limbs.ordinal != expected {
            return Err(Error::WrongDevice { what, on: limbs.ordinal, expected });
        }
        Ok(())
    }

    /// Queues `out ← a ⊗ b mod Q` on limbs resident on the root GPU
    /// ([`MultiPlan::upload_limbs`], [`MultiPlan::zeros_limbs`]), with
    /// `scratch` of the same batch ([`MultiPlan::limb_scratch`]). Split by
    /// towers: each GPU converts a slice of the coefficients and multiplies
    /// its towers (the module documentation). Split by batch: the root
    /// plan's [`RnsPlan::polymul_limbs_into`]. The host only queues; read
    /// `out` with [`MultiPlan::download_limbs`].
    ///
    /// # Errors
    /// [`Error::LimbsMismatch`] or [`Error::WrongDevice`] for limbs not of
    /// this plan's whole basis on the root GPU;
    /// [`Error::LengthMismatch`] for operands of different batches;
    /// [`Error::SpreadMismatch`] for scratch of another batch or plan;
    /// [`Error::ConversionTooLarge`]; device errors.
    pub fn polymul_limbs_into(
        &self,
        a: &DeviceLimbs,
        b: &DeviceLimbs,
        out: &mut DeviceLimbs,
        scratch: &mut LimbScratch<W>,
    ) -> Result<()> {
        for (what, x) in [("a", a), ("b", b), ("out", &*out)] {
            self.check_limbs_on_root(what, x)?;
            if x.len() != a.len() {
                return Err(Error::LengthMismatch { what, got: x.len(), expected: a.len() });
            }
        }
        let expected: Vec<u32> = match self.split {
            Split::Batch => vec![self.plans[0].gpu().info().ordinal],
            Split::Towers => self.plans.iter().map(|p| p.gpu().info().ordinal).collect(),
        };
        if scratch.batch != a.batch || scratch.ordinals != expected {
            return Err(Error::SpreadMismatch { what: "scratch" });
        }
        if self.split == Split::Batch {
            let [ra, rb] = scratch.slices.first_mut().ok_or_else(bad_scratch)?;
            return self.plans[0].polymul_limbs_into(a, b, out, ra, rb);
        }
        self.towers_product(a.batch * a.n, scratch, Some((a, b, out)))
    }

    /// The limb product split by towers over `count` coefficients (the
    /// module documentation): the limbs on the root (`root`: both operands
    /// and the output, each GPU fetching its slice and sending its result
    /// back), or, where `root` is `None`, each GPU's slice of both operands
    /// already in its `scratch.limbs` (uploaded there), and its slice of the
    /// product left in `scratch.limbs[j][0]`. The caller checked the shapes.
    fn towers_product(
        &self,
        count: usize,
        scratch: &mut LimbScratch<W>,
        mut root: Option<(&DeviceLimbs, &DeviceLimbs, &mut DeviceLimbs)>,
    ) -> Result<()> {
        let stations = self.stations()?;
        // The plans' device calls below run on scratch each plan made on its
        // own GPU (`towers[s]` by plan `s`): vouched for on that GPU alone.
        let _matched = crate::gpu::external::Resident::vouch(
            scratch.towers.iter().zip(&self.plans).flat_map(|(t, p)| {
                let o = p.gpu().info().ordinal;
                t.iter().map(move |v| crate::gpu::external::vouched(v, o))
            }),
        );
        let l = stations.basis.limbs();
        let parts = self.plans.len();
        let first = &self.plans[0];
        let q0 = first.queue();
        let limb_words = |r: &Range<usize>| r.start * l..r.end * l;
        if parts == 1 {
            // One GPU: the plan's own pipeline, no copies.
            let [ta, tb] = scratch.towers.first_mut().ok_or_else(bad_scratch)?;
            let convert = &stations.converts[0];
            return match root {
                Some((a, b, out)) => {
                    convert.decompose(&q0, &a.data, count, ta)?;
                    convert.decompose(&q0, &b.data, count, tb)?;
                    Product::<W, DeviceView<W>>::polymul_in_place(first, ta, tb)?;
                    convert.reconstruct(&q0, ta, count, &mut out.data)
                }
                None => {
                    let [la, lb] = scratch.limbs.first_mut().ok_or_else(bad_scratch)?;
                    convert.decompose(&q0, la, count, ta)?;
                    convert.decompose(&q0, lb, count, tb)?;
                    Product::<W, DeviceView<W>>::polymul_in_place(first, ta, tb)?;
                    convert.reconstruct(&q0, ta, count, la)
                }
            };
        }
        let cuts = slices(count, parts);
        // Each GPU computes on its plan's queue and copies on a stream of
        // its own, so that a copy overlaps the next conversion.
        let queues: Vec<_> = self.plans.iter().map(|p| p.queue()).collect();
        let copiers: Vec<_> =
            self.plans.iter().zip(&stations.copies).map(|(p, c)| Queue::on(p.gpu(), Some(c))).collect();
        // Everything queued on the root before this call (the operands'
        // uploads, the previous call) comes first.
        let start = PeerEvent::record(&q0)?;
        // 1. Each GPU fetches its slice of both operands' limbs (limbs on
        //    the root).
        let mut fetched = Vec::with_capacity(parts);
        for (j, r) in cuts.iter().enumerate() {
            let (p, c) = (&self.plans[j], &copiers[j]);
            start.wait_on(c)?;
            let mut ops = Vec::with_capacity(2);
            for op in 0..2 {
                if let (Some((a, b, _)), true) = (&root, j > 0) {
                    let x = if op == 0 { a } else { b };
                    let src = x.data.get(limb_words(r)).ok_or_else(bad_scratch)?;
                    peer::copy(c, &mut scratch.limbs[j][op], p.gpu(), src, first.gpu())?;
                }
                ops.push(PeerEvent::record(c)?);
            }
            fetched.push(ops);
        }
        // 2. Each GPU decomposes its slice (the second operand while the
        //    first one's towers are sent), and sends each GPU its towers.
        let mut decomposed = Vec::with_capacity(parts);
        for (j, r) in cuts.iter().enumerate() {
            let (len, q) = (r.len(), &queues[j]);
            let mut ops = Vec::with_capacity(2);
            for (op, arrived) in fetched[j].iter().enumerate() {
                arrived.wait_on(q)?;
                if len > 0 {
                    let src: &DeviceView<u64> = match (&root, j) {
                        (Some((a, b, _)), 0) => {
                            let x = if op == 0 { a } else { b };
                            x.data.get(limb_words(r)).ok_or_else(bad_scratch)?
                        }
                        _ => &scratch.limbs[j][op],
                    };
                    stations.converts[j].decompose(q, src, len, &mut scratch.slices[j][op])?;
                }
                ops.push(PeerEvent::record(q)?);
            }
            decomposed.push(ops);
        }
        let mut sent = Vec::with_capacity(parts);
        for (j, r) in cuts.iter().enumerate() {
            let (p, len, c) = (&self.plans[j], r.len(), &copiers[j]);
            for (op, done) in decomposed[j].iter().enumerate() {
                done.wait_on(c)?;
                for (s, t) in self.tower_ranges.iter().enumerate() {
                    let dst = tail_mut(&mut scratch.towers[s][op], r.start)?;
                    let src = tail(&scratch.slices[j][op], t.start * len)?;
                    let to = self.plans[s].gpu();
                    peer::copy_rows(c, (dst, count, to), (src, len, p.gpu()), t.len(), len)?;
                }
            }
            sent.push(PeerEvent::record(c)?);
        }
        // 3. Each GPU multiplies its towers of the whole batch.
        let mut multiplied = Vec::with_capacity(parts);
        for (s, p) in self.plans.iter().enumerate() {
            let q = &queues[s];
            for e in &sent {
                e.wait_on(q)?;
            }
            let [ta, tb] = &mut scratch.towers[s];
            Product::<W, DeviceView<W>>::polymul_in_place(p, ta, tb)?;
            multiplied.push(PeerEvent::record(q)?);
        }
        // 4. Each GPU fetches every tower of its slice, runs the CRT, and
        //    (limbs on the root) sends the limbs there.
        let mut finished = Vec::with_capacity(parts);
        for (j, r) in cuts.iter().enumerate() {
            let (p, len, q, c) = (&self.plans[j], r.len(), &queues[j], &copiers[j]);
            for e in &multiplied {
                e.wait_on(c)?;
            }
            for (s, t) in self.tower_ranges.iter().enumerate() {
                let dst = tail_mut(&mut scratch.slices[j][0], t.start * len)?;
                let src = tail(&scratch.towers[s][0], r.start)?;
                let from = self.plans[s].gpu();
                peer::copy_rows(c, (dst, len, p.gpu()), (src, count, from), t.len(), len)?;
            }
            PeerEvent::record(c)?.wait_on(q)?;
            if len > 0 {
                let convert = &stations.converts[j];
                let residues = &scratch.slices[j][0];
                match (&mut root, j) {
                    (Some((_, _, out)), 0) => {
                        let mine = out.data.get_mut(limb_words(r)).ok_or_else(bad_scratch)?;
                        convert.reconstruct(q, residues, len, mine)?;
                    }
                    (Some((_, _, out)), _) => {
                        convert.reconstruct(q, residues, len, &mut scratch.limbs[j][0])?;
                        let mine = out.data.get_mut(limb_words(r)).ok_or_else(bad_scratch)?;
                        peer::copy(q, mine, first.gpu(), &scratch.limbs[j][0], p.gpu())?;
                    }
                    (None, _) => convert.reconstruct(q, residues, len, &mut scratch.limbs[j][0])?,
                }
            }
            finished.push(PeerEvent::record(q)?);
        }
        for e in &finished[1..] {
            e.wait_on(&q0)?;
        }
        Ok(())
    }

    /// Negacyclic products modulo `Q` of host limbs (the layout of
    /// [`RnsBasis::limbs`], every coefficient below the whole basis's `Q`):
    /// split by batch, each share's limbs through its plan's
    /// [`RnsPlan::polymul_limbs`], a thread per share (the device-count
    /// rule of [`MultiPlan::devices_for`]); split by towers, pieces of at
    /// most [`LIMB_PIECE_WORDS`] limbs, each GPU's slice of the
    /// coefficients uploaded straight to it (a thread per GPU), the product
    /// as [`MultiPlan::polymul_limbs_into`] computes it, and each slice of
    /// the result downloaded straight from its GPU.
    ///
    /// # Errors
    /// Those of [`RnsBasis::check_limbs`] for `a` and `b`
    /// ([`Error::LengthMismatch`] if their lengths differ),
    /// [`Error::ConversionTooLarge`], device errors.
    pub fn polymul_limbs(&self, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
        let basis = self.basis()?;
        let per = basis.n() * basis.limbs();
        let devices = match self.split {
            Split::Batch => self.devices_for(a.len() / per),
            Split::Towers => self.plans.len(),
        };
        if devices == 1 {
            // One GPU: the plan's own call (its checks; its pieces' copies
            // pipelined).
            return self.plans[0].polymul_limbs(a, b);
        }
        let batch = basis.check_limbs_any("a", a)?;
        if b.len() != a.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        basis.check_limbs_any("b", b)?;
        let mut out = vec![0u64; a.len()];
        if self.split == Split::Batch {
            let cut = shares::by_batch(Layout { n: per, towers: 1, batch }, devices);
            let jobs: Vec<_> = cut
                .iter()
                .zip(shares::cut_mut(&cut, Layout { n: per, towers: 1, batch }, &mut out))
                .map(|(s, o)| (s.plan, s.polys.start * per..s.polys.end * per, o))
                .collect();
            run_all(jobs, |(p, r, o)| {
                o.copy_from_slice(&self.plans[p].polymul_limbs(&a[r.clone()], &b[r])?);
                Ok(())
            })?;
            return Ok(out);
        }
        let (n, l, parts) = (basis.n(), basis.limbs(), self.plans.len());
        let piece = (LIMB_PIECE_WORDS / per).clamp(1, crate::params::max_batch(n));
        let mut scratch: Option<LimbScratch<W>> = None;
        for (i, (x, y)) in a.chunks(piece * per).zip(b.chunks(piece * per)).enumerate() {
            let polys = x.len() / per;
            let mut s = match scratch.take() {
                Some(s) if s.batch == polys => s,
                _ => self.scratch_of(polys, true)?,
            };
            let cuts = slices(polys * n, parts);
            let words: Vec<Range<usize>> = cuts.iter().map(|r| r.start * l..r.end * l).collect();
            // Each GPU's slice of both operands straight to it, a thread per
            // GPU (each over its own bus), ...
            let jobs: Vec<_> = s.limbs.iter_mut().zip(&words).enumerate().collect();
            run_all(jobs, |(j, ([la, lb], w))| {
                let (p, q) = (&self.plans[j], self.plans[j].queue());
                p.gpu().staging().upload(&q, &x[w.clone()], la)?;
                p.gpu().staging().upload(&q, &y[w.clone()], lb)
            })?;
            // ... the product spread over the GPUs, ...
            self.towers_product(polys * n, &mut s, None)?;
            // ... and each GPU's slice of it straight back.
            let mut rest = &mut out[i * piece * per..i * piece * per + x.len()];
            let mut outs = Vec::with_capacity(parts);
            for w in &words {
                let (mine, tail) = std::mem::take(&mut rest).split_at_mut(w.len());
                outs.push(mine);
                rest = tail;
            }
            let jobs: Vec<_> = s.limbs.iter().zip(outs).enumerate().collect();
            run_all(jobs, |(j, ([la, _], o))| {
                let (p, q) = (&self.plans[j], self.plans[j].queue());
                p.gpu().staging().download_into(&q, la, o)
            })?;
            scratch = Some(s);
        }
        Ok(out)
    }

    /// Negacyclic products modulo `Q` of big-integer polynomials: the
    /// limbs ([`RnsBasis::to_limbs`]) through [`MultiPlan::polymul_limbs`],
    /// and back.
    ///
    /// # Errors
    /// [`Error::NotAMultipleOfN`], [`Error::BigCoefficientOutOfRange`],
    /// [`Error::LengthMismatch`], and those of
    /// [`MultiPlan::polymul_limbs`].
    pub fn polymul_big(&self, a: &[BigUint], b: &[BigUint]) -> Result<Vec<BigUint>> {
        let basis = self.basis()?;
        let la = basis.to_limbs(a)?;
        if b.len() != a.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        let lb = basis.to_limbs(b)?;
        basis.from_limbs(&self.polymul_limbs(&la, &lb)?)
    }
}

/// Limb words per piece of a host limb product split by towers (2^26: 512
/// MiB of each operand's limbs, spread over the GPUs with the residues).
pub const LIMB_PIECE_WORDS: usize = 1 << 26;

#[cfg(test)]
mod tests {
    use super::slices;

    /// The slices cover `0..count` in order, without gaps or overlaps, and
    /// differ in length by at most one (empty only where there are fewer
    /// coefficients than GPUs).
    #[test]
    fn coefficient_slices_tile_the_batch() {
        for count in [1usize, 2, 3, 7, 16, 4096, 3 << 17] {
            for parts in 1..=8 {
                let s = slices(count, parts);
                assert_eq!(s.len(), parts);
                assert_eq!(s[0].start, 0);
                assert_eq!(s[parts - 1].end, count);
                assert!(s.windows(2).all(|w| w[0].end == w[1].start));
                let (min, max) = (s.iter().map(|r| r.len()).min(), s.iter().map(|r| r.len()).max());
                assert!(max.unwrap() - min.unwrap() <= 1, "{count} over {parts}: {s:?}");
            }
        }
    }
}
