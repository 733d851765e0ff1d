//! Running one case on the GPU: the plan (own or shared), the entry points
//! and buffers the case names, the checks against the CPU, and what an
//! out-of-memory failure under an injected fault must leave behind.
//!
//! **After an out-of-memory error** (gpu/split.rs and the host-slice
//! `Product`/`Transform` docs): a host call's read-only inputs are
//! unchanged, and its output (`polymul_into`'s `out`, an in-place call's
//! `a`, a transform's `data`) holds the results of a leading part of the
//! batch, the same polynomials in every tower, and is otherwise untouched.
//! A device `polymul_into` leaves its operands `a` and `b` unchanged (they
//! are shared borrows). The library promises nothing about a device
//! in-place operand or a device output after an error, so the soak checks
//! only that the call returned `Err` and that the **next** call on the same
//! plan and buffers (once the fault is over) succeeds with the right words,
//! overwriting what the failed call left.

use super::ThreadCtx;
use super::cases::{Api, Case, Kind, Op};
use super::reference::{Setup, compare, leading_part};
use num_bigint::BigUint;
use polymul::dgt::DgtPlan;
use polymul::expert::{SplitMix64, emulation};
use polymul::planner::{Modulus, Multiplier};
use polymul::prelude::*;
use polymul::rns::{DeviceLimbs, RnsPlan};
use polymul::{Coeff, DevicePlan, DeviceVec, DeviceView, ErrorKind, Gpu, GpuStream, NttParams, NttPlan};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Attempts of one call: the first and retries after out-of-memory
/// failures under a fault.
const ATTEMPTS: usize = 5;

/// Rounds of new inputs of a graph case.
const ROUNDS: usize = 3;

/// Why an attempt failed.
#[derive(Debug)]
pub(crate) enum Fail {
    /// The library's error (classified: expected or not).
    Lib(polymul::Error),
    /// The soak's own harness failed (always unexpected).
    Harness(String),
}

impl From<polymul::Error> for Fail {
    fn from(e: polymul::Error) -> Self {
        Fail::Lib(e)
    }
}

/// A plan of any kind the soak runs.
pub(crate) enum AnyPlan<W: Coeff> {
    /// One modulus.
    Ntt(NttPlan<W>),
    /// RNS towers (also the conversions).
    Rns(RnsPlan<W>),
    /// The DGT.
    Dgt(DgtPlan<W>),
    /// The planner's choice.
    Planner(Multiplier<W>),
}

fn harness(what: &str) -> Fail {
    Fail::Harness(what.to_string())
}

impl<W: Coeff> AnyPlan<W> {
    /// The case's plan on `gpu`.
    fn new(gpu: &Gpu, c: &Case, st: &Setup<W>) -> Result<Self, Fail> {
        Ok(match c.kind {
            Kind::Ntt => {
                let p = st.ntt.clone().ok_or_else(|| harness("no NTT parameters"))?;
                AnyPlan::Ntt(NttPlan::with_options(gpu, p, c.plan_options())?)
            }
            Kind::Rns | Kind::Convert => {
                let b = st.basis.as_ref().ok_or_else(|| harness("no RNS basis"))?;
                let o =
                    if c.kind == Kind::Rns { c.plan_options() } else { crate::env_options::plan_options() };
                AnyPlan::Rns(RnsPlan::with_options(gpu, b, o)?)
            }
            Kind::Dgt => {
                let t = st.dgt.as_ref().ok_or_else(|| harness("no DGT parameters"))?;
                let mut p = DgtPlan::with_pipeline(gpu, t, st.cfg, st.pipeline)?;
                p.set_graph_cache(c.graph_cache);
                AnyPlan::Dgt(p)
            }
            Kind::Planner => {
                let m = Multiplier::new(gpu, st.n, Modulus::Primes(st.moduli.clone()), st.batch)?;
                if m.primes() != st.moduli {
                    return Err(Fail::Harness(format!(
                        "the Multiplier took primes {:?}, not the given {:?}",
                        m.primes(),
                        st.moduli
                    )));
                }
                AnyPlan::Planner(m)
            }
        })
    }

    fn dev(&self) -> Result<&dyn DevicePlan<W>, Fail> {
        match self {
            AnyPlan::Ntt(p) => Ok(p),
            AnyPlan::Rns(p) => Ok(p),
            AnyPlan::Dgt(p) => Ok(p),
            AnyPlan::Planner(m) => m.plan().ok_or_else(|| harness("the Multiplier runs on the CPU backend")),
        }
    }

    fn set_stream(&mut self, s: Option<&GpuStream>) {
        match self {
            AnyPlan::Ntt(p) => p.set_stream(s),
            AnyPlan::Rns(p) => p.set_stream(s),
            AnyPlan::Dgt(p) => p.set_stream(s),
            AnyPlan::Planner(m) => m.set_stream(s),
        }
    }

