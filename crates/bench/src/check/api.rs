//! The plan traits (issues 17 and 31), checked through `dyn DevicePlan` on
//! every plan kind: the out-of-place product equals the schoolbook product
//! of every pair and tower (`cpu::negacyclic_naive`, independent of every
//! transform) and leaves its operands intact; the in-place product gives
//! the same words; the transform round trip, each kind's own (the NTT's
//! `Transform`, the DGT's typed domain); buffers know their layout, device
//! words are taken by their word count (one of another plan's shape with
//! the same count passes, one of another count is refused); a plan moves
//! to another thread and multiplies there.

use super::{Tally, eq, s};
use polymul::dgt::{DgtConfig, DgtParams, DgtPlan, dgt_primes};
use polymul::expert::{DgtPipeline, PlanOptions, SplitMix64};
use polymul::planner::{Modulus, Multiplier};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, DevicePlan, DeviceView, Error, Gpu, Layout, NttParams, NttPlan, cpu};

/// Polynomials per tower in each product.
const BATCH: usize = 2;

/// Random tower-major words for `plan`: `BATCH` polynomials per tower, each
/// tower's below its modulus.
fn words<W: Coeff>(plan: &dyn DevicePlan<W>, rng: &mut SplitMix64) -> Vec<W> {
    let len = BATCH * plan.n();
    plan.moduli().iter().flat_map(|&q| rng.coeffs(len, W::from_u64(q))).collect()
}

/// The schoolbook product of every pair of every tower.
fn naive<W: Coeff>(plan: &dyn DevicePlan<W>, a: &[W], b: &[W]) -> Result<Vec<W>, String> {
    let n = plan.n();
    let mut out = Vec::with_capacity(a.len());
    for (i, q) in plan.moduli().into_iter().enumerate() {
        for p in 0..BATCH {
            let at = (i * BATCH + p) * n..(i * BATCH + p + 1) * n;
            let x: Vec<u64> = a[at.clone()].iter().map(|v| v.as_u64()).collect();
            let y: Vec<u64> = b[at].iter().map(|v| v.as_u64()).collect();
            out.extend(cpu::negacyclic_naive(&x, &y, q).map_err(s)?.into_iter().map(W::from_u64));
        }
    }
    Ok(out)
}

/// A plan of every kind, by its type: checked through `dyn DevicePlan`
/// ([`Kind::plan`]), its transform through the kind's own
/// ([`Kind::round_trip`]: `DevicePlan` has none since the DGT's domain got
/// its own type).
enum Kind<W: Coeff> {
    Ntt(NttPlan<W>),
    Rns(RnsPlan<W>),
    Dgt(DgtPlan<W>),
    /// The planner's choice (a `Multiplier` on a GPU delegates to it).
    Chosen(Multiplier<W>),
}

impl<W: Coeff> Kind<W> {
    /// The plan as the one device trait; `None` for a `Multiplier` on the
    /// CPU backend.
    fn plan(&self) -> Option<&dyn DevicePlan<W>> {
        match self {
            Kind::Ntt(p) => Some(p),
            Kind::Rns(p) => Some(p),
            Kind::Dgt(p) => Some(p),
            Kind::Chosen(m) => m.plan(),
        }
    }

    /// `z ← inverse(forward(z))` with the plan's own transform: the NTT's
    /// (`Transform`; `FusedPlanTransform` on a fused plan), the DGT's
    /// (through its domain), the planner's (`NotNttDomain` where it chose
    /// the DGT).
    fn round_trip(&self, z: &mut DeviceView<W>) -> polymul::Result<()> {
        match self {
            Kind::Ntt(p) => {
                p.forward(z)?;
                p.inverse(z)
            }
            Kind::Rns(p) => {
                p.forward(z)?;
                p.inverse(z)
            }
            Kind::Dgt(p) => p.inverse(p.forward(z)?).map(|_| ()),
            Kind::Chosen(m) => {
                m.forward(z)?;
                m.inverse(z)
            }
        }
    }
}

