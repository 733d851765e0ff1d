//! The `multi` suite: one plan over several GPUs ([`polymul::MultiPlan`],
//! issue 35), bit for bit against the CPU backend.
//!
//! It runs on every GPU of the machine; on a machine with one GPU it makes
//! two handles of that GPU (two plans on one device), so the splitting and
//! reassembly are checked there too (the line `multi: devices …` says which
//! ran).
//!
//! - **By batch** (`MultiPlan::by_batch`): `u64` and `u32` NTT plans, every
//!   call spread over every plan (`set_min_words_per_device(0)`) at batches
//!   that leave some plans one polynomial or none, with the edge words 0
//!   and q − 1; host slices (products, transforms, pointwise) and
//!   [`polymul::SpreadVec`]s (upload, products, transforms, download).
//!   Several towers split by batch (each share gathered). A large host
//!   call (`u64` N = 2^16 × 96, pipelined pieces on each device).
//! - **By towers** (`MultiPlan::rns`): an RNS basis of 7 primes cut among the
//!   GPUs, host slices and spread buffers.
//! - **Limb products** (big integers in and out, `MultiPlan::polymul_limbs`,
//!   `polymul_limbs_into`, `polymul_big`) split by towers (`u64` and `u32`:
//!   decomposition and CRT on the first GPU, towers sent and gathered by
//!   peer copies) and by batch, against the CPU path; another GPU's limbs
//!   refused with `WrongDevice` (by the multi-device plan and by a
//!   one-GPU plan), scratch of another batch with `SpreadMismatch`.
//! - **Another GPU's words** given to a one-GPU plan (NTT, DGT) are refused
//!   with `WrongDevice` (where the machine has two GPUs).
//! - **DGT plans** by batch (products only: the DGT has no NTT domain),
//!   against the naive convolution on the first and last polynomial.
//!
//! Host products of these GPU plans go to each plan's copy pipeline
//! without the plan's own checks (`multi/prechecked.rs`), so every host
//! product here also checks that path.
//! - **The rule**: a small batch stays on one device.
//! - **Errors**: operands spread otherwise (another batch) are refused
//!   with `SpreadMismatch`, before anything is queued.

use super::convert::limbs_below_q;
use super::{Tally, eq, s};
use polymul::expert::{SplitMix64, emulation};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, CpuPlan, CpuRnsPlan, Error, Gpu, MultiPlan, NttParams};

/// The GPUs the suite spreads over: every device, or two handles of the
/// only one.
fn devices() -> Result<Vec<Gpu>, String> {
    let all = Gpu::all().map_err(s)?;
    if all.len() > 1 { Ok(all) } else { Ok(vec![all[0].clone(), Gpu::with_device(0).map_err(s)?]) }
}

/// Random words of each tower of `primes` (tower-major), with 0 and q − 1
/// at the start of every tower.
fn words<W: Coeff>(rng: &mut SplitMix64, primes: &[u64], per_tower: usize) -> Vec<W> {
    let mut v = Vec::with_capacity(primes.len() * per_tower);
    for &q in primes {
        let mut t: Vec<W> = (0..per_tower).map(|_| W::from_u64(rng.next_u64() % q)).collect();
        t[0] = W::from_u64(q - 1);
        if per_tower > 1 {
            t[1] = W::from_u64(0);
        }
        v.extend(t);
    }
    v
}