    fn host_vec(&self, a: &[W], b: &[W]) -> polymul::Result<Vec<W>> {
        match self {
            AnyPlan::Ntt(p) => p.polymul(a, b),
            AnyPlan::Rns(p) => p.polymul(a, b),
            AnyPlan::Dgt(p) => p.polymul(a, b),
            AnyPlan::Planner(m) => m.polymul(a, b),
        }
    }

    fn host_into(&self, a: &[W], b: &[W], out: &mut [W]) -> polymul::Result<()> {
        match self {
            AnyPlan::Ntt(p) => Product::<W, [W]>::polymul_into(p, a, b, out),
            AnyPlan::Rns(p) => Product::<W, [W]>::polymul_into(p, a, b, out),
            AnyPlan::Dgt(p) => Product::<W, [W]>::polymul_into(p, a, b, out),
            AnyPlan::Planner(m) => Product::<W, [W]>::polymul_into(m, a, b, out),
        }
    }

    fn host_in_place(&self, a: &mut [W], b: &mut [W]) -> polymul::Result<()> {
        match self {
            AnyPlan::Ntt(p) => Product::<W, [W]>::polymul_in_place(p, a, b),
            AnyPlan::Rns(p) => Product::<W, [W]>::polymul_in_place(p, a, b),
            AnyPlan::Dgt(p) => Product::<W, [W]>::polymul_in_place(p, a, b),
            AnyPlan::Planner(m) => Product::<W, [W]>::polymul_in_place(m, a, b),
        }
    }

    /// A host-slice transform (NTT plans only).
    fn host_transform(&self, inverse: bool, data: &mut [W]) -> Result<(), Fail> {
        let r = match (self, inverse) {
            (AnyPlan::Ntt(p), false) => Transform::<W, [W]>::forward(p, data),
            (AnyPlan::Ntt(p), true) => Transform::<W, [W]>::inverse(p, data),
            (AnyPlan::Rns(p), false) => Transform::<W, [W]>::forward(p, data),
            (AnyPlan::Rns(p), true) => Transform::<W, [W]>::inverse(p, data),
            _ => return Err(harness("a host transform of a plan without one")),
        };
        Ok(r?)
    }
}

/// The plan cache the threads share, per word.
pub(crate) type PlanCache<W> = std::sync::Mutex<std::collections::HashMap<String, Arc<AnyPlan<W>>>>;

/// Words with a plan cache in the run's shared state.
pub(crate) trait SoakWord: Coeff {
    /// This word's cache.
    fn cache(shared: &super::Shared) -> &PlanCache<Self>;
}

impl SoakWord for u32 {
    fn cache(shared: &super::Shared) -> &PlanCache<u32> {
        &shared.cache32
    }
}

impl SoakWord for u64 {
    fn cache(shared: &super::Shared) -> &PlanCache<u64> {
        &shared.cache64
    }
}

/// Plans the shared cache keeps (the oldest-keyed goes when full).
const CACHE_PLANS: usize = 24;

/// The case's plan: from the shared cache, or made for this call (bound to
/// the thread's stream where the case says). Runs inside a gate section.
fn ensure_plan<W: SoakWord>(
    ctx: &ThreadCtx<'_>,
    c: &Case,
    st: &Setup<W>,
    slot: &mut Option<Arc<AnyPlan<W>>>,
) -> Result<Arc<AnyPlan<W>>, Fail> {
    if let Some(p) = slot {
        return Ok(p.clone());
    }
    let gpu = if c.api == Api::Cached { ctx.private_gpu()? } else { ctx.shared.gpu.clone() };
    let plan = if c.shared_plan {
        let key = c.plan_key();
        let found = W::cache(ctx.shared).lock().unwrap_or_else(|e| e.into_inner()).get(&key).cloned();
        match found {
            Some(p) => p,
            None => {
                let p = Arc::new(AnyPlan::new(&gpu, c, st)?);
                let mut cache = W::cache(ctx.shared).lock().unwrap_or_else(|e| e.into_inner());
                if cache.len() >= CACHE_PLANS
                    && let Some(k) = cache.keys().min().cloned()
                {
                    cache.remove(&k);
                }
                cache.entry(key).or_insert(p).clone()
            }
        }
    } else {
        let mut p = AnyPlan::new(&gpu, c, st)?;
        if c.own_stream {
            p.set_stream(ctx.stream.as_ref());
        }
        Arc::new(p)
    };
    *slot = Some(plan.clone());
    Ok(plan)
}

/// A device copy of `words`: through the plan (validated, with its layout)
/// or, for foreign memory, a raw allocation written by `Gpu::copy_into`.
fn upload<W: Coeff>(dp: &dyn DevicePlan<W>, words: &[W], foreign: bool) -> Result<DeviceVec<W>, Fail> {
    if !foreign {
        return Ok(dp.upload(words)?);
    }
    let mut v = dp.gpu().zeros::<W>(words.len())?;
    dp.gpu().copy_into(&mut v, words)?;
    Ok(v)
}

