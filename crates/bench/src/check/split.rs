//! Batches of any size (issue 32): calls above the one-launch limit and
//! host calls whose words exceed the device's free memory split into
//! pieces (polymul's gpu/split.rs); their words must be the CPU's.
//!
//! - **Above the launch limit**: u32 N = 2^20 (at most 4095 polynomials
//!   per launch), a batch of 4096 (16 GiB per operand: 32 GiB of device
//!   memory and 48 GiB of host memory), as device views (launches of 4095
//!   and 1) and as host slices (pipelined pieces). Checking 4096 products
//!   of 2^20 words on the CPU backend would take long, so: a random sample
//!   of polynomials and both sides of every multiple of 4095 (the device
//!   call's piece boundary) and of every power of two from 2^2 to 2^11 (the
//!   host pipeline's pieces are a power-of-two count of 4 MiB polynomials:
//!   64 MiB, fewer when memory is short) against the CPU backend, bit for
//!   bit; **every** polynomial through one evaluation (`c(ψ^e) = a(ψ^e) ·
//!   b(ψ^e)` at a random odd `e`, ψ the plan's 2N-th root, which holds for
//!   every negacyclic product); and the host result equal to the device
//!   result word for word.
//! - **By size**: host slices above 1 MiB per operand run pipelined even
//!   where they fit (pieces of at most 64 MiB):
//!   u64 N = 2^16 × 1000 (issue 34's shape, a short last piece) and RNS
//!   u64 N = 2^16 × 2 towers × 300, every word against the CPU backend.
//! - **Above the free memory**: a buffer takes all but 2 GiB of the device
//!   (a "hog"), then host-slice products whose operands and result are
//!   about 1.2 × what is left (RNS u64 N = 2^16 over two towers; DGT u32
//!   N = 2^14) against the CPU backend on every polynomial.

use super::{Tally, eq, s};
use polymul::dgt::{DgtConfig, DgtParams, DgtPlan};
use polymul::expert::{GpuTiming, SplitMix64};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, CpuPlan, CpuRnsPlan, Gpu, NttParams, NttPlan};
use rayon::prelude::*;

