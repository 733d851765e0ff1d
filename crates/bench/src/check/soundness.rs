//! Soundness at run time (issue 53): the holes through which safe code
//! could free device memory that a graph, a plan or a kernel later used.
//! Each case below is the program, or its closest equivalent
//! after the redesign, run on the GPU: a refusal is a typed error before
//! anything is captured or launched, and what runs gives the CPU's words.
//! compute-sanitizer memcheck runs this suite (`--only soundness`) and the
//! `outlive-gpu` subcommand with 0 errors expected (docs/testing.md).
//!
//! The holes the type system closes (a captured state replaced through
//! `state_mut` or through interior mutability) are `compile_fail` doctests
//! of `polymul::Graph`, not cases here.

use super::{Tally, eq, s};
use polymul::expert::{SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, DeviceVec, Error, Gpu, NttParams, NttPlan};
use std::sync::Mutex;

/// A buffer a capture's `work` reaches through a `static` (hole 3).
static REACHED: Mutex<Option<DeviceVec<u64>>> = Mutex::new(None);

/// A plan a capture's `work` reaches through a `static`.
static OTHER_PLAN: Mutex<Option<NttPlan<u64>>> = Mutex::new(None);

fn refused<T>(what: &str, r: polymul::Result<T>) -> Result<(), String> {
    match r {
        Err(Error::CaptureOutsideState { .. }) => Ok(()),
        Err(e) => Err(format!("{what}: expected CaptureOutsideState, got the error {e}")),
        Ok(_) => Err(format!("{what}: captured, expected CaptureOutsideState")),
    }
}

/// Hole 3 and its relatives: a capture whose `work` computes on a buffer
/// of a `static`, calls another plan (itself in a `static`), or replaces
/// the state's buffer is refused with `CaptureOutsideState`; the plan then
/// still computes the CPU's words (the capture left nothing behind).
fn outside_state(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let r = (|| {
        let n = 1usize << 12;
        let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
        let plan = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
        *REACHED.lock().map_err(s)? = Some(plan.zeros(1).map_err(s)?);
        let r = plan.capture(plan.zeros(1).map_err(s)?, |p, _| match REACHED.lock() {
            Ok(mut g) => match g.as_mut() {
                Some(v) => p.forward(v),
                None => Ok(()),
            },
            Err(_) => Ok(()),
        });
        refused("a static's buffer", r)?;
        // The same with the refusal swallowed by `work`: still refused.
        let r = plan.capture(plan.zeros(1).map_err(s)?, |p, _| {
            if let Ok(mut g) = REACHED.lock()
                && let Some(v) = g.as_mut()
            {
                let _ = p.forward(v);
            }
            Ok(())
        });
        refused("a static's buffer, the error swallowed by work", r)?;
        // The static's buffer replaced and freed now: nothing captured it.
        *REACHED.lock().map_err(s)? = None;
        *OTHER_PLAN.lock().map_err(s)? = Some(NttPlan::new(gpu, p.clone()).map_err(s)?);
        let r = plan.capture(plan.zeros(1).map_err(s)?, |_, a| match OTHER_PLAN.lock() {
            Ok(g) => match g.as_ref() {
                Some(other) => other.forward(a),
                None => Ok(()),
            },
            Err(_) => Ok(()),
        });
        refused("another plan's call", r)?;
        *OTHER_PLAN.lock().map_err(s)? = None;
        let state = (plan.zeros(1).map_err(s)?, plan.zeros(1).map_err(s)?);
        let r = plan.capture(state, |p, (a, b)| {
            p.forward(a)?;
            std::mem::swap(a, b); // the buffer the launch was recorded on, moved
            Ok(())
        });
        refused("a state replaced by work", r)?;
        let x = SplitMix64::new(seed).coeffs(n, p.q());
        let mut d = plan.upload(&x).map_err(s)?;
        plan.forward(&mut d).map_err(s)?;
        let mut want = x.clone();
        emulation::forward(&p, &mut want).map_err(s)?;
        eq("forward after the refused captures", &gpu.download(&d).map_err(s)?, &want)
    })();
    t.record(
        "soundness: captures reaching a static's buffer, another plan, or replacing their state are refused \
         (CaptureOutsideState); the plan computes == CPU after",
        r,
    );
}

