//! Graph replay and back-to-back calls (issue 15): a captured operation
//! replayed on new inputs written into its buffers gives the CPU's words
//! every time, for every plan kind; calls queued back to back on several
//! streams without a wait in between give the CPU's words.

use super::{Tally, eq, s};
use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
use polymul::expert::{SplitMix64, emulation};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, DgtView, Gpu, NttParams, NttPlan};

/// Rounds of new inputs per graph.
const ROUNDS: usize = 3;

fn ntt_graphs<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, batch: usize, seed: u64, t: &mut Tally) {
    let n = 1usize << log_n;
    let tag = format!("graph u{} N=2^{log_n} batch {batch}", W::BITS);
    let r = (|| {
        let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
        let plan = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let mut fg = plan.capture(plan.zeros(batch).map_err(s)?, |p, a| p.forward(a)).map_err(s)?;
        let mut ig = plan.capture(plan.zeros(batch).map_err(s)?, |p, a| p.inverse(a)).map_err(s)?;
        let state = (plan.zeros(batch).map_err(s)?, plan.zeros(batch).map_err(s)?);
        let mut pg = plan.capture(state, |p, (a, b)| p.polymul_in_place(a, b)).map_err(s)?;
        for _ in 0..ROUNDS {
            let (a, b) = (rng.coeffs(n * batch, p.q()), rng.coeffs(n * batch, p.q()));
            gpu.copy_into(fg.state_mut(), &a).map_err(s)?;
            gpu.copy_into(ig.state_mut(), &a).map_err(s)?;
            gpu.copy_into(pg.state_mut().0, &a).map_err(s)?;
            gpu.copy_into(pg.state_mut().1, &b).map_err(s)?;
            fg.launch().map_err(s)?;
            ig.launch().map_err(s)?;
            pg.launch().map_err(s)?;
            let mut want = a.clone();
            emulation::forward(&p, &mut want).map_err(s)?;
            eq("forward replay", &gpu.download(fg.state()).map_err(s)?, &want)?;
            let mut want = a.clone();
            emulation::inverse(&p, &mut want).map_err(s)?;
            eq("inverse replay", &gpu.download(ig.state()).map_err(s)?, &want)?;
            eq(
                "polymul replay",
                &gpu.download(&pg.state().0).map_err(s)?,
                &emulation::polymul(&p, &a, &b).map_err(s)?,
            )?;
        }
        Ok(())
    })();
    t.record(&format!("{tag}: forward, inverse, polymul replayed on {ROUNDS} new inputs == CPU"), r);
}

/// Captures that are never launched, then direct calls on the same (new)
/// plan: the buffers a plan grows during a capture — the fused transforms'
/// control words (ticket counters that must start at zero) — must be ready
/// for its next direct launch. Until a0ecc7f they were zeroed by a memset
/// queued on the capturing stream, which made it a node of the graph only
/// (the 30-minute soak's stall, docs/results/2026-11-26-nvidia-h100-soak30/).
fn unlaunched_capture<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, batch: usize, seed: u64, t: &mut Tally) {
    let n = 1usize << log_n;
    let r = (|| {
        let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
        let plan = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
        drop(plan.capture(plan.zeros(batch).map_err(s)?, |p, a| p.forward(a)).map_err(s)?);
        drop(plan.capture(plan.zeros(batch).map_err(s)?, |p, a| p.inverse(a)).map_err(s)?);
        let state = (plan.zeros(batch).map_err(s)?, plan.zeros(batch).map_err(s)?);
        drop(plan.capture(state, |p, (a, b)| p.polymul_in_place(a, b)).map_err(s)?);
        let mut rng = SplitMix64::new(seed);
        let (a, b) = (rng.coeffs(n * batch, p.q()), rng.coeffs(n * batch, p.q()));
        let mut d = plan.upload(&a).map_err(s)?;
        plan.forward(&mut d).map_err(s)?;
        let mut want = a.clone();
        emulation::forward(&p, &mut want).map_err(s)?;
        eq("forward after the capture", &gpu.download(&d).map_err(s)?, &want)?;
        plan.inverse(&mut d).map_err(s)?;
        eq("inverse after the capture", &gpu.download(&d).map_err(s)?, &a)?;
        let (mut da, mut db) = (plan.upload(&a).map_err(s)?, plan.upload(&b).map_err(s)?);
        plan.polymul_in_place(&mut da, &mut db).map_err(s)?;
        eq(
            "polymul after the capture",
            &gpu.download(&da).map_err(s)?,
            &emulation::polymul(&p, &a, &b).map_err(s)?,
        )
    })();
    t.record(
        &format!(
            "graph u{} N=2^{log_n} batch {batch}: captures never launched, then direct forward, inverse, \
             polymul on the same plan == CPU",
            W::BITS
        ),
        r,
    );
}