/// Host slices and spread buffers of `multi` against `cpu` on `batch`
/// polynomials per tower: products (both forms), and where `transforms`,
/// forward, inverse and pointwise.
fn against<W: Coeff, P>(
    multi: &MultiPlan<W, P>,
    cpu: &impl Transform<W, [W]>,
    batch: usize,
    transforms: bool,
    rng: &mut SplitMix64,
) -> Result<(), String>
where
    P: DevicePlan<W> + Product<W, [W]> + Transform<W, [W]> + Transform<W, polymul::DeviceView<W>> + 'static,
{
    let (n, primes) = (multi.n(), multi.moduli());
    let (a, b) = (words::<W>(rng, &primes, batch * n), words::<W>(rng, &primes, batch * n));
    let want = cpu.polymul(&a, &b).map_err(s)?;
    eq("host polymul", &multi.polymul(&a, &b).map_err(s)?, &want)?;
    let (mut x, mut y) = (a.clone(), b.clone());
    multi.polymul_in_place(&mut x[..], &mut y[..]).map_err(s)?;
    eq("host polymul_in_place", &x, &want)?;
    let (da, db) = (multi.upload(&a).map_err(s)?, multi.upload(&b).map_err(s)?);
    let mut out = multi.zeros(batch).map_err(s)?;
    multi.polymul_into(&da, &db, &mut out).map_err(s)?;
    eq("spread polymul_into", &multi.download(&out).map_err(s)?, &want)?;
    let (mut da, mut db) = (da, db);
    multi.polymul_in_place(&mut da, &mut db).map_err(s)?;
    eq("spread polymul_in_place", &multi.download(&da).map_err(s)?, &want)?;
    if transforms {
        let mut f = a.clone();
        cpu.forward(&mut f).map_err(s)?;
        let mut h = a.clone();
        multi.forward(&mut h[..]).map_err(s)?;
        eq("host forward", &h, &f)?;
        let mut d = multi.upload(&a).map_err(s)?;
        multi.forward(&mut d).map_err(s)?;
        eq("spread forward", &multi.download(&d).map_err(s)?, &f)?;
        let mut g = b.clone();
        cpu.forward(&mut g).map_err(s)?;
        let dg = multi.upload(&g).map_err(s)?;
        multi.pointwise_mul(&mut d, &dg).map_err(s)?;
        multi.inverse(&mut d).map_err(s)?;
        eq("spread forward, pointwise, inverse", &multi.download(&d).map_err(s)?, &want)?;
        multi.pointwise_mul(&mut h[..], &g).map_err(s)?;
        multi.inverse(&mut h[..]).map_err(s)?;
        eq("host forward, pointwise, inverse", &h, &want)?;
    }
    Ok(())
}

pub(super) fn multi_suite(seed: u64, t: &mut Tally) {
    let gpus = match devices() {
        Ok(g) => g,
        Err(e) => return t.record("multi: the GPUs", Err(e)),
    };
    let names: Vec<String> =
        gpus.iter().map(|g| format!("#{} {}", g.info().ordinal, g.info().name)).collect();
    println!("multi: devices {}", names.join(", "));
    let mut rng = SplitMix64::new(seed);
    let k = gpus.len();

    for (word, bits, log_n) in [(64u32, 62u32, 12u32), (32, 30, 12), (64, 62, 16)] {
        let n = 1usize << log_n;
        let batches: &[usize] = if log_n == 16 { &[3, 96] } else { &[1, k - 1, k, 2 * k + 1, 37] };
        for &batch in batches.iter().filter(|&&b| b > 0) {
            let name = format!("multi by batch u{word} N=2^{log_n} × {batch} on {k} plans");
            let r = match word {
                32 => by_batch::<u32>(&gpus, n, bits, batch, &mut rng),
                _ => by_batch::<u64>(&gpus, n, bits, batch, &mut rng),
            };
            t.record(&name, r);
        }
    }
    for batch in [1usize, 2, 5] {
        let name = format!("multi RNS 3 towers by batch, u64 N=2^11 × {batch}");
        t.record(&name, rns_by_batch(&gpus, batch, &mut rng));
        let name = format!("multi RNS 7 towers by towers on {k} plans, u64 N=2^12 × {batch}");
        t.record(&name, rns_by_towers(&gpus, batch, &mut rng));
    }
    for batch in [1usize, 3] {
        let name = format!("multi limbs u64 7 × 62-bit towers by towers on {k} plans, N=2^12 × {batch}");
        t.record(&name, limbs_by_towers::<u64>(&gpus, 62, 7, batch, &mut rng));
    }
    let name = "multi limbs u64 7 × 62-bit towers on 1 plan (no copies), N=2^12 × 2";
    t.record(name, limbs_by_towers::<u64>(&gpus[..1], 62, 7, 2, &mut rng));
    let name = format!("multi limbs u32 9 × 30-bit towers by towers on {k} plans, N=2^12 × 2");
    t.record(&name, limbs_by_towers::<u32>(&gpus, 30, 9, 2, &mut rng));
    t.record("multi limbs u64 3 towers by batch, N=2^11 × 5", limbs_by_batch(&gpus, &mut rng));
    t.record(
        "multi limbs: another GPU's limbs and other scratch are refused",
        limbs_refused(&gpus, &mut rng),
    );
    if gpus.iter().any(|g| g.info().ordinal != gpus[0].info().ordinal) {
        t.record(
            "multi: another GPU's words given to a one-GPU plan are refused",
            foreign_words(&gpus, &mut rng),
        );
    }
    t.record("multi DGT by batch, u32 N=2^12 × 9, host and spread", dgt_by_batch(&gpus, &mut rng));
    t.record("multi: a small batch stays on one device", small_batch_rule(&gpus));
    t.record("multi: operands spread otherwise are refused", mismatch(&gpus, &mut rng));
}