/// Hole 4: a graph of an out-of-place product captured on the plan's
/// scratch for one polynomial; the plan then multiplies two polynomials
/// (its scratch replaced by a larger one); the graph, replayed on new
/// inputs, still computes on the scratch it captured (kept alive by the
/// graph), and both results are the CPU's.
fn scratch_outlived<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, seed: u64, t: &mut Tally) {
    let n = 1usize << log_n;
    let r = (|| {
        let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
        let plan = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let (a, b) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
        let state = (plan.upload(&a).map_err(s)?, plan.upload(&b).map_err(s)?, plan.zeros(1).map_err(s)?);
        let (sa, sb, mut so) = state;
        plan.polymul_into(&*sa, &*sb, &mut *so).map_err(s)?; // scratch for 1 polynomial
        let mut g =
            plan.capture((sa, sb, so), |p, (a, b, out)| p.polymul_into(&**a, &**b, &mut **out)).map_err(s)?;
        let (a2, b2) = (rng.coeffs(2 * n, p.q()), rng.coeffs(2 * n, p.q()));
        let (da2, db2, mut do2) =
            (plan.upload(&a2).map_err(s)?, plan.upload(&b2).map_err(s)?, plan.zeros(2).map_err(s)?);
        plan.polymul_into(&*da2, &*db2, &mut *do2).map_err(s)?; // scratch for 2: the old one replaced
        let (x, y) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
        {
            let (ga, gb, _) = g.state_mut();
            gpu.copy_into(ga, &x).map_err(s)?;
            gpu.copy_into(gb, &y).map_err(s)?;
        }
        g.launch().map_err(s)?;
        eq(
            "graph replay after the plan's scratch was replaced",
            &gpu.download(&*g.state().2).map_err(s)?,
            &{ emulation::polymul(&p, &x, &y).map_err(s)? },
        )?;
        let mut want = Vec::with_capacity(2 * n);
        for i in 0..2 {
            want.extend(emulation::polymul(&p, &a2[i * n..(i + 1) * n], &b2[i * n..(i + 1) * n]).map_err(s)?);
        }
        eq("the plan's own product of 2", &gpu.download(&do2).map_err(s)?, &want)?;
        drop(g);
        // And the plan goes on with its new scratch once the graph is gone.
        plan.polymul_into(&*da2, &*db2, &mut *do2).map_err(s)?;
        eq("the product of 2 after the graph", &gpu.download(&do2).map_err(s)?, &want)
    })();
    t.record(
        &format!(
            "soundness u{} N=2^{log_n}: a graph replays on the scratch it captured after the plan replaced it \
             (== CPU)",
            W::BITS
        ),
        r,
    );
}

/// The same for the DGT plan, whose out-of-place product copies `b` into
/// a scratch of its own.
fn dgt_scratch_outlived(gpu: &Gpu, seed: u64, t: &mut Tally) {
    use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
    let r = (|| {
        let n = 1usize << 12;
        let q0 = dgt::dgt_primes(30, n, 1).map_err(s)?[0];
        let p = DgtParams::<u32>::new(n, q0).map_err(s)?;
        let q = p.p();
        let cfg = DgtConfig::default_for(p.log_m());
        let plan = DgtPlan::with_towers(gpu, std::slice::from_ref(&p), cfg).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let (a, b) = (rng.coeffs(n, q), rng.coeffs(n, q));
        let state = (plan.upload(&a).map_err(s)?, plan.upload(&b).map_err(s)?, plan.zeros(1).map_err(s)?);
        let g = plan.capture(state, |p, (a, b, out)| p.polymul_into(&**a, &**b, &mut **out)).map_err(s)?;
        let (a2, b2) = (rng.coeffs(2 * n, q), rng.coeffs(2 * n, q));
        let (da2, db2, mut do2) =
            (plan.upload(&a2).map_err(s)?, plan.upload(&b2).map_err(s)?, plan.zeros(2).map_err(s)?);
        plan.polymul_into(&*da2, &*db2, &mut *do2).map_err(s)?;
        g.launch().map_err(s)?;
        eq(
            "DGT graph replay after the scratch was replaced",
            &gpu.download(&*g.state().2).map_err(s)?,
            &emulation::dgt::polymul(&p, &cfg, &a, &b).map_err(s)?,
        )?;
        let mut want = Vec::with_capacity(2 * n);
        for i in 0..2 {
            let r = i * n..(i + 1) * n;
            want.extend(emulation::dgt::polymul(&p, &cfg, &a2[r.clone()], &b2[r]).map_err(s)?);
        }
        eq("the DGT plan's own product of 2", &gpu.download(&do2).map_err(s)?, &want)
    })();
    t.record(
        "soundness DGT N=2^12: a graph replays on the scratch it captured after the plan replaced it",
        r,
    );
}