/// The traits' contract on one plan.
fn contract<W: Coeff>(kind: &Kind<W>, seed: u64) -> Result<(), String> {
    let plan = kind.plan().ok_or("no GPU plan (a Multiplier on the CPU backend)")?;
    let mut rng = SplitMix64::new(seed);
    let (ha, hb) = (words(plan, &mut rng), words(plan, &mut rng));
    let want = naive(plan, &ha, &hb)?;
    let (a, b) = (plan.upload(&ha).map_err(s)?, plan.upload(&hb).map_err(s)?);
    let layout = plan.layout(BATCH);
    if a.layout() != Some(layout) || layout.words() != ha.len() {
        return Err(format!("upload's layout {:?}, expected {layout:?}", a.layout()));
    }
    let mut out = plan.zeros(BATCH).map_err(s)?;
    plan.polymul_into(&a, &b, &mut out).map_err(s)?;
    eq("polymul_into", &plan.download(&out).map_err(s)?, &want)?;
    eq("a after polymul_into", &plan.download(&a).map_err(s)?, &ha)?;
    eq("b after polymul_into", &plan.download(&b).map_err(s)?, &hb)?;
    // Again on the same buffers (the scratch and any cached graph reused).
    plan.polymul_into(&a, &b, &mut out).map_err(s)?;
    eq("polymul_into, second call", &plan.download(&out).map_err(s)?, &want)?;
    let (mut x, mut y) = (plan.upload(&ha).map_err(s)?, plan.upload(&hb).map_err(s)?);
    plan.polymul_in_place(&mut x, &mut y).map_err(s)?;
    eq("polymul_in_place", &plan.download(&x).map_err(s)?, &want)?;
    eq("polymul (host)", &plan.polymul(&ha, &hb).map_err(s)?, &want)?;
    // A transform round trip, where the plan has transforms.
    let mut z = plan.upload(&ha).map_err(s)?;
    match kind.round_trip(&mut z) {
        Ok(()) => eq("inverse(forward(a))", &plan.download(&z).map_err(s)?, &ha)?,
        Err(Error::FusedPlanTransform) => {}
        // The planner's DGT has no NTT domain (the DGT's round trip: the
        // `DgtPlan` entries).
        Err(Error::NotNttDomain) if matches!(kind, Kind::Chosen(_)) => {}
        Err(e) => return Err(s(e)),
    }
    // Operands of another length.
    let short = plan.zeros(1).map_err(s)?;
    match plan.polymul_into(&a, &short, &mut out) {
        Err(Error::LengthMismatch { what: "b", .. }) => Ok(()),
        other => Err(format!("a short b gave {other:?}, expected LengthMismatch")),
    }
}

/// Every plan kind, named.
type Plans<W> = Vec<(String, Kind<W>)>;

fn plans<W: Coeff>(gpu: &Gpu, bits: u32) -> Result<Plans<W>, String> {
    let n = 1 << 10;
    let mut v: Plans<W> = Vec::new();
    let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
    v.push(("NttPlan".into(), Kind::Ntt(NttPlan::new(gpu, p.clone()).map_err(s)?)));
    let fused = PlanOptions { fused_polymul: true, ..PlanOptions::default() };
    v.push(("NttPlan (fused polymul)".into(), Kind::Ntt(NttPlan::with_options(gpu, p, fused).map_err(s)?)));
    let basis = RnsBasis::<W>::new(n, bits, 3).map_err(s)?;
    v.push(("RnsPlan (3 towers)".into(), Kind::Rns(RnsPlan::new(gpu, &basis).map_err(s)?)));
    let dp: Vec<DgtParams<W>> = dgt_primes(bits, n, 2)
        .map_err(s)?
        .iter()
        .map(|&q| DgtParams::new(n, q))
        .collect::<Result<_, _>>()
        .map_err(s)?;
    let cfg = DgtConfig::default_for(9);
    v.push(("DgtPlan (2 towers)".into(), Kind::Dgt(DgtPlan::with_towers(gpu, &dp, cfg).map_err(s)?)));
    let coala = DgtPlan::with_pipeline(gpu, &dp[..1], cfg, DgtPipeline::Coala).map_err(s)?;
    v.push(("DgtPlan (Coala)".into(), Kind::Dgt(coala)));
    let m = Multiplier::<W>::new(gpu, n, Modulus::Bits(bits), BATCH).map_err(s)?;
    let summary = m.decision().summary();
    // The GPU plan the planner chose (a Multiplier on a GPU delegates to it).
    if m.plan().is_none() {
        return Err("Multiplier on the CPU backend".into());
    }
    v.push((format!("Multiplier ({summary})"), Kind::Chosen(m)));
    Ok(v)
}