fn by_batch<W: Coeff>(
    gpus: &[Gpu],
    n: usize,
    bits: u32,
    batch: usize,
    rng: &mut SplitMix64,
) -> Result<(), String> {
    let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
    let mut multi = MultiPlan::ntt(gpus, p.clone()).map_err(s)?;
    multi.set_min_words_per_device(0);
    let cpu = CpuPlan::new(p).map_err(s)?;
    against(&multi, &cpu, batch, true, rng)
}

fn rns_by_batch(gpus: &[Gpu], batch: usize, rng: &mut SplitMix64) -> Result<(), String> {
    let basis = RnsBasis::<u64>::new(1 << 11, 62, 3).map_err(s)?;
    let plans =
        gpus.iter().map(|g| RnsPlan::new(g, &basis)).collect::<polymul::Result<Vec<_>>>().map_err(s)?;
    let mut multi = MultiPlan::by_batch(plans).map_err(s)?;
    multi.set_min_words_per_device(0);
    against(&multi, &CpuRnsPlan::new(&basis).map_err(s)?, batch, true, rng)
}

fn rns_by_towers(gpus: &[Gpu], batch: usize, rng: &mut SplitMix64) -> Result<(), String> {
    let basis = RnsBasis::<u64>::new(1 << 12, 62, 7).map_err(s)?;
    let multi = MultiPlan::rns(gpus, &basis).map_err(s)?;
    if multi.plans().len() != gpus.len().min(7) {
        return Err(format!("{} plans for {} GPUs and 7 towers", multi.plans().len(), gpus.len()));
    }
    against(&multi, &CpuRnsPlan::new(&basis).map_err(s)?, batch, true, rng)
}

/// Limb products of `multi` (big integers in and out) against the CPU
/// path ([`emulation::rns_polymul_limbs`], itself checked against the
/// schoolbook product by the `convert` suite): host limbs, and device limbs
/// twice on one scratch (the second call with other operands), and
/// `polymul_big`.
fn limbs_against<W: Coeff>(
    multi: &MultiPlan<W, RnsPlan<W>>,
    basis: &RnsBasis<W>,
    batch: usize,
    rng: &mut SplitMix64,
) -> Result<(), String> {
    let a = limbs_below_q(basis, batch, rng)?;
    let b = limbs_below_q(basis, batch, rng)?;
    let c = limbs_below_q(basis, batch, rng)?;
    let want = emulation::rns_polymul_limbs(basis, &a, &b).map_err(s)?;
    eq("host polymul_limbs", &multi.polymul_limbs(&a, &b).map_err(s)?, &want)?;
    let (da, db, dc) = (
        multi.upload_limbs(&a).map_err(s)?,
        multi.upload_limbs(&b).map_err(s)?,
        multi.upload_limbs(&c).map_err(s)?,
    );
    let mut out = multi.zeros_limbs(batch).map_err(s)?;
    let mut scratch = multi.limb_scratch(batch).map_err(s)?;
    multi.polymul_limbs_into(&da, &db, &mut out, &mut scratch).map_err(s)?;
    eq("device polymul_limbs_into", &multi.download_limbs(&out).map_err(s)?, &want)?;
    multi.polymul_limbs_into(&dc, &da, &mut out, &mut scratch).map_err(s)?;
    let want = emulation::rns_polymul_limbs(basis, &c, &a).map_err(s)?;
    eq("device polymul_limbs_into, scratch reused", &multi.download_limbs(&out).map_err(s)?, &want)?;
    let big = |x: &[u64]| basis.from_limbs(x).map_err(s);
    let got = basis.to_limbs(&multi.polymul_big(&big(&c)?, &big(&a)?).map_err(s)?).map_err(s)?;
    eq("polymul_big", &got, &want)
}

fn limbs_by_towers<W: Coeff>(
    gpus: &[Gpu],
    bits: u32,
    towers: usize,
    batch: usize,
    rng: &mut SplitMix64,
) -> Result<(), String> {
    let basis = RnsBasis::<W>::new(1 << 12, bits, towers).map_err(s)?;
    let multi = MultiPlan::rns(gpus, &basis).map_err(s)?;
    eq("the whole basis", &multi.basis().map_err(s)?.primes(), &basis.primes())?;
    limbs_against(&multi, &basis, batch, rng)
}