/// A limb product captured on device limbs (a `DeviceLimbs` state, new
/// with the sealed `GraphState`) and replayed on new limbs == the CPU's
/// limb product.
fn limb_graph(gpu: &Gpu, seed: u64, t: &mut Tally) {
    use polymul::rns::{RnsBasis, RnsPlan};
    let r = (|| {
        let n = 1usize << 12;
        let basis = RnsBasis::<u64>::new(n, 62, 3).map_err(s)?;
        let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options()).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let state = (
            plan.zeros_limbs(1).map_err(s)?,
            plan.zeros_limbs(1).map_err(s)?,
            plan.zeros_limbs(1).map_err(s)?,
            plan.zeros(1).map_err(s)?,
            plan.zeros(1).map_err(s)?,
        );
        let mut g = plan
            .capture(state, |p, (a, b, out, ra, rb)| p.polymul_limbs_into(a, b, out, ra, rb))
            .map_err(s)?;
        for _ in 0..2 {
            let a = super::convert::limbs_below_q(&basis, 1, &mut rng)?;
            let b = super::convert::limbs_below_q(&basis, 1, &mut rng)?;
            {
                let (la, lb, ..) = g.state_mut();
                gpu.copy_into(la, &a).map_err(s)?;
                gpu.copy_into(lb, &b).map_err(s)?;
            }
            g.launch().map_err(s)?;
            eq(
                "limb product replay",
                &plan.download_limbs(&g.state().2).map_err(s)?,
                &emulation::rns_polymul_limbs(&basis, &a, &b).map_err(s)?,
            )?;
        }
        Ok(())
    })();
    t.record("soundness: a limb product captured on DeviceLimbs, replayed on new limbs == CPU", r);
}

/// Frees with work in flight: on each of four streams a plan queues a
/// product of a batch, and both operands are dropped right after the call
/// returns (the kernels still running); new buffers are then allocated
/// (they may get the freed addresses) and filled with other words on
/// every stream. Every product is the CPU's: the drops waited for the
/// work queued on their words.
fn drops_in_flight<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    let (n, batch, streams) = (1usize << 16, 8usize, 4usize);
    let r = (|| {
        let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
        let mut rng = SplitMix64::new(seed);
        let mut plans = Vec::new();
        for _ in 0..streams {
            let mut plan =
                NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()).map_err(s)?;
            plan.set_stream(Some(&gpu.create_stream().map_err(s)?));
            plans.push(plan);
        }
        let mut outs = Vec::new();
        let mut inputs = Vec::new();
        for plan in &plans {
            let (a, b) = (rng.coeffs(batch * n, p.q()), rng.coeffs(batch * n, p.q()));
            let (da, db) = (plan.upload(&a).map_err(s)?, plan.upload(&b).map_err(s)?);
            let mut out = plan.zeros(batch).map_err(s)?;
            plan.polymul_into(&*da, &*db, &mut *out).map_err(s)?;
            drop((da, db)); // queued work still reads them
            let junk = vec![p.q() - W::from_u64(1); batch * n];
            let mut reused = plan.upload(&junk).map_err(s)?;
            plan.forward(&mut reused).map_err(s)?;
            outs.push(out);
            inputs.push((a, b));
        }
        for ((plan, out), (a, b)) in plans.iter().zip(&outs).zip(&inputs) {
            plan.synchronize().map_err(s)?;
            let got = gpu.download(out).map_err(s)?;
            for i in (0..batch).step_by(3) {
                let r = i * n..(i + 1) * n;
                eq(
                    "a product whose operands were dropped in flight",
                    &got[r.clone()],
                    &emulation::polymul(&p, &a[r.clone()], &b[r]).map_err(s)?,
                )?;
            }
        }
        Ok(())
    })();
    t.record(
        &format!(
            "soundness u{} N=2^16 × {batch} on {streams} streams: operands dropped right after queueing, \
             new buffers filled meanwhile; products == CPU",
            W::BITS
        ),
        r,
    );
}