fn rns_graph(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let r = (|| {
        let n = 1usize << 14;
        let basis = RnsBasis::<u64>::new(n, 62, 3).map_err(s)?;
        let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options()).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let state = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
        let mut g = plan.capture(state, |p, (a, b)| p.polymul_in_place(a, b)).map_err(s)?;
        for _ in 0..ROUNDS {
            let a: Vec<u64> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
            let b: Vec<u64> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
            gpu.copy_into(g.state_mut().0, &a).map_err(s)?;
            gpu.copy_into(g.state_mut().1, &b).map_err(s)?;
            g.launch().map_err(s)?;
            eq(
                "rns replay",
                &gpu.download(&g.state().0).map_err(s)?,
                &emulation::rns_polymul(&basis, &a, &b).map_err(s)?,
            )?;
        }
        Ok(())
    })();
    t.record(&format!("graph RNS 3 × 62-bit N=2^14: polymul replayed on {ROUNDS} new inputs == CPU"), r);
}

/// A DGT plan's towers, configuration and plan ([`dgt_setup`]).
type DgtSetup = (Vec<DgtParams<u32>>, DgtConfig, DgtPlan<u32>);

/// A DGT plan of `towers` 30-bit towers of `n` words with the default
/// configuration, with its towers and configuration.
fn dgt_setup(gpu: &Gpu, n: usize, towers: usize) -> Result<DgtSetup, String> {
    let params = dgt::dgt_primes(30, n, towers)
        .map_err(s)?
        .into_iter()
        .map(|p| DgtParams::<u32>::new(n, p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(s)?;
    let cfg = DgtConfig::default_for(params[0].log_m());
    let plan = DgtPlan::with_towers(gpu, &params, cfg).map_err(s)?;
    Ok((params, cfg, plan))
}

/// `got` (tower-major, one polynomial per tower) against each tower's CPU
/// product of `a` and `b`.
fn dgt_product_eq(
    what: &str,
    params: &[DgtParams<u32>],
    cfg: &DgtConfig,
    a: &[u32],
    b: &[u32],
    got: &[u32],
) -> Result<(), String> {
    let n = a.len() / params.len().max(1);
    for (i, p) in params.iter().enumerate() {
        let r = i * n..(i + 1) * n;
        let want = emulation::dgt::polymul(p, cfg, &a[r.clone()], &b[r.clone()]).map_err(s)?;
        let g = got.get(r).ok_or_else(|| format!("{what}: {} words, expected {}", got.len(), a.len()))?;
        eq(what, g, &want)?;
    }
    Ok(())
}

fn dgt_graph(gpu: &Gpu, log_n: u32, towers: usize, seed: u64, t: &mut Tally) {
    let r = (|| {
        let n = 1usize << log_n;
        let (params, cfg, plan) = dgt_setup(gpu, n, towers)?;
        let mut rng = SplitMix64::new(seed);
        let state = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
        let mut g = plan.capture(state, |p, (a, b)| p.polymul_in_place(a, b)).map_err(s)?;
        for _ in 0..ROUNDS {
            let a: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
            let b: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
            gpu.copy_into(g.state_mut().0, &a).map_err(s)?;
            gpu.copy_into(g.state_mut().1, &b).map_err(s)?;
            g.launch().map_err(s)?;
            dgt_product_eq("dgt replay", &params, &cfg, &a, &b, &gpu.download(&g.state().0).map_err(s)?)?;
        }
        Ok(())
    })();
    t.record(
        &format!("graph DGT {towers} tower(s) N=2^{log_n}: polymul replayed on {ROUNDS} new inputs == CPU"),
        r,
    );
}

/// [`unlaunched_capture`] for the DGT, whose plan grows its scratch during
/// the capture: a polymul captured and never launched, then the same
/// polymul called directly on the same (new) plan.
fn dgt_unlaunched_capture(gpu: &Gpu, log_n: u32, towers: usize, seed: u64, t: &mut Tally) {
    let r = (|| {
        let n = 1usize << log_n;
        let (params, cfg, plan) = dgt_setup(gpu, n, towers)?;
        let state = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
        drop(plan.capture(state, |p, (a, b)| p.polymul_in_place(a, b)).map_err(s)?);
        let mut rng = SplitMix64::new(seed);
        let a: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
        let b: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
        let (mut da, mut db) = (plan.upload(&a).map_err(s)?, plan.upload(&b).map_err(s)?);
        plan.polymul_in_place(&mut da, &mut db).map_err(s)?;
        dgt_product_eq("dgt polymul after the capture", &params, &cfg, &a, &b, &gpu.download(&da).map_err(s)?)
    })();
    t.record(
        &format!(
            "graph DGT {towers} tower(s) N=2^{log_n}: a capture never launched, then a direct polymul on the \
             same plan == CPU"
        ),
        r,
    );
}

/// Repeated DGT calls on the same buffers (replayed from the plan's graph
/// cache from the second on, where `cache`; else launched every time):
/// forward, inverse and polymul, 5 rounds of new inputs, every tower
/// against the CPU.
fn dgt_repeated(gpu: &Gpu, log_n: u32, towers: usize, cache: bool, seed: u64, t: &mut Tally) {
    let r = (|| {
        let n = 1usize << log_n;
        let (params, cfg, mut plan) = dgt_setup(gpu, n, towers)?;
        plan.set_graph_cache(cache);
        let mut rng = SplitMix64::new(seed);
        let (mut a, mut b) = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
        let towers_of = |v: &[u32]| -> Vec<Vec<u32>> { v.chunks(n).map(<[u32]>::to_vec).collect() };
        for _ in 0..5 {
            let x: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
            let y: Vec<u32> = params.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
            for inverse in [false, true] {
                gpu.copy_into(&mut a, &x).map_err(s)?;
                if inverse {
                    plan.inverse(DgtView::of_mut(&mut a)).map(|_| ())
                } else {
                    plan.forward(&mut a).map(|_| ())
                }
                .map_err(s)?;
                let got = towers_of(&gpu.download(&a).map_err(s)?);
                for ((p, mut want), got) in params.iter().zip(towers_of(&x)).zip(got) {
                    if inverse {
                        emulation::dgt::inverse(p, &cfg, &mut want)
                    } else {
                        emulation::dgt::forward(p, &cfg, &mut want)
                    }
                    .map_err(s)?;
                    eq("dgt transform", &got, &want)?;
                }
            }
            gpu.copy_into(&mut a, &x).map_err(s)?;
            gpu.copy_into(&mut b, &y).map_err(s)?;
            plan.polymul_in_place(&mut a, &mut b).map_err(s)?;
            dgt_product_eq("dgt polymul", &params, &cfg, &x, &y, &gpu.download(&a).map_err(s)?)?;
        }
        Ok(())
    })();
    t.record(
        &format!(
            "repeated DGT calls {towers} tower(s) N=2^{log_n}: forward, inverse, polymul, 5 rounds, {} == CPU",
            if cache { "cached graphs" } else { "graph cache off" }
        ),
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
            let mut plan =
                NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
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
                (*plan).polymul_in_place(&mut da[i], &mut db[i]).map_err(s)?;
            }
        }
        for (plan, a, b, da, _) in &lanes {
            plan.synchronize().map_err(s)?;
            for i in 0..calls {
                eq(
                    "back to back",
                    &gpu.download(&da[i]).map_err(s)?,
                    &emulation::polymul(&p, &a[i], &b[i]).map_err(s)?,
                )?;
            }
        }
        Ok(())
    })();
    t.record("back to back: 40 polymuls u64 N=2^12 queued on each of 3 streams without a wait == CPU", r);
}