fn limbs_by_batch(gpus: &[Gpu], rng: &mut SplitMix64) -> Result<(), String> {
    let basis = RnsBasis::<u64>::new(1 << 11, 62, 3).map_err(s)?;
    let plans =
        gpus.iter().map(|g| RnsPlan::new(g, &basis)).collect::<polymul::Result<Vec<_>>>().map_err(s)?;
    let mut multi = MultiPlan::by_batch(plans).map_err(s)?;
    multi.set_min_words_per_device(0);
    limbs_against(&multi, &basis, 5, rng)
}

/// Limbs on another GPU than the root (where there is one) are refused
/// with `WrongDevice`, by the multi-device plan and by a one-GPU plan;
/// scratch of another batch with `SpreadMismatch`.
fn limbs_refused(gpus: &[Gpu], rng: &mut SplitMix64) -> Result<(), String> {
    let basis = RnsBasis::<u64>::new(1 << 10, 62, 4).map_err(s)?;
    let multi = MultiPlan::rns(gpus, &basis).map_err(s)?;
    let a = limbs_below_q(&basis, 2, rng)?;
    let da = multi.upload_limbs(&a).map_err(s)?;
    let mut out = multi.zeros_limbs(2).map_err(s)?;
    let mut other = multi.limb_scratch(1).map_err(s)?;
    match multi.polymul_limbs_into(&da, &da, &mut out, &mut other) {
        Err(Error::SpreadMismatch { what: "scratch" }) => {}
        r => return Err(format!("scratch of batch 1 for batch 2: {r:?}")),
    }
    let root = multi.root_gpu().info().ordinal;
    let Some(elsewhere) = gpus.iter().find(|g| g.info().ordinal != root) else {
        return Ok(()); // one device: no other GPU's limbs to refuse
    };
    let there = RnsPlan::new(elsewhere, &basis).map_err(s)?;
    let far = there.upload_limbs(&a).map_err(s)?;
    let mut scratch = multi.limb_scratch(2).map_err(s)?;
    match multi.polymul_limbs_into(&far, &da, &mut out, &mut scratch) {
        Err(Error::WrongDevice { what: "a", .. }) => {}
        r => return Err(format!("limbs of GPU {} given to the root's call: {r:?}", far.ordinal())),
    }
    let (mut ra, mut rb) = (there.zeros(2).map_err(s)?, there.zeros(2).map_err(s)?);
    let here = RnsPlan::new(multi.root_gpu(), &basis).map_err(s)?;
    let mut near_out = here.zeros_limbs(2).map_err(s)?;
    match here.polymul_limbs_into(&far, &far, &mut near_out, &mut ra, &mut rb) {
        Err(Error::WrongDevice { .. }) => Ok(()),
        r => Err(format!("another GPU's limbs given to a one-GPU plan: {r:?}")),
    }
}

/// A `DeviceVec` of GPU 1 given to plans of GPU 0 (an NTT plan, a DGT
/// plan): `WrongDevice` naming the operand, before anything is queued; the
/// plans' own buffers still compute after it.
fn foreign_words(gpus: &[Gpu], rng: &mut SplitMix64) -> Result<(), String> {
    use polymul::NttPlan;
    use polymul::dgt::{DgtConfig, DgtParams, DgtPlan};
    let other = gpus.iter().find(|g| g.info().ordinal != gpus[0].info().ordinal).ok_or("one device")?;
    let p = NttParams::<u64>::with_prime_bits(1 << 10, 62).map_err(s)?;
    let (here, there) =
        (NttPlan::new(&gpus[0], p.clone()).map_err(s)?, NttPlan::new(other, p.clone()).map_err(s)?);
    let a = words::<u64>(rng, &[p.q()], 2 << 10);
    let (mut far, mut near, mut near2) =
        (there.upload(&a).map_err(s)?, here.upload(&a).map_err(s)?, here.upload(&a).map_err(s)?);
    let want = CpuPlan::new(p).map_err(s)?.polymul(&a, &a).map_err(s)?;
    match here.polymul_in_place(&mut near, &mut far) {
        Err(Error::WrongDevice { what: "b", .. }) => {}
        r => return Err(format!("NttPlan::polymul_in_place with b on another GPU: {r:?}")),
    }
    match here.forward(&mut far) {
        Err(Error::WrongDevice { what: "data", .. }) => {}
        r => return Err(format!("NttPlan::forward on another GPU's words: {r:?}")),
    }
    here.polymul_in_place(&mut near, &mut near2).map_err(s)?;
    eq("the plan's own words after the refusals", &here.download(&near).map_err(s)?, &want)?;
    let dp = DgtParams::<u32>::with_prime_bits(1 << 12, 30).map_err(s)?;
    let config = DgtConfig::default_for(11);
    let (dh, dt) =
        (DgtPlan::new(&gpus[0], dp.clone(), config).map_err(s)?, DgtPlan::new(other, dp, config).map_err(s)?);
    let (mut x, mut y) = (dh.zeros(1).map_err(s)?, dt.zeros(1).map_err(s)?);
    match dh.polymul_in_place(&mut x, &mut y) {
        Err(Error::WrongDevice { what: "b", .. }) => Ok(()),
        r => Err(format!("DgtPlan::polymul_in_place with b on another GPU: {r:?}")),
    }
}