/// Hole 5, in a process of its own (the `outlive-gpu` subcommand: no other
/// `Gpu` may hold the context): its exit status and last line.
fn outlive_gpu(t: &mut Tally) {
    let r = (|| {
        let exe = std::env::current_exe().map_err(s)?;
        let out = std::process::Command::new(exe).arg("outlive-gpu").output().map_err(s)?;
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("{}: {}{}", out.status, text.trim(), String::from_utf8_lossy(&out.stderr).trim()))
        }
    })();
    t.record("soundness: a DeviceVec outlives every Gpu handle (outlive-gpu subprocess) == CPU", r);
}

/// The `outlive-gpu` subcommand (hole 5): a buffer uploaded, then its plan
/// and every `Gpu` handle dropped; a new `Gpu` and plan; the old buffer's
/// words read back and transformed by the new plan, then dropped; the new
/// plan's own buffer intact after that drop. Before the fix the context
/// was destroyed with the last handle: the kernel ran on a dead address
/// and the late drop freed whatever the new context had put there.
/// Returns the process's exit code.
pub fn outlive_gpu_main() -> i32 {
    let r = (|| -> Result<(), String> {
        let n = 1usize << 12;
        let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
        let mut rng = SplitMix64::new(53);
        let (x, y) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
        let stale = {
            let gpu = crate::env_options::gpu().map_err(s)?;
            let plan = NttPlan::new(&gpu, p.clone()).map_err(s)?;
            plan.upload(&x).map_err(s)?
        }; // the plan and the last `Gpu` handle dropped here
        let gpu = crate::env_options::gpu().map_err(s)?;
        let plan = NttPlan::new(&gpu, p.clone()).map_err(s)?;
        let mut fresh = plan.upload(&y).map_err(s)?;
        eq("the stale buffer's words", &gpu.download(&stale).map_err(s)?, &x)?;
        let mut stale = stale;
        plan.forward(&mut stale).map_err(s)?;
        let mut want = x.clone();
        emulation::forward(&p, &mut want).map_err(s)?;
        eq("forward of the stale buffer by a new plan", &gpu.download(&stale).map_err(s)?, &want)?;
        drop(stale);
        let more = plan.upload(&x).map_err(s)?; // may take the stale words' addresses
        eq("the new plan's buffer after the stale one's drop", &gpu.download(&fresh).map_err(s)?, &y)?;
        plan.forward(&mut fresh).map_err(s)?;
        let mut want = y.clone();
        emulation::forward(&p, &mut want).map_err(s)?;
        eq("forward of the new buffer", &gpu.download(&fresh).map_err(s)?, &want)?;
        eq("a buffer allocated after the drop", &gpu.download(&more).map_err(s)?, &x)
    })();
    match r {
        Ok(()) => {
            println!("PASS outlive-gpu");
            0
        }
        Err(e) => {
            println!("FAIL outlive-gpu: {e}");
            1
        }
    }
}

/// The suite.
pub fn soundness_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    outside_state(gpu, seed, t);
    scratch_outlived::<u64>(gpu, 62, 12, seed ^ 1, t);
    scratch_outlived::<u32>(gpu, 30, 16, seed ^ 2, t);
    dgt_scratch_outlived(gpu, seed ^ 3, t);
    limb_graph(gpu, seed ^ 6, t);
    drops_in_flight::<u64>(gpu, 62, seed ^ 4, t);
    drops_in_flight::<u32>(gpu, 30, seed ^ 5, t);
    outlive_gpu(t);
}
