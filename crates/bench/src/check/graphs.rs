//! Graph replay and back-to-back calls (issue 15): a captured operation
//! replayed on new inputs written into its buffers gives the CPU's words
//! every time, for every plan kind; calls queued back to back on several
//! streams without a wait in between give the CPU's words.

use super::{Tally, eq, s};
use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
use polymul::random::SplitMix64;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, Gpu, NttParams, NttPlan, cpu};

/// Rounds of new inputs per graph.
const ROUNDS: usize = 3;

fn ntt_graphs<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, batch: usize, seed: u64, t: &mut Tally) {
    let n = 1usize << log_n;
    let tag = format!("graph u{} N=2^{log_n} batch {batch}", W::BITS);
    let r = (|| {
        let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
        let plan = NttPlan::new(gpu, p.clone()).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let mut fg = plan.capture(plan.zeros(batch).map_err(s)?, |p, a| p.forward(a)).map_err(s)?;
        let mut ig = plan.capture(plan.zeros(batch).map_err(s)?, |p, a| p.inverse(a)).map_err(s)?;
        let state = (plan.zeros(batch).map_err(s)?, plan.zeros(batch).map_err(s)?);
        let mut pg = plan.capture(state, |p, (a, b)| p.polymul_in_place(a, b)).map_err(s)?;
        for _ in 0..ROUNDS {
            let (a, b) = (rng.coeffs(n * batch, p.q()), rng.coeffs(n * batch, p.q()));
            gpu.copy_into(fg.state_mut(), &a).map_err(s)?;
            gpu.copy_into(ig.state_mut(), &a).map_err(s)?;
            gpu.copy_into(&mut pg.state_mut().0, &a).map_err(s)?;
            gpu.copy_into(&mut pg.state_mut().1, &b).map_err(s)?;
            fg.launch().map_err(s)?;
            ig.launch().map_err(s)?;
            pg.launch().map_err(s)?;
            let mut want = a.clone();
            cpu::forward(&p, &mut want).map_err(s)?;
            eq("forward replay", &gpu.download(fg.state()).map_err(s)?, &want)?;
            let mut want = a.clone();
            cpu::inverse(&p, &mut want).map_err(s)?;
            eq("inverse replay", &gpu.download(ig.state()).map_err(s)?, &want)?;
            eq(
                "polymul replay",
                &gpu.download(&pg.state().0).map_err(s)?,
                &cpu::polymul(&p, &a, &b).map_err(s)?,
            )?;
        }
        Ok(())
    })();
    t.record(&format!("{tag}: forward, inverse, polymul replayed on {ROUNDS} new inputs == CPU"), r);
}

fn rns_graph(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let r = (|| {
        let n = 1usize << 14;
        let basis = RnsBasis::<u64>::new(n, 62, 3).map_err(s)?;
        let plan = RnsPlan::new(gpu, &basis).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let state = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
        let mut g = plan.capture(state, |p, (a, b)| p.polymul_in_place(a, b)).map_err(s)?;
        for _ in 0..ROUNDS {
            let a: Vec<u64> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
            let b: Vec<u64> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
            gpu.copy_into(&mut g.state_mut().0, &a).map_err(s)?;
            gpu.copy_into(&mut g.state_mut().1, &b).map_err(s)?;
            g.launch().map_err(s)?;
            eq(
                "rns replay",
                &gpu.download(&g.state().0).map_err(s)?,
                &cpu::rns_polymul(&basis, &a, &b).map_err(s)?,
            )?;
        }
        Ok(())
    })();
    t.record(&format!("graph RNS 3 × 62-bit N=2^14: polymul replayed on {ROUNDS} new inputs == CPU"), r);
}