/// Repeated plain calls on the same buffers, which a plan replays from the
/// graph it captured on the second call (its graph cache): new inputs
/// every round, two sets of buffers in turn, the plan moved to another
/// stream halfway, and more buffers than the cache keeps (so graphs are
/// dropped and the others still right).
fn repeated_calls<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, batch: usize, seed: u64, t: &mut Tally) {
    let n = 1usize << log_n;
    let r = (|| {
        let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
        let mut plan =
            NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let sets = if log_n == 12 { 20 } else { 2 };
        let mut bufs = (0..sets)
            .map(|_| Ok((plan.zeros(batch)?, plan.zeros(batch)?)))
            .collect::<polymul::Result<Vec<_>>>()
            .map_err(s)?;
        let stream = gpu.create_stream().map_err(s)?;
        let get = |plan: &NttPlan<W>, v: &polymul::DeviceVec<W>| {
            plan.synchronize().and_then(|()| gpu.download(v)).map_err(s)
        };
        for round in 0..6 {
            if round == 3 {
                plan.set_stream(Some(&stream));
            }
            for (a, b) in bufs.iter_mut() {
                let (x, y) = (rng.coeffs(n * batch, p.q()), rng.coeffs(n * batch, p.q()));
                gpu.copy_into(a, &x).map_err(s)?;
                plan.forward(a).map_err(s)?;
                let mut want = x.clone();
                emulation::forward(&p, &mut want).map_err(s)?;
                eq("forward", &get(&plan, a)?, &want)?;
                gpu.copy_into(a, &x).map_err(s)?;
                plan.inverse(a).map_err(s)?;
                let mut want = x.clone();
                emulation::inverse(&p, &mut want).map_err(s)?;
                eq("inverse", &get(&plan, a)?, &want)?;
                gpu.copy_into(a, &x).map_err(s)?;
                gpu.copy_into(b, &y).map_err(s)?;
                plan.polymul_in_place(a, b).map_err(s)?;
                eq("polymul", &get(&plan, a)?, &emulation::polymul(&p, &x, &y).map_err(s)?)?;
            }
        }
        Ok(())
    })();
    t.record(
        &format!(
            "repeated calls u{} N=2^{log_n} batch {batch}: forward, inverse, polymul on the same buffers, 6 rounds \
             of new inputs, cached graphs == CPU",
            W::BITS
        ),
        r,
    );
}