/// `v`'s words as the plan gets them: the buffer's own view, or (foreign)
/// a view made from its raw device address, as memory of another library
/// would be.
fn view<'a, W: Coeff>(gpu: &Gpu, v: &'a DeviceVec<W>, foreign: bool) -> Result<&'a DeviceView<W>, Fail> {
    if !foreign {
        return Ok(v.view());
    }
    // SAFETY: `from_raw_parts`' contract: the address and length are those
    // of `v`, a live allocation of `v.len()` words that outlives the view
    // (the view borrows `v` for `'a`), and nothing writes `v` while `'a`
    // lasts (it is borrowed shared); work queued on it afterwards finishes
    // before `v` is freed (`cuMemFree` waits for queued work, as the crate
    // relies on).
    Ok(unsafe { DeviceView::from_raw_parts(gpu, v.device_address(), v.len()) }?)
}

/// As [`view`], writable.
fn view_mut<'a, W: Coeff>(
    gpu: &Gpu,
    v: &'a mut DeviceVec<W>,
    foreign: bool,
) -> Result<&'a mut DeviceView<W>, Fail> {
    if !foreign {
        return Ok(v.view_mut());
    }
    let (addr, len) = (v.device_address(), v.len());
    // SAFETY: `from_raw_parts_mut`'s contract: `addr .. addr + len` words is
    // `v`'s live allocation, which outlives the view (`v` is borrowed
    // mutably for `'a`, so nothing else reads or writes it meanwhile but
    // through the view); later work on it finishes before `v` is freed.
    Ok(unsafe { DeviceView::from_raw_parts_mut(gpu, addr, len) }?)
}

/// What a call returned.
enum Got<W> {
    /// Products.
    Product(Vec<W>),
    /// The forward transform and the round trip.
    RoundTrip(Vec<W>, Vec<W>),
    /// One product per round (graphs).
    Rounds(Vec<Vec<W>>),
}

/// The buffers a call keeps across attempts (so a retry runs on the same
/// plan and buffers), dropped inside a gate section at the end.
struct State<W: Coeff> {
    plan: Option<Arc<AnyPlan<W>>>,
    /// Host output: `polymul_into`'s `out`, an in-place call's `a`, a
    /// transform's data.
    out: Vec<W>,
    /// An in-place call's `b`.
    b: Vec<W>,
    /// Device `a`, `b`, `out`.
    dev: [Option<DeviceVec<W>>; 3],
    /// A round trip's forward result, once it ran (the inverse's input).
    fwd: Option<Vec<W>>,
    /// A conversion's device limbs.
    limbs: Option<DeviceLimbs>,
}

impl<W: Coeff> State<W> {
    fn new() -> Self {
        Self { plan: None, out: Vec::new(), b: Vec::new(), dev: [None, None, None], fwd: None, limbs: None }
    }
}

/// Runs `attempt` on `state` inside a gate section until it succeeds, at
/// most [`ATTEMPTS`] times: an out-of-memory failure while a fault was
/// active is expected (then `after_error` checks what it left, and the next
/// attempt waits for the fault to end); anything else is reported.
fn drive<W: Coeff, T>(
    ctx: &ThreadCtx<'_>,
    c: &Case,
    exclusive: bool,
    state: &mut State<W>,
    mut attempt: impl FnMut(&mut State<W>) -> Result<T, Fail>,
    mut after_error: impl FnMut(&mut State<W>) -> Result<u64, String>,
) -> Option<T> {
    let sh = ctx.shared;
    for k in 0..ATTEMPTS {
        let before = sh.faults.snapshot();
        let r = ctx.section(exclusive, || attempt(state));
        match r {
            Ok(t) => {
                if k > 0 {
                    sh.counters.recovered.fetch_add(1, Ordering::Relaxed);
                }
                return Some(t);
            }
            Err(Fail::Harness(e)) => {
                sh.counters.unexpected("soak harness".into());
                ctx.report("UNEXPECTED (soak harness)", c, &e);
                return None;
            }
            Err(Fail::Lib(e)) => {
                let under_fault = sh.faults.overlapped(before);
                if e.kind() == ErrorKind::OutOfMemory && under_fault {
                    sh.counters.oom_expected.fetch_add(1, Ordering::Relaxed);
                    match ctx.section(exclusive, || after_error(state)) {
                        Ok(n) => {
                            sh.counters.post_error_checks.fetch_add(n, Ordering::Relaxed);
                        }
                        Err(m) => {
                            sh.counters.mismatches.fetch_add(1, Ordering::Relaxed);
                            ctx.report(
                                "MISMATCH after an out-of-memory error",
                                c,
                                &format!("{m} (error: {e})"),
                            );
                        }
                    }
                    ctx.phase("waiting for the fault to end");
                    if !sh.faults.wait_clear(Duration::from_secs(60)) {
                        ctx.report("NOTE", c, "a fault lasted over 60 s");
                    }
                    continue;
                }
                let what = if e.kind() == ErrorKind::OutOfMemory {
                    "OutOfMemory outside a fault".to_string()
                } else {
                    format!("{} ({})", e.kind(), variant_name(&e))
                };
                let free = ctx.free_memory();
                sh.counters.unexpected(what.clone());
                ctx.report(
                    &format!("UNEXPECTED {what}"),
                    c,
                    &format!(
                        "{e}{}; device free memory now {free}",
                        if under_fault { " (during a fault)" } else { "" }
                    ),
                );
                return None;
            }
        }
    }
    sh.counters.unverified.fetch_add(1, Ordering::Relaxed);
    ctx.report("NOTE", c, &format!("{ATTEMPTS} attempts all met a fault: the recovery is not verified"));
    None
}

