//! The `errors` suite's `RnsPlan` checks: every data method of a plan of
//! three towers.

use super::{check, expect};
use crate::check::{Tally, eq, s};
use polymul::expert::{PlanOptions, Reduction, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, DeviceVec, Error, Gpu};

/// Every data method of an `RnsPlan` of three towers: wrong tower counts
/// (layouts), unreduced residues in the last tower, mismatches.
pub(super) fn rns_errors<W: Coeff>(gpu: &Gpu, bits: u32, t: &mut Tally) {
    let w = W::BITS;
    let n = 1usize << 10;
    let k = 3;
    let made = RnsBasis::<W>::new(n, bits, k).and_then(|b| RnsPlan::new(gpu, &b).map(|p| (b, p)));
    let (basis, plan) = match made {
        Ok(x) => x,
        Err(e) => return t.record(&format!("errors: RnsPlan<u{w}>"), Err(s(e))),
    };
    let mut rng = SplitMix64::new(7 + u64::from(w));
    let good: Vec<W> = basis.towers().iter().flat_map(|p| rng.coeffs(2 * n, p.q())).collect();
    let q2 = basis.towers()[2].q();
    let at = 2 * (2 * n) + 3; // tower 2, polynomial 0, coefficient 3
    let mut bad = good.clone();
    bad[at] = q2;
    let name = |m: &str, what: &str| format!("RnsPlan<u{w}>::{m}: {what}");
    let layout = |e: &Error, got: usize| matches!(e, Error::NotAMultipleOfN { got: g, n: m, .. } if *g == got && *m == k * n);
    let unreduced = |e: &Error, what: &str| matches!(e, Error::CoefficientOutOfRange { what: x, index, q, .. } if *x == what && *index == at && *q == q2.as_u64());
    check(t, &name("upload", "empty batch"), plan.upload(&[]), |e| layout(e, 0));
    // Two towers' worth of data for a three-tower plan, and four.
    check(t, &name("upload", "a two-tower layout"), plan.upload(&good[..2 * n]), |e| layout(e, 2 * n));
    check(
        t,
        &name("upload", "a four-tower layout"),
        plan.upload(&[good.as_slice(), &good[..n]].concat()),
        |e| layout(e, 7 * n),
    );
    check(
        t,
        &name("upload", "residue >= its tower's prime, index into the whole buffer"),
        plan.upload(&bad),
        |e| unreduced(e, "residues"),
    );
    check(t, &name("polymul", "empty batch"), plan.polymul(&[], &[]), |e| layout(e, 0));
    check(t, &name("polymul", "length mismatch"), plan.polymul(&good, &good[..k * n]), |e| {
        matches!(e, Error::LengthMismatch { what: "b", .. })
    });
    check(t, &name("polymul", "residue >= q_2 in b"), plan.polymul(&good, &bad), |e| unreduced(e, "b"));
    check(t, &name("zeros", "empty batch"), plan.zeros(0), |e| {
        matches!(e, Error::NotAMultipleOfN { what: "batch", got: 0, .. })
    });
    // Buffers above one launch are fine (calls on them split).
    check(t, &name("zeros", "batch beyond the address space"), plan.zeros(usize::MAX / 2), |e| {
        matches!(e, Error::OutOfDeviceMemory { .. })
    });
    let res = (|| -> Result<(), String> {
        let mut two_towers: DeviceVec<W> = gpu.zeros(2 * n).map_err(s)?;
        let mut two_towers_b: DeviceVec<W> = gpu.zeros(2 * n).map_err(s)?;
        // One polynomial per tower, and two.
        let one_poly: Vec<W> =
            basis.towers().iter().flat_map(|p| SplitMix64::new(3).coeffs(n, p.q())).collect();
        let mut a = plan.upload(&one_poly).map_err(s)?;
        let mut two = plan.upload(&good).map_err(s)?;
        expect(plan.forward(&mut two_towers), |e| layout(e, 2 * n))?;
        expect(plan.inverse(&mut two_towers), |e| layout(e, 2 * n))?;
        expect(plan.polymul_in_place(&mut a, &mut two), |e| matches!(e, Error::LengthMismatch { .. }))?;
        expect(plan.polymul_in_place(&mut two_towers, &mut two_towers_b), |e| layout(e, 2 * n))?;
        eq("untouched", &gpu.download(&a).map_err(s)?, &one_poly)
    })();
    t.record(
        &format!("errors: RnsPlan<u{w}> device buffers of the wrong tower count or length (nothing runs)"),
        res,
    );
    // Options the towers do not suit.
    let o = PlanOptions { reduction: Reduction::DhemQuisquater, ..PlanOptions::default() };
    check(
        t,
        &format!("RnsPlan<u{w}> reduction too narrow for the towers"),
        RnsPlan::with_options(gpu, &basis, o),
        |e| matches!(e, Error::ModulusTooWide { max_bits, .. } if *max_bits == Reduction::DhemQuisquater.max_bits(w)),
    );
    let o = PlanOptions { tile_bytes: Some(1 << 30), ..PlanOptions::default() };
    check(t, &format!("RnsPlan<u{w}> tile too large"), RnsPlan::with_options(gpu, &basis, o), |e| {
        matches!(e, Error::BadTile { .. })
    });
    let o = PlanOptions { radix: Some(5), ..PlanOptions::default() };
    check(t, &format!("RnsPlan<u{w}> radix 5"), RnsPlan::with_options(gpu, &basis, o), |e| {
        matches!(e, Error::BadRadix { radix: 5 })
    });
    t.record(
        &format!("errors: RnsPlan<u{w}> still right after the errors"),
        (|| {
            eq(
                "product",
                &plan.polymul(&good, &good).map_err(s)?,
                &emulation::rns_polymul(&basis, &good, &good).map_err(s)?,
            )
        })(),
    );
}