/// Runs the suite on `W` words of `bits`-bit moduli.
pub fn api_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    let plans = match plans::<W>(gpu, bits) {
        Ok(p) => p,
        Err(e) => return t.record(&format!("api u{}: building the plans", W::BITS), Err(e)),
    };
    for (i, (name, plan)) in plans.iter().enumerate() {
        let r = contract(plan, seed ^ i as u64);
        t.record(
            &format!(
                "api u{} {name}: polymul_into == schoolbook, operands intact, == in place, round trip",
                W::BITS
            ),
            r,
        );
    }
    // Device words are taken by their word count (issue 31: views carry no
    // layout): a buffer of the 3-tower plan (3 · N words) given to the
    // 1-tower plan, where 3 polynomials have as many words, is taken; one of
    // another word count is refused, by the 3-tower plan (not a multiple of
    // its 3 · N) and as an operand of another length.
    let r = (|| {
        let (Kind::Ntt(ntt), Kind::Rns(rns)) = (&plans[0].1, &plans[2].1) else {
            return Err("plans 0 and 2 should be the NttPlan and the RnsPlan".into());
        };
        let mut theirs = rns.zeros(1).map_err(s)?;
        let mut ours = ntt.zeros(3).map_err(s)?;
        if theirs.len() != ours.len() {
            return Err("the two buffers should have as many words".into());
        }
        ntt.polymul_in_place(&mut ours, &mut theirs).map_err(|e| format!("same word count: {e}"))?;
        ntt.forward(&mut theirs).map_err(|e| format!("forward, same word count: {e}"))?;
        let (n, per) = (ntt.n(), rns.n() * rns.moduli().len());
        let (mut two, mut two_b) = (ntt.zeros(2).map_err(s)?, ntt.zeros(2).map_err(s)?);
        match rns.polymul_in_place(&mut two, &mut two_b) {
            Err(Error::NotAMultipleOfN { what: "a", got, n: m }) if got == 2 * n && m == per => {}
            other => {
                return Err(format!("2 · N words to the 3-tower plan: {other:?}, expected NotAMultipleOfN"));
            }
        }
        match rns.forward(&mut two) {
            Err(Error::NotAMultipleOfN { got, n: m, .. }) if got == 2 * n && m == per => {}
            other => return Err(format!("forward got {other:?}, expected NotAMultipleOfN")),
        }
        match ntt.polymul_in_place(&mut ours, &mut two) {
            Err(Error::LengthMismatch { what: "b", got, expected }) if got == 2 * n && expected == 3 * n => {}
            other => return Err(format!("a 2 · N-word b: {other:?}, expected LengthMismatch")),
        }
        // Raw words (no layout) are taken by their length.
        let mut raw = gpu.zeros::<W>(ours.len()).map_err(s)?;
        if raw.layout().is_some() {
            return Err("Gpu::zeros should carry no layout".into());
        }
        ntt.forward(&mut raw).map_err(s)?;
        let want = Layout { n: ntt.n(), towers: 1, batch: 3 };
        (ours.layout() == Some(want)).then_some(()).ok_or_else(|| format!("{:?} != {want:?}", ours.layout()))
    })();
    t.record(
        &format!(
            "api u{}: device words taken by their count (another plan's shape, same count: taken; another count: refused)",
            W::BITS
        ),
        r,
    );
    // Plans are Send + Sync: multiply on another thread, through a shared reference.
    let r = std::thread::scope(|sc| {
        let handles: Vec<_> = plans
            .iter()
            .enumerate()
            .map(|(i, (_, plan))| {
                sc.spawn(move || -> Result<(), String> {
                    let plan = plan.plan().ok_or("no GPU plan")?;
                    let mut rng = SplitMix64::new(seed ^ (100 + i as u64));
                    let (a, b) = (words(plan, &mut rng), words(plan, &mut rng));
                    eq("polymul on another thread", &plan.polymul(&a, &b).map_err(s)?, &naive(plan, &a, &b)?)
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| h.join().map_err(|_| "a thread panicked".to_string())?)
    });
    t.record(&format!("api u{}: every plan multiplies on other threads at once == schoolbook", W::BITS), r);
}