/// The error's variant, for the summary (`CudaCode 2` and the like).
fn variant_name(e: &polymul::Error) -> String {
    let d = format!("{e:?}");
    let name: String = d.chars().take_while(|ch| ch.is_alphanumeric()).collect();
    match e {
        polymul::Error::CudaCode { code, .. } => format!("{name} {code}"),
        polymul::Error::Cuda { source, .. } => format!("{name} {}", source.code()),
        _ => name,
    }
}

/// Runs one case (not a conversion): the call, then its checks.
pub(crate) fn run_case<W: SoakWord>(ctx: &ThreadCtx<'_>, c: &Case) {
    let sh = ctx.shared;
    let st = match Setup::<W>::new(c) {
        Ok(s) => s,
        Err(e) => {
            sh.counters.unexpected("case parameters".into());
            return ctx.report("UNEXPECTED (case parameters)", c, &e);
        }
    };
    if c.kind == Kind::Convert {
        return convert_case(ctx, c, &st);
    }
    ctx.phase("making the inputs");
    let a = st.inputs(c.inputs, c.input_seed);
    let b = st.inputs(c.inputs, c.input_seed ^ 0xB);
    let rounds: Vec<(Vec<W>, Vec<W>)> = if matches!(c.api, Api::Captured | Api::Cached) {
        (1..=ROUNDS as u64)
            .map(|r| (st.inputs(2, c.input_seed ^ (r << 32)), st.inputs(2, c.input_seed ^ (r << 32) ^ 0xB)))
            .collect()
    } else {
        Vec::new()
    };
    let exclusive = matches!(c.api, Api::Captured | Api::Cached);
    let mut state = State::<W>::new();
    // The full reference of a host output's leading-part check, made once.
    let mut full: Option<Vec<W>> = None;
    let got = drive(
        ctx,
        c,
        exclusive,
        &mut state,
        |s| attempt(ctx, c, &st, &a, &b, &rounds, s),
        |s| after_error(c, &st, &a, &b, s, &mut full),
    );
    if let Some(got) = got {
        ctx.phase("checking against the CPU reference");
        match check(c, &st, &a, &b, &rounds, &got) {
            Ok(words) => {
                sh.counters.coeffs.fetch_add(words, Ordering::Relaxed);
            }
            Err(m) => {
                sh.counters.mismatches.fetch_add(1, Ordering::Relaxed);
                ctx.report("MISMATCH", c, &m);
            }
        }
    }
    // Buffers and plan go inside a gate section; a shared plan may leave
    // the cache (dropped once no thread holds it).
    ctx.section(false, move || {
        drop(state);
        if c.shared_plan && c.drop_shared {
            W::cache(sh).lock().unwrap_or_else(|e| e.into_inner()).remove(&c.plan_key());
        }
    });
}