/// Repeated tensor products of `towers` towers (u32, 30-bit primes) on the
/// same buffers, which the plan replays from one graph (issue 54: both
/// forwards, the tensor kernel and the inverse): new inputs every round,
/// two sets of buffers in turn, the plan moved to another stream halfway;
/// `tensor_in_place` and `tensor_into` (whose copies into the plan's
/// scratch are not captured) against the CPU backend.
fn repeated_tensor(gpu: &Gpu, log_n: u32, towers: usize, seed: u64, t: &mut Tally) {
    let n = 1usize << log_n;
    let r = (|| {
        let basis = RnsBasis::<u32>::new(n, 30, towers).map_err(s)?;
        let cpu = polymul::cpu::CpuRnsPlan::new(&basis).map_err(s)?;
        let mut plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options()).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let words = |rng: &mut SplitMix64| -> Vec<u32> {
            basis.towers().iter().flat_map(|p| rng.coeffs(2 * n, p.q())).collect()
        };
        let mut bufs = (0..2)
            .map(|_| Ok((plan.zeros(2)?, plan.zeros(2)?, plan.zeros(3)?)))
            .collect::<polymul::Result<Vec<_>>>()
            .map_err(s)?;
        let stream = gpu.create_stream().map_err(s)?;
        for round in 0..5 {
            if round == 3 {
                plan.set_stream(Some(&stream));
            }
            for (a, b, out) in bufs.iter_mut() {
                let (x, y) = (words(&mut rng), words(&mut rng));
                let want = cpu.tensor(&x, &y).map_err(s)?;
                gpu.copy_into(a, &x).map_err(s)?;
                gpu.copy_into(b, &y).map_err(s)?;
                plan.tensor_into(&**a, &**b, &mut **out).map_err(s)?;
                plan.synchronize().map_err(s)?;
                eq("tensor_into", &gpu.download(out).map_err(s)?, &want)?;
                eq("tensor_into left a intact", &gpu.download(a).map_err(s)?, &x)?;
                plan.tensor_in_place(a, b, out).map_err(s)?;
                plan.synchronize().map_err(s)?;
                eq("tensor_in_place", &gpu.download(out).map_err(s)?, &want)?;
            }
        }
        Ok(())
    })();
    t.record(
        &format!(
            "repeated tensor products u32 N=2^{log_n} L={towers}: two buffer sets, 5 rounds of new inputs, a \
             stream change, replayed graphs == CPU"
        ),
        r,
    );
}

