//! The `rns` suite: RNS plans with every kernel configuration against the
//! CPU.

use super::{Tally, eq, lazy_kernel, s, variants};
use polymul::expert::{PlanOptions, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, Error, Gpu, cpu};

/// RNS polymul on the GPU (all towers in one launch per step) with every
/// kernel configuration, fused and unfused, against the CPU's per-tower
/// product; transforms against the CPU per tower; for a small N the
/// big-integer schoolbook product modulo Q after CRT reconstruction; a
/// residue not below its tower's prime is refused.
pub(super) fn rns_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for (log_n, batch, towers) in [(10u32, 1usize, 3usize), (12, 2, 1), (12, 3, 4), (16, 2, 3)] {
        let n = 1usize << log_n;
        let Ok(basis) = polymul::rns::RnsBasis::<W>::new(n, bits, towers) else {
            t.record(&format!("rns u{} basis {towers}x{bits}", W::BITS), Err("no basis".into()));
            continue;
        };
        let mut rng = SplitMix64::new(seed ^ n as u64 ^ towers as u64);
        let mut res =
            |_| -> Vec<W> { basis.towers().iter().flat_map(|p| rng.coeffs(n * batch, p.q())).collect() };
        let (a, b) = (res(0), res(1));
        let want = match emulation::rns_polymul(&basis, &a, &b) {
            Ok(w) => w,
            Err(e) => return t.record("rns cpu", Err(s(e))),
        };
        let len = n * batch;
        let mut want_fwd = a.clone();
        for (i, p) in basis.towers().iter().enumerate() {
            if let Err(e) = emulation::forward(p, &mut want_fwd[i * len..(i + 1) * len]) {
                return t.record("rns cpu forward", Err(s(e)));
            }
        }
        for (tag, o) in variants() {
            // The lazy kernels run whole transforms only (no fused polymul).
            let fused = if lazy_kernel(o.kernel) { &[false][..] } else { &[false, true][..] };
            for &fused_polymul in fused {
                let name = format!(
                    "rns {tag}{} u{} {towers}x{bits}-bit N=2^{log_n} batch {batch} == CPU",
                    if fused_polymul { " fused" } else { "" },
                    W::BITS
                );
                let res = (|| {
                    let opts = PlanOptions { fused_polymul, ..o };
                    let plan = polymul::rns::RnsPlan::with_options(gpu, &basis, opts).map_err(s)?;
                    let got = plan.polymul(&a, &b).map_err(s)?;
                    eq("towers", &got, &want)?;
                    if !fused_polymul {
                        let mut d = plan.upload(&a).map_err(s)?;
                        plan.forward(&mut d).map_err(s)?;
                        eq("forward", &gpu.download(&d).map_err(s)?, &want_fwd)?;
                        plan.inverse(&mut d).map_err(s)?;
                        eq("round trip", &gpu.download(&d).map_err(s)?, &a)?;
                    }
                    if log_n == 10 && tag == "auto" {
                        let (ba, bb) =
                            (basis.from_residues(&a).map_err(s)?, basis.from_residues(&b).map_err(s)?);
                        let big = cpu::negacyclic_naive_big(&ba, &bb, basis.modulus()).map_err(s)?;
                        if basis.from_residues(&got).map_err(s)? != big {
                            return Err(
                                "CRT of the GPU product differs from the big-integer product mod Q".into()
                            );
                        }
                    }
                    Ok(())
                })();
                t.record(&name, res);
            }
        }
        if towers > 1 {
            let name = format!("rns u{} residue >= its tower's prime is refused", W::BITS);
            let res = (|| {
                let plan =
                    polymul::rns::RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options())
                        .map_err(s)?;
                let mut bad = a.clone();
                let at = len + 7; // tower 1
                bad[at] = basis.towers()[1].q();
                match plan.upload(&bad) {
                    Err(Error::CoefficientOutOfRange { index, .. }) if index == at => Ok(()),
                    other => Err(format!("{other:?}")),
                }
            })();
            t.record(&name, res);
        }
    }
}