/// One attempt of a case's call.
#[allow(clippy::too_many_arguments)]
fn attempt<W: SoakWord>(
    ctx: &ThreadCtx<'_>,
    c: &Case,
    st: &Setup<W>,
    a: &[W],
    b: &[W],
    rounds: &[(Vec<W>, Vec<W>)],
    s: &mut State<W>,
) -> Result<Got<W>, Fail> {
    let plan = ensure_plan(ctx, c, st, &mut s.plan)?;
    let foreign = c.api.foreign();
    if c.op == Op::RoundTrip {
        return round_trip(&plan, c, a, s);
    }
    match c.api {
        Api::HostVec => Ok(Got::Product(plan.host_vec(a, b)?)),
        Api::HostInto => {
            if s.out.len() != a.len() {
                // What the output holds before the first call: `b`'s words
                // (any reduced words: a failed call must leave them, or
                // results, and the next call must overwrite them).
                s.out = b.to_vec();
            }
            plan.host_into(a, b, &mut s.out)?;
            Ok(Got::Product(s.out.clone()))
        }
        Api::HostInPlace => {
            s.out = a.to_vec();
            s.b = b.to_vec();
            plan.host_in_place(&mut s.out, &mut s.b)?;
            Ok(Got::Product(s.out.clone()))
        }
        Api::DeviceInto | Api::ForeignInto => {
            let dp = plan.dev()?;
            let gpu = dp.gpu().clone();
            for (i, w) in [a, b, b].into_iter().enumerate() {
                if s.dev[i].is_none() {
                    s.dev[i] = Some(upload(dp, w, foreign)?);
                }
            }
            let [Some(da), Some(db), Some(dout)] = &mut s.dev else { return Err(harness("device buffers")) };
            let (va, vb) = (view(&gpu, da, foreign)?, view(&gpu, db, foreign)?);
            let vo = view_mut(&gpu, dout, foreign)?;
            Product::<W, DeviceView<W>>::polymul_into(dp, va, vb, vo)?;
            Ok(Got::Product(dp.download(vo)?))
        }
        Api::DeviceInPlace | Api::ForeignInPlace => {
            let dp = plan.dev()?;
            let gpu = dp.gpu().clone();
            for (i, w) in [a, b].into_iter().enumerate() {
                match &mut s.dev[i] {
                    None => s.dev[i] = Some(upload(dp, w, foreign)?),
                    // A retry: the operands again (the failed call may have
                    // written them: in place, `b` is scratch).
                    Some(d) => gpu.copy_into(d, w)?,
                }
            }
            let [Some(da), Some(db), _] = &mut s.dev else { return Err(harness("device buffers")) };
            let va = view_mut(&gpu, da, foreign)?;
            let vb = view_mut(&gpu, db, foreign)?;
            Product::<W, DeviceView<W>>::polymul_in_place(dp, va, vb)?;
            Ok(Got::Product(dp.download(va)?))
        }
        Api::Captured => captured(&plan, c.batch, rounds),
        Api::Cached => {
            // The same buffers every round: the plan's graph cache captures
            // on the second call and replays on the third.
            let dp = plan.dev()?;
            let gpu = dp.gpu().clone();
            for i in 0..2 {
                if s.dev[i].is_none() {
                    s.dev[i] = Some(dp.zeros(c.batch)?);
                }
            }
            let [Some(da), Some(db), _] = &mut s.dev else { return Err(harness("device buffers")) };
            let mut out = Vec::with_capacity(rounds.len());
            for (x, y) in rounds {
                gpu.copy_into(da, x)?;
                gpu.copy_into(db, y)?;
                Product::<W, DeviceView<W>>::polymul_in_place(dp, da, db)?;
                out.push(dp.download(da)?);
            }
            Ok(Got::Rounds(out))
        }
    }
}

/// Forward then inverse transform.
fn round_trip<W: Coeff>(plan: &AnyPlan<W>, c: &Case, a: &[W], s: &mut State<W>) -> Result<Got<W>, Fail> {
    let foreign = c.api.foreign();
    s.fwd = None;
    if !c.api.device() {
        s.out = a.to_vec();
        plan.host_transform(false, &mut s.out)?;
        let fwd = s.out.clone();
        s.fwd = Some(fwd.clone());
        plan.host_transform(true, &mut s.out)?;
        return Ok(Got::RoundTrip(fwd, s.out.clone()));
    }
    let dp = plan.dev()?;
    let gpu = dp.gpu().clone();
    match &mut s.dev[0] {
        None => s.dev[0] = Some(upload(dp, a, foreign)?),
        Some(d) => gpu.copy_into(d, a)?,
    }
    let Some(d) = s.dev[0].as_mut() else { return Err(harness("device buffer")) };
    let v = view_mut(&gpu, d, foreign)?;
    match plan {
        AnyPlan::Ntt(p) => {
            Transform::<W, DeviceView<W>>::forward(p, v)?;
            let fwd = p.download(v)?;
            Transform::<W, DeviceView<W>>::inverse(p, v)?;
            Ok(Got::RoundTrip(fwd, p.download(v)?))
        }
        AnyPlan::Rns(p) => {
            Transform::<W, DeviceView<W>>::forward(p, v)?;
            let fwd = p.download(v)?;
            Transform::<W, DeviceView<W>>::inverse(p, v)?;
            Ok(Got::RoundTrip(fwd, p.download(v)?))
        }
        AnyPlan::Dgt(p) => {
            let f = p.forward(v)?;
            let fwd = p.download(f.words())?;
            let back = p.inverse(f)?;
            Ok(Got::RoundTrip(fwd, p.download(back)?))
        }
        AnyPlan::Planner(_) => Err(harness("a round trip of the planner's plan")),
    }
}