/// Random words below `q`, `len` of them, on every core (seeded per chunk).
pub(crate) fn par_coeffs<W: Coeff>(len: usize, q: W, seed: u64) -> Vec<W> {
    const CHUNK: usize = 1 << 20;
    let mut v = vec![W::default(); len];
    v.par_chunks_mut(CHUNK).enumerate().for_each(|(i, c)| {
        let mut rng = SplitMix64::new(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let q = q.as_u64();
        for x in c {
            *x = W::from_u64(rng.next_u64() % q);
        }
    });
    v
}

fn mulmod(a: u64, b: u64, q: u64) -> u64 {
    ((a as u128 * b as u128) % q as u128) as u64
}

/// `p(x) mod q` (Horner).
fn eval<W: Coeff>(p: &[W], x: u64, q: u64) -> u64 {
    p.iter().rev().fold(0, |acc, c| (mulmod(acc, x, q) + c.as_u64()) % q)
}

/// The polynomials a huge batch is checked on against the CPU: a random
/// sample, the first and last, and both sides of every multiple of
/// `max_batch` and of every power of two from 4 to 2048.
pub(crate) fn sample(batch: usize, max_batch: usize, rng: &mut SplitMix64) -> Vec<usize> {
    let mut v = vec![0, batch - 1];
    v.extend((0..8).map(|_| (rng.next_u64() % batch as u64) as usize));
    let mut edges: Vec<usize> = (1..).map(|k| k * max_batch).take_while(|&e| e < batch).collect();
    for j in 2..12 {
        edges.extend((1..).map(|k| k << j).take_while(|&e| e < batch).step_by(((batch >> j) / 8).max(1)));
    }
    for e in edges {
        v.extend([e - 1, e]);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Every product `c = a ⊗ b` (batch of `n`-word polynomials) satisfies
/// `c(ψ^e) = a(ψ^e) · b(ψ^e)` for an odd `e`; the first that does not.
pub(crate) fn evaluation_check<W: Coeff>(
    a: &[W],
    b: &[W],
    c: &[W],
    n: usize,
    psi: u64,
    q: u64,
    e: u64,
) -> Result<(), String> {
    let x = (0..e).fold(1u64, |acc, _| mulmod(acc, psi, q));
    let bad = a
        .par_chunks(n)
        .zip(b.par_chunks(n))
        .zip(c.par_chunks(n))
        .enumerate()
        .find_first(|(_, ((pa, pb), pc))| mulmod(eval(pa, x, q), eval(pb, x, q), q) != eval(pc, x, q));
    match bad {
        None => Ok(()),
        Some((i, _)) => Err(format!("polynomial {i}: c(ψ^{e}) ≠ a(ψ^{e}) · b(ψ^{e})")),
    }
}

/// u32 N = 2^20, a batch one above the launch limit: device views and host
/// slices.
fn above_launch_limit(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let n = 1usize << 20;
    let p = match NttParams::<u32>::with_prime_bits(n, 30) {
        Ok(p) => p,
        Err(e) => return t.record("split: parameters", Err(s(e))),
    };
    let max = p.max_batch();
    let batch = max + 1;
    let tag = format!("split u32 N=2^20 batch {batch} (one launch: {max})");
    let needed = 2 * batch * n * 4;
    match gpu.device_memory() {
        Ok((free, _)) if free < needed + (2 << 30) => {
            return t.record(
                &format!(
                    "{tag}: skipped, {} GiB free on the device, {} GiB needed",
                    free >> 30,
                    (needed >> 30) + 2
                ),
                Ok(()),
            );
        }
        Err(e) => return t.record(&tag, Err(s(e))),
        _ => {}
    }
    let mut rng = SplitMix64::new(seed);
    let (q, psi) = (p.q() as u64, p.psi() as u64);
    let a = par_coeffs(batch * n, p.q(), seed ^ 1);
    let b = par_coeffs(batch * n, p.q(), seed ^ 2);
    let cpu = match CpuPlan::new(p.clone()) {
        Ok(c) => c,
        Err(e) => return t.record(&tag, Err(s(e))),
    };
    let plan = match NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()) {
        Ok(x) => x,
        Err(e) => return t.record(&tag, Err(s(e))),
    };
    let picks = sample(batch, max, &mut rng);
    let e = 2 * (rng.next_u64() % n as u64) + 1;
    // Device views: polymul_in_place in launches of `max` and 1.
    let device = (|| {
        let (mut da, mut db) = (plan.upload(&a).map_err(s)?, plan.upload(&b).map_err(s)?);
        plan.polymul_in_place(&mut da, &mut db).map_err(s)?;
        let c = plan.download(&da).map_err(s)?;
        drop((da, db));
        Ok::<_, String>(c)
    })();
    let device = match device {
        Ok(c) => c,
        Err(e) => return t.record(&format!("{tag}: device-view polymul_in_place"), Err(e)),
    };
    let check = |c: &[u32]| -> Result<(), String> {
        for &i in &picks {
            let r = i * n..(i + 1) * n;
            let want = cpu.polymul(&a[r.clone()], &b[r.clone()]).map_err(s)?;
            eq(&format!("polynomial {i}"), &c[r], &want)?;
        }
        evaluation_check(&a, &b, c, n, psi, q, e)
    };
    t.record(
        &format!("{tag}: device-view polymul_in_place == CPU on {} polynomials (sample + boundaries), every polynomial by evaluation", picks.len()),
        check(&device),
    );
    let host = plan.polymul(&a, &b).map_err(s);
    t.record(
        &format!("{tag}: host-slice polymul (pipelined pieces) == the device-view result, every word"),
        host.and_then(|h| eq("host vs device", &h, &device)),
    );
    drop(device);
    // The forward transform of device views above the limit.
    let fwd = (|| {
        let mut da = plan.upload(&a).map_err(s)?;
        plan.forward(&mut da).map_err(s)?;
        let got = plan.download(&da).map_err(s)?;
        for &i in &picks {
            let r = i * n..(i + 1) * n;
            let mut want = a[r.clone()].to_vec();
            cpu.forward(&mut want[..]).map_err(s)?;
            eq(&format!("forward of polynomial {i}"), &got[r], &want)?;
        }
        Ok(())
    })();
    t.record(&format!("{tag}: device-view forward == CPU on the sample and boundaries"), fwd);
}

/// Takes all but `leave` bytes of the device's free memory.
fn hog(gpu: &Gpu, leave: usize) -> Result<(polymul::DeviceVec<u64>, usize), String> {
    let (free, _) = gpu.device_memory().map_err(s)?;
    let words = free.saturating_sub(leave) / 8;
    let h = gpu.zeros::<u64>(words).map_err(s)?;
    let (left, _) = gpu.device_memory().map_err(s)?;
    Ok((h, left))
}

/// Host-slice products whose words exceed the free memory.
fn above_free_memory(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let (h, left) = match hog(gpu, 2 << 30) {
        Ok(x) => x,
        Err(e) => return t.record("split: a buffer holding all but 2 GiB of the device", Err(e)),
    };
    // RNS, u64, N = 2^16, two towers: 1 MiB per polynomial (both towers).
    let r = (|| {
        let n = 1usize << 16;
        let basis = RnsBasis::<u64>::new(n, 62, 2).map_err(s)?;
        let per = 2 * n * 8;
        let batch = (left as f64 * 1.2 / 3.0 / per as f64) as usize + 1;
        let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options()).map_err(s)?;
        let cpu = CpuRnsPlan::new(&basis).map_err(s)?;
        let mut a = Vec::with_capacity(2 * batch * n);
        let mut b = Vec::with_capacity(2 * batch * n);
        for (i, tw) in basis.towers().iter().enumerate() {
            a.extend(par_coeffs(batch * n, tw.q(), seed ^ (3 + i as u64)));
            b.extend(par_coeffs(batch * n, tw.q(), seed ^ (5 + i as u64)));
        }
        let got = plan.polymul(&a, &b).map_err(s)?;
        eq("rns polymul", &got, &cpu.polymul(&a, &b).map_err(s)?)?;
        // In place and into, too (the other host-slice entries).
        let mut x = a.clone();
        let mut y = b.clone();
        plan.polymul_in_place(&mut x[..], &mut y[..]).map_err(s)?;
        eq("rns polymul_in_place", &x, &got)?;
        let mut fwd = a.clone();
        Transform::<u64, [u64]>::forward(&plan, &mut fwd[..]).map_err(s)?;
        let mut want = a.clone();
        cpu.forward(&mut want[..]).map_err(s)?;
        eq("rns forward", &fwd, &want)?;
        Ok::<_, String>(format!(
            "{batch} polynomials × 2 towers, {:.1} GiB of operands and result, {:.1} GiB free",
            (3 * batch * per) as f64 / (1u64 << 30) as f64,
            left as f64 / (1u64 << 30) as f64
        ))
    })();
    match r {
        Ok(what) => t.record(
            &format!("split RNS u64 N=2^16 host slices above free memory ({what}) == CPU, every word"),
            Ok(()),
        ),
        Err(e) => t.record("split RNS u64 N=2^16 host slices above free memory == CPU", Err(e)),
    }
    let r = (|| {
        let n = 1usize << 14;
        let p = DgtParams::<u32>::with_prime_bits(n, 30).map_err(s)?;
        let plan = DgtPlan::new(gpu, p.clone(), DgtConfig::default_for(n.trailing_zeros() - 1)).map_err(s)?;
        let per = n * 4;
        let batch = (left as f64 * 1.2 / 3.0 / per as f64) as usize + 1;
        let a = par_coeffs(batch * n, p.p(), seed ^ 7);
        let b = par_coeffs(batch * n, p.p(), seed ^ 8);
        let got = plan.polymul(&a, &b).map_err(s)?;
        // The DGT's own CPU code is slow: the sample of a huge batch.
        let mut rng = SplitMix64::new(seed ^ 9);
        let cfg = plan.config();
        for i in sample(batch, usize::MAX, &mut rng) {
            let r = i * n..(i + 1) * n;
            let want = polymul::expert::emulation::dgt::polymul(&p, &cfg, &a[r.clone()], &b[r.clone()])
                .map_err(s)?;
            eq(&format!("dgt polynomial {i}"), &got[r], &want)?;
        }
        Ok::<_, String>(batch)
    })();
    let tag = "split DGT u32 N=2^14 host slices above free memory == CPU emulation (sample + power-of-two boundaries)";
    t.record(tag, r.map(|_| ()));
    drop(h);
}

/// Host-slice calls split by size alone (no hog): the pipeline of pieces
/// (gpu/split.rs) on issue 34's shape, u64 N = 2^16, a batch of 1000
/// (64 MiB pieces of 128 polynomials and a shorter last one), every word against the CPU backend: `polymul_into`,
/// `polymul_in_place` (the first operand read from the output), `forward`
/// (one operand); and RNS u64 N = 2^16 over two towers, a batch of 300
/// (pieces of 64 polynomials, each gathered from both towers' rows),
/// against the CPU's RNS plan.
fn pipelined_by_size(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let n = 1usize << 16;
    let tag = "split by size u64 N=2^16 batch 1000 host slices (pipelined pieces)";
    let r = (|| {
        let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
        let plan = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
        let cpu = CpuPlan::new(p.clone()).map_err(s)?;
        let batch = 1000;
        let a = par_coeffs(batch * n, p.q(), seed ^ 1);
        let b = par_coeffs(batch * n, p.q(), seed ^ 2);
        let want = cpu.polymul(&a, &b).map_err(s)?;
        let mut out = vec![0u64; a.len()];
        plan.polymul_into(&a[..], &b[..], &mut out[..]).map_err(s)?;
        eq("polymul_into", &out, &want)?;
        let (mut x, mut y) = (a.clone(), b.clone());
        plan.polymul_in_place(&mut x[..], &mut y[..]).map_err(s)?;
        eq("polymul_in_place", &x, &want)?;
        let mut fwd = a.clone();
        Transform::<u64, [u64]>::forward(&plan, &mut fwd[..]).map_err(s)?;
        let mut want = a;
        cpu.forward(&mut want[..]).map_err(s)?;
        eq("forward", &fwd, &want)
    })();
    t.record(&format!("{tag}: polymul_into, polymul_in_place, forward == CPU, every word"), r);
    let tag = "split by size RNS u64 N=2^16 × 2 towers batch 300 host slices (pieces across tower rows)";
    let r = (|| {
        let basis = RnsBasis::<u64>::new(n, 62, 2).map_err(s)?;
        let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options()).map_err(s)?;
        let cpu = CpuRnsPlan::new(&basis).map_err(s)?;
        let batch = 300;
        let mut a = Vec::with_capacity(2 * batch * n);
        let mut b = Vec::with_capacity(2 * batch * n);
        for (i, tw) in basis.towers().iter().enumerate() {
            a.extend(par_coeffs(batch * n, tw.q(), seed ^ (3 + i as u64)));
            b.extend(par_coeffs(batch * n, tw.q(), seed ^ (5 + i as u64)));
        }
        eq("rns polymul", &plan.polymul(&a, &b).map_err(s)?, &cpu.polymul(&a, &b).map_err(s)?)
    })();
    t.record(&format!("{tag}: polymul == CPU, every word"), r);
}

/// The suite.
pub fn split_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    pipelined_by_size(gpu, seed ^ 0x50, t);
    above_free_memory(gpu, seed ^ 0x51, t);
    above_launch_limit(gpu, seed ^ 0x52, t);
}
