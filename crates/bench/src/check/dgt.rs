//! The `dgt` suite: DGT plans against their CPU emulation.

use super::{Tally, eq, s};
use crate::Options;
use crate::host_ext::dgt_forward_host;
use polymul::expert::{SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, Gpu, cpu};

/// The DGT on the GPU against its CPU emulation: every configuration of
/// the search space (clusters up to 32, every register unit) at every N
/// with one tower, the default split with every register unit and
/// Coala's fixed access and two other splits with 2 and 4 towers; polymul, forward,
/// round trip, on the fused pipeline and (the few splits) Coala's; and the
/// naive product at N = 2^10.
pub(super) fn dgt_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, opts: &Options, t: &mut Tally) {
    use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
    use polymul::expert::DgtPipeline;
    let quick = opts.quick;
    for log_n in (2u32..=17).filter(|l| opts.log_n.as_ref().is_none_or(|only| only.contains(l))) {
        let (n, log_m) = (1usize << log_n, log_n - 1);
        let mut few = vec![DgtConfig::default_for(log_m)];
        // The default split with each register unit, and Coala's fixed access.
        for log_unit in 0..=3 {
            let c = DgtConfig { log_unit, ..DgtConfig::default_for(log_m) };
            if !few.contains(&c) && c.passes(log_m).is_ok() {
                few.push(c);
            }
        }
        if log_m > 6 {
            few.push(DgtConfig { stages1: 6, log_cluster1: 0, log_cluster2: 0, log_unit: 0 });
            few.push(DgtConfig {
                stages1: log_m.min(10),
                log_cluster1: 0,
                log_cluster2: 2.min(log_m - 6),
                log_unit: 0,
            });
        }
        for towers in [1usize, 2, 4] {
            // Every configuration the search can choose (one tower), a few
            // with more towers. All give the same words, so the CPU
            // reference is computed once, with the default configuration.
            let cfgs = if towers == 1 && !quick { DgtConfig::all(log_m, 5) } else { few.clone() };
            let name =
                format!("dgt u{} {towers}x{bits}-bit N=2^{log_n} ({} configs) == CPU", W::BITS, cfgs.len());
            let res = (|| {
                let ps = dgt::dgt_primes(bits, n, towers).map_err(s)?;
                let params: Vec<DgtParams<W>> =
                    ps.iter().map(|&p| DgtParams::new(n, p)).collect::<polymul::Result<_>>().map_err(s)?;
                let mut rng = SplitMix64::new(seed ^ n as u64 ^ towers as u64);
                let batch = 2;
                let mut fresh =
                    || -> Vec<W> { params.iter().flat_map(|p| rng.coeffs(batch * n, p.p())).collect() };
                let (a, b) = (fresh(), fresh());
                let len = batch * n;
                let reference = DgtConfig::default_for(log_m);
                let (mut want, mut want_fwd) = (Vec::new(), Vec::new());
                for (i, p) in params.iter().enumerate() {
                    let r = i * len..(i + 1) * len;
                    want.extend(
                        emulation::dgt::polymul(p, &reference, &a[r.clone()], &b[r.clone()]).map_err(s)?,
                    );
                    let mut wf = a[r].to_vec();
                    emulation::dgt::forward(p, &reference, &mut wf).map_err(s)?;
                    want_fwd.extend(wf);
                }
                // One plan: polymul and forward equal to the CPU's words,
                // the round trip back to `a`.
                let check = |plan: &DgtPlan<W>, name: &str| -> Result<(), String> {
                    let what = |op: &str| format!("{name} {op}");
                    eq(&what("polymul"), &plan.polymul(&a, &b).map_err(s)?, &want)?;
                    eq(&what("forward"), &dgt_forward_host(plan, &a).map_err(s)?, &want_fwd)?;
                    let mut d = plan.upload(&a).map_err(s)?;
                    let f = plan.forward(&mut d).map_err(s)?;
                    plan.inverse(f).map_err(s)?;
                    eq(&what("round trip"), &gpu.download(&d).map_err(s)?, &a)
                };
                for cfg in cfgs.iter().filter(|c| c.passes(log_m).is_ok()) {
                    // Coala's pipeline too, on the few configurations.
                    let coala = few.contains(cfg).then_some(DgtPipeline::Coala);
                    for pipeline in std::iter::once(DgtPipeline::Fused).chain(coala) {
                        let plan = DgtPlan::with_pipeline(gpu, &params, *cfg, pipeline).map_err(s)?;
                        check(&plan, &format!("{cfg} {pipeline:?}"))?;
                    }
                }
                // The default plan with its batched configuration (as
                // `Multiplier` plans it): batches of 2 × towers polynomials,
                // on its passes from `BATCHED_FROM_COEFFS` coefficients (N =
                // 2^16 with 2 and 4 towers, 2^17; the other sizes check the unit
                // passes through the default split's configurations above).
                let default = DgtConfig::default_for(log_m);
                let batched = DgtConfig::batched_for(log_m);
                let plan = DgtPlan::with_towers(gpu, &params, default)
                    .map_err(s)?
                    .with_batched(batched)
                    .map_err(s)?;
                check(&plan, &format!("{default} with batched {batched}"))?;
                if log_n == 10 && towers == 1 {
                    let q = params[0].p();
                    let plan =
                        DgtPlan::new(gpu, params[0].clone(), DgtConfig::default_for(log_m)).map_err(s)?;
                    let got: Vec<u64> =
                        plan.polymul(&a[..n], &b[..n]).map_err(s)?.iter().map(|x| x.as_u64()).collect();
                    let au: Vec<u64> = a[..n].iter().map(|x| x.as_u64()).collect();
                    let bu: Vec<u64> = b[..n].iter().map(|x| x.as_u64()).collect();
                    eq("naive", &got, &cpu::negacyclic_naive(&au, &bu, q.as_u64()).map_err(s)?)?;
                }
                Ok(())
            })();
            t.record(&name, res);
        }
    }
}
