//! The `errors` suite's `DgtPlan` checks: every data method of a two-tower
//! plan, and its constructors.

use super::{check, dgt_cpu, expect};
use crate::check::{Tally, eq, s};
use crate::host_ext::dgt_forward_host;
use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
use polymul::expert::SplitMix64;
use polymul::prelude::*;
use polymul::{Coeff, DeviceVec, DgtView, Error, Gpu};

/// Every data method of a two-tower `DgtPlan`, and its constructors.
pub(super) fn dgt_errors<W: Coeff>(gpu: &Gpu, bits: u32, t: &mut Tally) {
    let w = W::BITS;
    let n = 1usize << 10;
    let cfg = DgtConfig::default_for(9);
    let params: Vec<DgtParams<W>> = match dgt::dgt_primes(bits, n, 2)
        .and_then(|ps| ps.iter().map(|&p| DgtParams::new(n, p)).collect::<polymul::Result<_>>())
    {
        Ok(p) => p,
        Err(e) => return t.record(&format!("errors: DgtPlan<u{w}> parameters"), Err(s(e))),
    };
    let name = |m: &str, what: &str| format!("DgtPlan<u{w}>::{m}: {what}");
    // Constructors: all refused before the device is touched.
    check(t, &name("with_towers", "no tower"), DgtPlan::<W>::with_towers(gpu, &[], cfg), |e| {
        matches!(e, Error::EmptyBasis)
    });
    let dup = [params[0].clone(), params[1].clone(), params[0].clone()];
    check(
        t,
        &name("with_towers", "a prime twice"),
        DgtPlan::with_towers(gpu, &dup, cfg),
        |e| matches!(e, Error::DuplicatePrime { q } if *q == params[0].p().as_u64()),
    );
    let other_n = DgtParams::<W>::with_prime_bits(n / 2, bits);
    check(
        t,
        &name("with_towers", "towers of different N"),
        other_n.and_then(|p| DgtPlan::with_towers(gpu, &[params[0].clone(), p], cfg)),
        |e| matches!(e, Error::LengthMismatch { what: "tower N", got, expected } if *got == n / 2 && *expected == n),
    );
    for bad_cfg in [
        DgtConfig { stages1: 0, log_cluster1: 0, log_cluster2: 0, log_unit: 0 },
        DgtConfig { stages1: 10, log_cluster1: 0, log_cluster2: 0, log_unit: 0 },
        DgtConfig { stages1: 4, log_cluster1: 7, log_cluster2: 0, log_unit: 0 },
        DgtConfig { stages1: 5, log_cluster1: 40, log_cluster2: u32::MAX, log_unit: 0 },
    ] {
        check(
            t,
            &name("new", &format!("configuration {bad_cfg} that does not fit N = 2^10")),
            DgtPlan::new(gpu, params[0].clone(), bad_cfg),
            |e| matches!(e, Error::BadDgtConfig { n: m, .. } if *m == n),
        );
    }
    let plan = match DgtPlan::with_towers(gpu, &params, cfg) {
        Ok(p) => p,
        Err(e) => return t.record(&format!("errors: DgtPlan<u{w}>"), Err(s(e))),
    };
    let mut rng = SplitMix64::new(11 + u64::from(w));
    let good: Vec<W> = params.iter().flat_map(|p| rng.coeffs(3 * n, p.p())).collect();
    let p1 = params[1].p();
    let at = 3 * n + 2 * n + 9; // tower 1, polynomial 2, coefficient 9
    let mut bad = good.clone();
    bad[at] = p1;
    let layout = |e: &Error, got: usize| matches!(e, Error::NotAMultipleOfN { got: g, n: m, .. } if *g == got && *m == 2 * n);
    let unreduced = |e: &Error, what: &str| matches!(e, Error::CoefficientOutOfRange { what: x, index, q, .. } if *x == what && *index == at && *q == p1.as_u64());
    check(t, &name("upload", "empty batch"), plan.upload(&[]), |e| layout(e, 0));
    check(t, &name("upload", "a one-tower layout"), plan.upload(&good[..n]), |e| layout(e, n));
    check(t, &name("upload", "coefficient >= p_1, its index"), plan.upload(&bad), |e| unreduced(e, "coeffs"));
    check(t, &name("forward_host", "coefficient >= p_1"), dgt_forward_host(&plan, &bad), |e| {
        unreduced(e, "coeffs")
    });
    check(t, &name("forward_host", "empty batch"), dgt_forward_host(&plan, &[]), |e| layout(e, 0));
    check(t, &name("polymul", "empty batch"), plan.polymul(&[], &[]), |e| layout(e, 0));
    check(t, &name("polymul", "length mismatch"), plan.polymul(&good, &good[..2 * n]), |e| {
        matches!(e, Error::LengthMismatch { what: "b", .. })
    });
    check(t, &name("polymul", "coefficient >= p_1 in b"), plan.polymul(&good, &bad), |e| unreduced(e, "b"));
    check(t, &name("zeros", "empty batch"), plan.zeros(0), |e| {
        matches!(e, Error::NotAMultipleOfN { what: "batch", got: 0, .. })
    });
    // Buffers above one launch are fine (calls on them split).
    check(t, &name("zeros", "batch beyond the address space"), plan.zeros(usize::MAX / 2), |e| {
        matches!(e, Error::OutOfDeviceMemory { .. })
    });
    let res = (|| -> Result<(), String> {
        let mut one_tower: DeviceVec<W> = gpu.zeros(n).map_err(s)?;
        let mut empty: DeviceVec<W> = gpu.zeros(0).map_err(s)?;
        let mut a = plan.zeros(1).map_err(s)?;
        let mut b = plan.zeros(2).map_err(s)?;
        expect(plan.forward(&mut one_tower), |e| layout(e, n))?;
        expect(plan.inverse(DgtView::of_mut(&mut empty)), |e| layout(e, 0))?;
        expect(plan.pointwise_mul(DgtView::of_mut(&mut a), DgtView::of(&b)), |e| {
            matches!(e, Error::LengthMismatch { .. })
        })?;
        expect(plan.polymul_in_place(&mut a, &mut b), |e| matches!(e, Error::LengthMismatch { .. }))?;
        expect(plan.polymul_in_place(&mut one_tower, &mut gpu.zeros(n).map_err(s)?), |e| layout(e, n))?;
        eq("zeros untouched", &gpu.download(&a).map_err(s)?, &vec![W::zero(); 2 * n])
    })();
    t.record(
        &format!("errors: DgtPlan<u{w}> device buffers of the wrong tower count or length (nothing runs)"),
        res,
    );
    t.record(
        &format!("errors: DgtPlan<u{w}> still right after the errors"),
        (|| eq("product", &plan.polymul(&good, &good).map_err(s)?, &dgt_cpu(&params, &cfg, &good, &good)?))(),
    );
}