/// DGT plans split by batch (the DGT has no NTT domain: products only),
/// against the CPU backend's NTT product modulo the DGT's prime and the
/// naive convolution on two polynomials.
fn dgt_by_batch(gpus: &[Gpu], rng: &mut SplitMix64) -> Result<(), String> {
    use polymul::dgt::{DgtConfig, DgtParams, DgtPlan};
    let n = 1usize << 12;
    let params = DgtParams::<u32>::with_prime_bits(n, 30).map_err(s)?;
    let config = DgtConfig::default_for(n.trailing_zeros() - 1);
    let plans =
        gpus.iter().map(|g| DgtPlan::new(g, params.clone(), config)).collect::<polymul::Result<Vec<_>>>();
    let mut multi = MultiPlan::by_batch(plans.map_err(s)?).map_err(s)?;
    multi.set_min_words_per_device(0);
    let q = multi.moduli()[0];
    let (a, b) = (words::<u32>(rng, &[q], 9 * n), words::<u32>(rng, &[q], 9 * n));
    let c = multi.polymul(&a, &b).map_err(s)?;
    for i in [0, 8] {
        let r = i * n..(i + 1) * n;
        let au: Vec<u64> = a[r.clone()].iter().map(|&x| x.into()).collect();
        let bu: Vec<u64> = b[r.clone()].iter().map(|&x| x.into()).collect();
        let want: Vec<u32> =
            polymul::cpu::negacyclic_naive(&au, &bu, q).map_err(s)?.into_iter().map(|x| x as u32).collect();
        eq("DGT host polymul (naive)", &c[r], &want)?;
    }
    let (mut x, mut y) = (multi.upload(&a).map_err(s)?, multi.upload(&b).map_err(s)?);
    multi.polymul_in_place(&mut x, &mut y).map_err(s)?;
    eq("DGT spread polymul_in_place", &multi.download(&x).map_err(s)?, &c)?;
    let (mut x, mut y) = (a.clone(), b.clone());
    multi.polymul_in_place(&mut x[..], &mut y[..]).map_err(s)?;
    eq("DGT host polymul_in_place", &x, &c)
}

fn small_batch_rule(gpus: &[Gpu]) -> Result<(), String> {
    let p = NttParams::<u64>::with_prime_bits(1 << 12, 62).map_err(s)?;
    let multi = MultiPlan::ntt(gpus, p).map_err(s)?;
    let a = vec![1u64; 4 << 12];
    let v = multi.upload(&a).map_err(s)?;
    let big = 1 + (polymul::multi::MIN_WORDS_PER_DEVICE >> 12) * gpus.len();
    match (v.parts(), multi.devices_for(big)) {
        (1, d) if d == gpus.len() => Ok(()),
        (p, d) => Err(format!("4 polynomials on {p} devices, {big} on {d} (expected 1 and {})", gpus.len())),
    }
}

fn mismatch(gpus: &[Gpu], rng: &mut SplitMix64) -> Result<(), String> {
    let p = NttParams::<u64>::with_prime_bits(1 << 10, 62).map_err(s)?;
    let mut multi = MultiPlan::ntt(gpus, p.clone()).map_err(s)?;
    multi.set_min_words_per_device(0);
    let a = words::<u64>(rng, &[p.q()], 4 << 10);
    let (mut x, mut y) = (multi.upload(&a).map_err(s)?, multi.upload(&a[..3 << 10]).map_err(s)?);
    let before = multi.download(&x).map_err(s)?;
    match multi.polymul_in_place(&mut x, &mut y) {
        Err(Error::SpreadMismatch { what: "b" }) => {
            eq("a after a refused call", &multi.download(&x).map_err(s)?, &before)
        }
        other => Err(format!("4 against 3 polynomials: {other:?}")),
    }
}