/// A graph of `a ← a ⊗ b` captured on `batch` polynomials, replayed on
/// each round's inputs written into its buffers.
fn captured<W: Coeff>(plan: &AnyPlan<W>, batch: usize, rounds: &[(Vec<W>, Vec<W>)]) -> Result<Got<W>, Fail> {
    fn replay<W: Coeff, P: DevicePlan<W>>(
        p: &P,
        g: &mut polymul::Graph<'_, (DeviceVec<W>, DeviceVec<W>)>,
        rounds: &[(Vec<W>, Vec<W>)],
    ) -> Result<Got<W>, Fail> {
        let gpu = p.gpu();
        let mut out = Vec::with_capacity(rounds.len());
        for (x, y) in rounds {
            gpu.copy_into(g.state_mut().0, x)?;
            gpu.copy_into(g.state_mut().1, y)?;
            g.launch()?;
            g.synchronize()?;
            out.push(gpu.download(&g.state().0)?);
        }
        Ok(Got::Rounds(out))
    }
    match plan {
        AnyPlan::Ntt(p) => {
            let mut g =
                p.capture((p.zeros(batch)?, p.zeros(batch)?), |p, (a, b)| p.polymul_in_place(a, b))?;
            replay(p, &mut g, rounds)
        }
        AnyPlan::Rns(p) => {
            let mut g =
                p.capture((p.zeros(batch)?, p.zeros(batch)?), |p, (a, b)| p.polymul_in_place(a, b))?;
            replay(p, &mut g, rounds)
        }
        AnyPlan::Dgt(p) => {
            let mut g =
                p.capture((p.zeros(batch)?, p.zeros(batch)?), |p, (a, b)| p.polymul_in_place(a, b))?;
            replay(p, &mut g, rounds)
        }
        AnyPlan::Planner(_) => Err(harness("a capture of the planner's plan")),
    }
}

/// What a failed attempt must have left (module docs); the number of
/// checks that passed.
fn after_error<W: Coeff>(
    c: &Case,
    st: &Setup<W>,
    a: &[W],
    b: &[W],
    s: &mut State<W>,
    full: &mut Option<Vec<W>>,
) -> Result<u64, String> {
    // The full reference (every polynomial), where the reference covers
    // every word (a large DGT case checks a sample only: then `None`, and
    // the leading-part check is skipped).
    let mut full_ref = |what: &str| -> Result<Option<Vec<W>>, String> {
        if let Some(f) = full {
            return Ok(Some(f.clone()));
        }
        let parts = match what {
            "product" => st.product(a, b, 0)?,
            _ => st.forward(a, 0)?,
        };
        let mut v = a.to_vec();
        let mut covered = 0;
        for (r, w) in parts {
            covered += r.len();
            v[r].copy_from_slice(&w);
        }
        if covered != a.len() {
            return Ok(None);
        }
        *full = Some(v.clone());
        Ok(Some(v))
    };
    // A host call that failed before its data was copied for it (the
    // plan's creation, say) left no output: nothing to check.
    if !c.api.device() && s.out.is_empty() {
        return Ok(0);
    }
    match (c.op, c.api) {
        (Op::RoundTrip, Api::HostInPlace) => {
            // The forward failed: its leading part transformed; or the
            // inverse failed: its leading part back to `a`, the rest the
            // forward's words.
            match &s.fwd {
                None => match full_ref("forward")? {
                    Some(want) => leading_part(st, &s.out, &want, a)?,
                    None => return Ok(0),
                },
                Some(f) => leading_part(st, &s.out, a, f)?,
            }
            Ok(1)
        }
        (Op::RoundTrip, _) => Ok(0),
        (_, Api::HostVec) => Ok(0),
        (_, Api::HostInto | Api::HostInPlace) => {
            let Some(want) = full_ref("product")? else { return Ok(0) };
            // What the output held before the call: `b`'s words for
            // `polymul_into` (run_case), `a`'s in place.
            let before = if c.api == Api::HostInto { b } else { a };
            leading_part(st, &s.out, &want, before)?;
            Ok(1)
        }
        (_, Api::DeviceInto | Api::ForeignInto) => {
            // The operands of an out-of-place product are intact.
            let mut n = 0;
            let gpu = match s.plan.as_ref().map(|p| p.dev()) {
                Some(Ok(dp)) => dp.gpu().clone(),
                _ => return Ok(0),
            };
            for (i, (w, name)) in [(a, "a"), (b, "b")].into_iter().enumerate() {
                if let Some(d) = &s.dev[i] {
                    let now =
                        gpu.download(d).map_err(|e| format!("downloading {name} after the error: {e}"))?;
                    crate::check::eq(&format!("device {name} after the failed polymul_into"), &now, w)?;
                    n += 1;
                }
            }
            Ok(n)
        }
        _ => Ok(0),
    }
}