fn dgt_graph(gpu: &Gpu, log_n: u32, towers: usize, seed: u64, t: &mut Tally) {
    let r = (|| {
        let n = 1usize << log_n;
        let params = dgt::dgt_primes(30, n, towers)
            .map_err(s)?
            .into_iter()
            .map(|p| DgtParams::<u32>::new(n, p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(s)?;
        let cfg = DgtConfig::default_for(params[0].log_m());
        let plan = DgtPlan::with_towers(gpu, &params, cfg).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let state = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
        let mut g = plan.capture(state, |p, (a, b)| p.polymul_in_place(a, b)).map_err(s)?;
        for _ in 0..ROUNDS {
            let a: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
            let b: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
            gpu.copy_into(&mut g.state_mut().0, &a).map_err(s)?;
            gpu.copy_into(&mut g.state_mut().1, &b).map_err(s)?;
            g.launch().map_err(s)?;
            let got = gpu.download(&g.state().0).map_err(s)?;
            for (i, p) in params.iter().enumerate() {
                let r = i * n..(i + 1) * n;
                let want = dgt::cpu::polymul(p, &cfg, &a[r.clone()], &b[r.clone()]).map_err(s)?;
                eq("dgt replay", &got[r], &want)?;
            }
        }
        Ok(())
    })();
    t.record(
        &format!("graph DGT {towers} tower(s) N=2^{log_n}: polymul replayed on {ROUNDS} new inputs == CPU"),
        r,
    );
}

/// Polymuls queued back to back (no wait between them) on three streams at
/// once, one plan per stream, then checked.
fn back_to_back(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let r = (|| {
        let n = 1usize << 12;
        let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let calls = 40;
        let mut lanes = Vec::new();
        for _ in 0..3 {
            let stream = gpu.create_stream().map_err(s)?;
            let mut plan = NttPlan::new(gpu, p.clone()).map_err(s)?;
            plan.set_stream(Some(&stream));
            let a: Vec<Vec<u64>> = (0..calls).map(|_| rng.coeffs(n, p.q())).collect();
            let b: Vec<Vec<u64>> = (0..calls).map(|_| rng.coeffs(n, p.q())).collect();
            let da = a.iter().map(|x| plan.upload(x)).collect::<Result<Vec<_>, _>>().map_err(s)?;
            let db = b.iter().map(|x| plan.upload(x)).collect::<Result<Vec<_>, _>>().map_err(s)?;
            lanes.push((plan, a, b, da, db));
        }
        gpu.synchronize().map_err(s)?;
        // Queue every call of every stream, round-robin, without waiting.
        for i in 0..calls {
            for (plan, _, _, da, db) in lanes.iter_mut() {
                plan.polymul_in_place(&mut da[i], &mut db[i]).map_err(s)?;
            }
        }
        for (plan, a, b, da, _) in &lanes {
            plan.synchronize().map_err(s)?;
            for i in 0..calls {
                eq(
                    "back to back",
                    &gpu.download(&da[i]).map_err(s)?,
                    &cpu::polymul(&p, &a[i], &b[i]).map_err(s)?,
                )?;
            }
        }
        Ok(())
    })();
    t.record("back to back: 40 polymuls u64 N=2^12 queued on each of 3 streams without a wait == CPU", r);
}

/// The suite.
pub fn graph_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    for (i, &log_n) in [10u32, 12, 14, 16].iter().enumerate() {
        ntt_graphs::<u32>(gpu, 30, log_n, 1, seed ^ i as u64, t);
        ntt_graphs::<u64>(gpu, 62, log_n, 1, seed ^ (i as u64 + 10), t);
    }
    // Batches past the latency kernels, and (u32, 2^16 × 128) the fused
    // transforms with their control words.
    ntt_graphs::<u64>(gpu, 62, 16, 12, seed ^ 21, t);
    ntt_graphs::<u32>(gpu, 30, 16, 128, seed ^ 22, t);
    rns_graph(gpu, seed ^ 23, t);
    dgt_graph(gpu, 10, 1, seed ^ 24, t);
    dgt_graph(gpu, 16, 4, seed ^ 25, t);
    back_to_back(gpu, seed ^ 26, t);
}