/// One `Gpu` used from two host threads (issue 31): while one thread has
/// used it, plans capture graphs of repeated calls
/// ([`Gpu::graph_capture_enabled`]); once a second thread queues work, they
/// stop capturing for good, and every call still gives the CPU's words:
/// the second thread's own calls, the first thread's graphs captured
/// before (replayed), and its calls on new buffers after (plain launches).
/// On a `Gpu` of its own (created here), since the switch is for good.
fn two_threads<W: Coeff>(bits: u32, log_n: u32, seed: u64, t: &mut Tally) {
    let n = 1usize << log_n;
    let r = (|| {
        let gpu = crate::env_options::gpu().map_err(s)?;
        if !gpu.graph_capture_enabled() {
            return Err("a new Gpu should capture graphs".into());
        }
        let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
        let plan = NttPlan::with_options(&gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        // `rounds` polymuls on the plan, on one pair of buffers, against the CPU.
        let run = |plan: &NttPlan<W>,
                   bufs: &mut (polymul::DeviceVec<W>, polymul::DeviceVec<W>),
                   rng: &mut SplitMix64,
                   rounds: usize|
         -> Result<(), String> {
            for _ in 0..rounds {
                let (x, y) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
                gpu.copy_into(&mut bufs.0, &x).map_err(s)?;
                gpu.copy_into(&mut bufs.1, &y).map_err(s)?;
                plan.polymul_in_place(&mut bufs.0, &mut bufs.1).map_err(s)?;
                plan.synchronize().map_err(s)?;
                eq(
                    "polymul",
                    &gpu.download(&bufs.0).map_err(s)?,
                    &emulation::polymul(&p, &x, &y).map_err(s)?,
                )?;
            }
            Ok(())
        };
        let mut before = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
        run(&plan, &mut before, &mut rng, 3).map_err(|e| format!("one thread: {e}"))?;
        if !gpu.graph_capture_enabled() {
            return Err("capture went off with one thread".into());
        }
        let mut other_rng = SplitMix64::new(seed ^ 0x5eed);
        std::thread::scope(|sc| {
            sc.spawn(|| {
                let mut mine = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
                run(&plan, &mut mine, &mut other_rng, 3)
            })
            .join()
            .map_err(|_| "the second thread panicked".to_string())?
        })
        .map_err(|e| format!("second thread: {e}"))?;
        if gpu.graph_capture_enabled() {
            return Err("capture still on after a second thread used the Gpu".into());
        }
        // The first thread again: its earlier buffers (a graph captured
        // before, replayed) and new ones (no capture now).
        run(&plan, &mut before, &mut rng, 2).map_err(|e| format!("after, old buffers: {e}"))?;
        let mut after = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
        run(&plan, &mut after, &mut rng, 3).map_err(|e| format!("after, new buffers: {e}"))?;
        if gpu.graph_capture_enabled() {
            return Err("capture came back on".into());
        }
        Ok(())
    })();
    t.record(
        &format!(
            "graphs u{} N=2^{log_n}: one Gpu from two threads, polymuls == CPU, capture on before, off after for good",
            W::BITS
        ),
        r,
    );
}

/// The suite.
pub fn graph_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    for (i, &log_n) in [12u32, 14, 16].iter().enumerate() {
        for batch in [1usize, 2] {
            let sd = seed ^ (100 + 2 * i as u64 + batch as u64);
            repeated_calls::<u32>(gpu, 30, log_n, batch, sd, t);
            repeated_calls::<u64>(gpu, 62, log_n, batch, sd ^ 7, t);
        }
    }
    // Ciphertext-sized calls (issue 54), which now replay graphs too.
    repeated_calls::<u32>(gpu, 30, 16, 32, seed ^ 110, t);
    repeated_calls::<u64>(gpu, 62, 16, 20, seed ^ 111, t);
    repeated_tensor(gpu, 16, 8, seed ^ 112, t);
    repeated_tensor(gpu, 14, 32, seed ^ 113, t);
    for (i, &log_n) in [10u32, 12, 14, 16].iter().enumerate() {
        ntt_graphs::<u32>(gpu, 30, log_n, 1, seed ^ i as u64, t);
        ntt_graphs::<u64>(gpu, 62, log_n, 1, seed ^ (i as u64 + 10), t);
    }
    // Batches past the latency kernels, and (u32, 2^16 × 128) the fused
    // transforms with their control words.
    ntt_graphs::<u64>(gpu, 62, 16, 12, seed ^ 21, t);
    ntt_graphs::<u32>(gpu, 30, 16, 128, seed ^ 22, t);
    unlaunched_capture::<u32>(gpu, 30, 16, 128, seed ^ 32, t);
    unlaunched_capture::<u64>(gpu, 62, 16, 12, seed ^ 33, t);
    rns_graph(gpu, seed ^ 23, t);
    dgt_graph(gpu, 10, 1, seed ^ 24, t);
    dgt_graph(gpu, 16, 4, seed ^ 25, t);
    dgt_unlaunched_capture(gpu, 16, 4, seed ^ 34, t);
    dgt_repeated(gpu, 10, 1, true, seed ^ 27, t);
    dgt_repeated(gpu, 16, 4, true, seed ^ 28, t);
    dgt_repeated(gpu, 10, 1, false, seed ^ 29, t);
    back_to_back(gpu, seed ^ 26, t);
    two_threads::<u32>(30, 12, seed ^ 30, t);
    two_threads::<u64>(62, 16, seed ^ 31, t);
}