/// A successful call's words against the references; the words compared.
fn check<W: Coeff>(
    c: &Case,
    st: &Setup<W>,
    a: &[W],
    b: &[W],
    rounds: &[(Vec<W>, Vec<W>)],
    got: &Got<W>,
) -> Result<u64, String> {
    let sample = c.input_seed >> 7;
    let mut words = 0;
    match got {
        Got::Product(g) => {
            words += compare("product vs the CPU", g, &st.product(a, b, sample)?)?;
            words += compare("product vs the schoolbook product", g, &st.schoolbook(a, b))?;
        }
        Got::RoundTrip(f, back) => {
            words += compare("forward vs the CPU", f, &st.forward(a, sample)?)?;
            crate::check::eq("inverse(forward(a)) vs a", back, a)?;
            words += back.len() as u64;
        }
        Got::Rounds(rs) => {
            if rs.len() != rounds.len() {
                return Err(format!("{} rounds ran, {} expected", rs.len(), rounds.len()));
            }
            for (i, (g, (x, y))) in rs.iter().zip(rounds).enumerate() {
                words += compare(&format!("round {i} vs the CPU"), g, &st.product(x, y, sample)?)?;
            }
        }
    }
    Ok(words)
}

/// A conversion case: device decomposition and reconstruction
/// (`DeviceInto`), or host limb and big-integer products (`HostVec`),
/// against the CPU bodies and, for small sizes, num-bigint.
fn convert_case<W: SoakWord>(ctx: &ThreadCtx<'_>, c: &Case, st: &Setup<W>) {
    let sh = ctx.shared;
    let Some(basis) = st.basis.as_ref() else {
        sh.counters.unexpected("soak harness".into());
        return ctx.report("UNEXPECTED (soak harness)", c, "no basis");
    };
    let mut rng = SplitMix64::new(c.input_seed);
    let limbs = |rng: &mut SplitMix64| crate::check::limbs_below_q(basis, c.batch, rng);
    let (la, lb) = match (limbs(&mut rng), limbs(&mut rng)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            sh.counters.unexpected("case parameters".into());
            return ctx.report("UNEXPECTED (case parameters)", c, &e);
        }
    };
    let res = st.inputs(2, c.input_seed ^ 0xC);
    let small = st.n * c.batch <= 1 << 12;
    let big = st.n <= 64 && c.batch == 1;
    let mut state = State::<W>::new();
    type Conv = (Vec<u64>, Vec<u64>, Option<Vec<BigUint>>);
    let host = c.api == Api::HostVec;
    let to_big = |l: &[u64]| basis.from_limbs(l);
    let got: Option<Conv> = drive(
        ctx,
        c,
        false,
        &mut state,
        |s| -> Result<Conv, Fail> {
            let plan = ensure_plan(ctx, c, st, &mut s.plan)?;
            let AnyPlan::Rns(p) = &*plan else { return Err(harness("a conversion without an RNS plan")) };
            if host {
                let prod = p.polymul_limbs(&la, &lb)?;
                let bigp = if big { Some(p.polymul_big(&to_big(&la)?, &to_big(&lb)?)?) } else { None };
                return Ok((prod, Vec::new(), bigp));
            }
            if s.limbs.is_none() {
                s.limbs = Some(p.upload_limbs(&la)?);
            }
            let Some(d) = s.limbs.as_ref() else { return Err(harness("device limbs")) };
            let mut dr = p.zeros(c.batch)?;
            p.decompose(d, &mut dr)?;
            let residues = p.download(&dr)?;
            let dres = p.upload(&res)?;
            let mut out = p.zeros_limbs(c.batch)?;
            p.reconstruct(&dres, &mut out)?;
            let back = p.download_limbs(&out)?;
            // `residues` as u64 words for the one tuple type.
            Ok((residues.iter().map(|w| w.as_u64()).collect(), back, None))
        },
        |s| {
            // The device limbs, input of the decomposition, are intact.
            let (Some(d), Some(plan)) = (s.limbs.as_ref(), s.plan.as_ref()) else { return Ok(0) };
            let AnyPlan::Rns(p) = &**plan else { return Ok(0) };
            let now =
                p.download_limbs(d).map_err(|e| format!("downloading the limbs after the error: {e}"))?;
            crate::check::eq("device limbs after the failed call", &now, &la)?;
            Ok(1)
        },
    );
    let checked = (|| -> Result<u64, String> {
        let Some((x, y, bigp)) = got else { return Ok(0) };
        let e = |e: polymul::Error| e.to_string();
        let mut words = 0;
        if host {
            let want = emulation::rns_polymul_limbs(basis, &la, &lb).map_err(e)?;
            crate::check::eq("polymul_limbs vs the CPU", &x, &want)?;
            words += x.len() as u64;
            if let Some(g) = bigp {
                let q = basis.modulus();
                let want =
                    polymul::cpu::negacyclic_naive_big(&to_big(&la).map_err(e)?, &to_big(&lb).map_err(e)?, q)
                        .map_err(e)?;
                if g != want {
                    return Err("polymul_big differs from the big-integer schoolbook product mod Q".into());
                }
                words += g.len() as u64;
            }
            return Ok(words);
        }
        let want: Vec<u64> = basis.decompose(&la).map_err(e)?.iter().map(|w| w.as_u64()).collect();
        crate::check::eq("decompose vs the CPU", &x, &want)?;
        crate::check::eq("reconstruct vs the CPU", &y, &basis.reconstruct(&res).map_err(e)?)?;
        words += (x.len() + y.len()) as u64;
        if small {
            let bigv = to_big(&la).map_err(e)?;
            let nb: Vec<u64> = basis.to_residues(&bigv).map_err(e)?.iter().map(|w| w.as_u64()).collect();
            crate::check::eq("decompose vs num-bigint", &x, &nb)?;
            if to_big(&y).map_err(e)? != basis.from_residues(&res).map_err(e)? {
                return Err("reconstruct differs from num-bigint's CRT".into());
            }
        }
        Ok(words)
    })();
    match checked {
        Ok(w) => {
            sh.counters.coeffs.fetch_add(w, Ordering::Relaxed);
        }
        Err(m) => {
            sh.counters.mismatches.fetch_add(1, Ordering::Relaxed);
            ctx.report("MISMATCH", c, &m);
        }
    }
    ctx.section(false, move || drop(state));
}

/// A batch above one launch's limit: u32 N = 2^20 (at most 4095
/// polynomials per launch), 4096 polynomials (16 GiB per operand) as
/// device views, `polymul_in_place` in launches of 4095 and 1; checked as
/// the split suite checks it (a sample and every piece boundary against
/// the CPU backend, every polynomial by evaluation at a root).
pub(crate) fn big_case(ctx: &ThreadCtx<'_>, c: &Case) {
    let sh = ctx.shared;
    let n = 1usize << 20;
    let p = match NttParams::<u32>::with_prime_bits(n, 30) {
        Ok(p) => p,
        Err(e) => {
            sh.counters.unexpected("case parameters".into());
            return ctx.report("UNEXPECTED (case parameters)", c, &e.to_string());
        }
    };
    let max = p.max_batch();
    let batch = max + 1;
    let q = p.q();
    let a = crate::check::split_coeffs(batch * n, q, c.input_seed);
    let b = crate::check::split_coeffs(batch * n, q, c.input_seed ^ 0xB);
    let mut state = State::<u32>::new();
    let big_case = Case { batch, towers: 1, word: super::cases::Word::U32, log_n: 20, bits: 30, ..c.clone() };
    let got = drive(
        ctx,
        &big_case,
        false,
        &mut state,
        |s| -> Result<Vec<u32>, Fail> {
            if s.plan.is_none() {
                s.plan = Some(Arc::new(AnyPlan::Ntt(NttPlan::with_options(
                    &sh.gpu,
                    p.clone(),
                    crate::env_options::plan_options(),
                )?)));
            }
            let Some(AnyPlan::Ntt(plan)) = s.plan.as_deref() else { return Err(harness("no plan")) };
            // Upload fresh every attempt (the failed one may have written
            // them), and free them before the download.
            let (mut da, mut db) = (plan.upload(&a)?, plan.upload(&b)?);
            plan.polymul_in_place(&mut da, &mut db)?;
            drop(db);
            let c = plan.download(&da)?;
            drop(da);
            Ok(c)
        },
        |_| Ok(0),
    );
    sh.counters.big.fetch_add(1, Ordering::Relaxed);
    if let Some(got) = got {
        let r = (|| -> Result<u64, String> {
            let cpu = polymul::CpuPlan::new(p.clone()).map_err(|e| e.to_string())?;
            let mut rng = SplitMix64::new(c.input_seed ^ 0x5A);
            let picks = crate::check::split_sample(batch, max, &mut rng);
            let mut words = 0;
            for &i in &picks {
                let r = i * n..(i + 1) * n;
                let want = cpu.polymul(&a[r.clone()], &b[r.clone()]).map_err(|e| e.to_string())?;
                crate::check::eq(&format!("polynomial {i}"), &got[r], &want)?;
                words += n as u64;
            }
            let e = 2 * rng.below(n as u64) + 1;
            crate::check::evaluation_check(&a, &b, &got, n, p.psi() as u64, q as u64, e)?;
            Ok(words)
        })();
        match r {
            Ok(w) => {
                sh.counters.coeffs.fetch_add(w, Ordering::Relaxed);
                println!("soak: big case (u32 N=2^20, batch {batch} > {max}) == CPU ({})", c.replay());
            }
            Err(m) => {
                sh.counters.mismatches.fetch_add(1, Ordering::Relaxed);
                ctx.report("MISMATCH", &big_case, &m);
            }
        }
    }
    ctx.section(false, move || drop(state));
}
