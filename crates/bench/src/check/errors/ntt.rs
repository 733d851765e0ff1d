//! The `errors` suite's `NttPlan` checks: every data method (and a fused
//! plan's), and the plan options a modulus or an N does not suit.

use super::{check, expect};
use crate::check::{Tally, eq, s};
use crate::host_ext::{forward_host, inverse_host};
use polymul::expert::{NttKernel, PlanOptions, Reduction, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, DeviceVec, Error, Gpu, NttParams, NttPlan};

/// A host-in, host-out method of a plan.
type HostFn<'a, W> = dyn Fn(&[W]) -> polymul::Result<Vec<W>> + 'a;

/// Every data method of an `NttPlan` (and a fused one), on words `W`.
pub(super) fn ntt_errors<W: Coeff>(gpu: &Gpu, bits: u32, t: &mut Tally) {
    let w = W::BITS;
    let n = 1usize << 12;
    let plan = match NttParams::<W>::with_prime_bits(n, bits).and_then(|p| NttPlan::new(gpu, p)) {
        Ok(p) => p,
        Err(e) => return t.record(&format!("errors: NttPlan<u{w}>"), Err(s(e))),
    };
    let q = plan.params().q();
    let mut rng = SplitMix64::new(u64::from(w));
    let good = rng.coeffs(2 * n, q);
    let mut bad = good.clone();
    bad[n + 5] = q;
    let unreduced = |e: &Error, what: &str| {
        matches!(e, Error::CoefficientOutOfRange { what: x, index, value, q: m }
            if *x == what && *index == n + 5 && *value == q.as_u64() && *m == q.as_u64())
    };
    let empty = |e: &Error| matches!(e, Error::NotAMultipleOfN { got: 0, .. });
    let ragged =
        |e: &Error| matches!(e, Error::NotAMultipleOfN { got, n: m, .. } if *got == n + 1 && *m == n);
    let name = |m: &str, what: &str| format!("NttPlan<u{w}>::{m}: {what}");

    // Host data.
    check(t, &name("upload", "empty batch"), plan.upload(&[]), |e| {
        matches!(e, Error::NotAMultipleOfN { what: "coeffs", got: 0, .. })
    });
    check(t, &name("upload", "not a multiple of N"), plan.upload(&good[..n + 1]), ragged);
    check(t, &name("upload", "coefficient >= q, its index"), plan.upload(&bad), |e| unreduced(e, "coeffs"));
    let host: [(&str, &HostFn<W>); 2] =
        [("forward_host", &|x| forward_host(&plan, x)), ("inverse_host", &|x| inverse_host(&plan, x))];
    for (m, f) in host {
        check(t, &name(m, "empty batch"), f(&[]), empty);
        check(t, &name(m, "not a multiple of N"), f(&good[..n + 1]), ragged);
        check(t, &name(m, "coefficient >= q, its index"), f(&bad), |e| unreduced(e, "coeffs"));
    }
    check(t, &name("polymul", "empty batch"), plan.polymul(&[], &[]), |e| {
        matches!(e, Error::NotAMultipleOfN { what: "a", got: 0, .. })
    });
    check(
        t,
        &name("polymul", "length mismatch"),
        plan.polymul(&good[..n], &good),
        |e| matches!(e, Error::LengthMismatch { what: "b", got, expected } if *got == 2 * n && *expected == n),
    );
    check(t, &name("polymul", "not a multiple of N"), plan.polymul(&good[..n + 1], &good[..n + 1]), ragged);
    check(t, &name("polymul", "coefficient >= q in b, its index"), plan.polymul(&good, &bad), |e| {
        unreduced(e, "b")
    });
    check(t, &name("polymul", "coefficient >= q in a, its index"), plan.polymul(&bad, &good), |e| {
        unreduced(e, "a")
    });
    check(t, &name("zeros", "empty batch"), plan.zeros(0), |e| {
        matches!(e, Error::NotAMultipleOfN { what: "batch", got: 0, .. })
    });
    let max = plan.params().max_batch();
    // Buffers above one launch are fine (calls on them split); the launch
    // limit is still what `check_batch_size` reports.
    check(
        t,
        &name("check_batch_size", "batch above max_batch"),
        plan.params().check_batch_size(max + 1),
        |e| matches!(e, Error::BatchTooLarge { batch, max: m, .. } if *batch == max + 1 && *m == max),
    );
    check(t, &name("zeros", "batch beyond the address space"), plan.zeros(usize::MAX / 2), |e| {
        matches!(e, Error::OutOfDeviceMemory { .. })
    });

    // Device data.
    let res = (|| -> Result<(), String> {
        let mut empty_buf: DeviceVec<W> = gpu.zeros(0).map_err(s)?;
        let mut ragged_buf: DeviceVec<W> = gpu.zeros(n + 1).map_err(s)?;
        let mut one = plan.upload(&good[..n]).map_err(s)?;
        let mut two = plan.upload(&good).map_err(s)?;
        let dv = |e: &Error, got: usize| matches!(e, Error::NotAMultipleOfN { got: g, .. } if *g == got);
        let mismatch = |e: &Error| matches!(e, Error::LengthMismatch { .. });
        let mut fails = Vec::new();
        let mut note = |what: &str, r: Result<(), String>| {
            if let Err(e) = r {
                fails.push(format!("{what}: {e}"));
            }
        };
        note("forward empty", expect(plan.forward(&mut empty_buf), |e| dv(e, 0)));
        note("forward ragged", expect(plan.forward(&mut ragged_buf), |e| dv(e, n + 1)));
        note("inverse empty", expect(plan.inverse(&mut empty_buf), |e| dv(e, 0)));
        note("inverse ragged", expect(plan.inverse(&mut ragged_buf), |e| dv(e, n + 1)));
        note("pointwise_mul empty", expect(plan.pointwise_mul(&mut empty_buf, &one), |e| dv(e, 0)));
        note("pointwise_mul mismatch", expect(plan.pointwise_mul(&mut one, &two), mismatch));
        note("hadamard_step mismatch", expect(plan.hadamard_step(&mut one, &mut two), mismatch));
        let mut ragged_b: DeviceVec<W> = gpu.zeros(n + 1).map_err(s)?;
        let mut empty_b: DeviceVec<W> = gpu.zeros(0).map_err(s)?;
        note(
            "hadamard_step ragged",
            expect(plan.hadamard_step(&mut ragged_buf, &mut ragged_b), |e| dv(e, n + 1)),
        );
        note("polymul_in_place mismatch", expect(plan.polymul_in_place(&mut one, &mut two), mismatch));
        note(
            "polymul_in_place empty",
            expect(plan.polymul_in_place(&mut empty_buf, &mut empty_b), |e| dv(e, 0)),
        );
        // Nothing ran: `one` still holds its coefficients.
        eq("untouched", &gpu.download(&one).map_err(s)?, &good[..n])?;
        if fails.is_empty() { Ok(()) } else { Err(fails.join("; ")) }
    })();
    t.record(&format!("errors: NttPlan<u{w}> device buffers: empty, ragged, mismatched (nothing runs)"), res);

    // A fused plan multiplies only; it needs N >= 4.
    let fused = PlanOptions { fused_polymul: true, ..PlanOptions::default() };
    let res = (|| -> Result<(), String> {
        let fp = NttPlan::with_options(gpu, plan.params().clone(), fused).map_err(s)?;
        let mut d = fp.upload(&good).map_err(s)?;
        expect(fp.forward(&mut d), |e| matches!(e, Error::FusedPlanTransform))?;
        expect(fp.inverse(&mut d), |e| matches!(e, Error::FusedPlanTransform))?;
        expect(forward_host(&fp, &good), |e| matches!(e, Error::FusedPlanTransform))?;
        eq(
            "fused product",
            &fp.polymul(&good, &good).map_err(s)?,
            &emulation::polymul(plan.params(), &good, &good).map_err(s)?,
        )
    })();
    t.record(&format!("errors: fused NttPlan<u{w}>: forward/inverse refused, polymul right"), res);
    let p2 = NttParams::<W>::with_prime_bits(2, bits.min(30));
    check(
        t,
        &format!("fused NttPlan<u{w}> with N = 2"),
        p2.and_then(|p| NttPlan::with_options(gpu, p, fused)),
        |e| matches!(e, Error::InvalidN { n: 2, min: 4, .. }),
    );

    // After all that: the plan computes the CPU's product.
    t.record(
        &format!("errors: NttPlan<u{w}> still right after the errors"),
        (|| {
            eq(
                "product",
                &plan.polymul(&good, &good).map_err(s)?,
                &emulation::polymul(plan.params(), &good, &good).map_err(s)?,
            )
        })(),
    );
}

/// Plan options a modulus or an N does not suit: per reduction, tile,
/// radix and kernel.
pub(super) fn ntt_option_errors(gpu: &Gpu, t: &mut Tally) {
    let (Ok(p62), Ok(p30)) =
        (NttParams::<u64>::with_prime_bits(1 << 12, 62), NttParams::<u32>::with_prime_bits(1 << 12, 30))
    else {
        return t.record("errors: NttPlan options: parameters", Err("no parameters".into()));
    };
    // Each reduction: refused exactly when q is wider than it takes.
    for r in Reduction::ALL {
        let o = PlanOptions { reduction: r, ..PlanOptions::default() };
        let name =
            format!("errors: NttPlan reduction {r}: a modulus too wide for it is refused, else accepted");
        let res = (|| -> Result<(), String> {
            for (plan, max_bits) in [
                (NttPlan::with_options(gpu, p62.clone(), o).map(drop), r.max_bits(64).min(62)),
                (NttPlan::with_options(gpu, p30.clone(), o).map(drop), r.max_bits(32).min(30)),
            ] {
                let bits = if max_bits == 62 || max_bits == 30 { None } else { Some(max_bits) };
                match (plan, bits) {
                    (Ok(()), None) => {}
                    (Err(Error::ModulusTooWide { max_bits: m, .. }), Some(b)) if m == b => {}
                    (other, _) => return Err(format!("{other:?} (max_bits {max_bits})")),
                }
            }
            Ok(())
        })();
        t.record(&name, res);
    }
    let tile = |b: usize| {
        NttPlan::with_options(gpu, p62.clone(), PlanOptions { tile_bytes: Some(b), ..PlanOptions::default() })
    };
    for (bytes, what) in [
        (1usize << 30, "larger than the device allows"),
        (usize::MAX, "usize::MAX"),
        (1 << 63, "2^63"),
        (3000, "not a power of two"),
        (8, "below two words"),
        (0, "zero"),
    ] {
        check(
            t,
            &format!("NttPlan tile of {bytes} bytes ({what})"),
            tile(bytes),
            |e| matches!(e, Error::BadTile { bytes: b, min: 16, .. } if *b == bytes),
        );
    }
    for radix in [0usize, 1, 3, 32, usize::MAX] {
        let o = PlanOptions { radix: Some(radix), ..PlanOptions::default() };
        check(
            t,
            &format!("NttPlan radix {radix}"),
            NttPlan::with_options(gpu, p62.clone(), o),
            |e| matches!(e, Error::BadRadix { radix: r } if *r == radix),
        );
    }
    // The 2D kernels need N >= 4; a 2-point transform runs on the others.
    let Ok(n2) = NttParams::<u64>::with_prime_bits(2, 40) else {
        return t.record("errors: N = 2 parameters", Err("none".into()));
    };
    for kernel in NttKernel::ALL {
        let o = PlanOptions { kernel, ..PlanOptions::default() };
        let r = NttPlan::with_options(gpu, n2.clone(), o);
        let name = format!("errors: NttPlan kernel {} at N = 2", kernel.name());
        t.record(
            &name,
            match (kernel, r) {
                (NttKernel::TwoD | NttKernel::TwoDPipelined, Err(Error::InvalidN { n: 2, min: 4, .. })) => {
                    Ok(())
                }
                (NttKernel::Lazy | NttKernel::Cluster, Err(Error::InvalidN { n: 2, min: 8, .. })) => Ok(()),
                (NttKernel::Radix2Global | NttKernel::Tiled, Ok(p)) => (|| {
                    let a = [1u64, 2];
                    eq("N = 2", &p.polymul(&a, &a).map_err(s)?, &emulation::polymul(&n2, &a, &a).map_err(s)?)
                })(),
                (_, r) => Err(format!("{:?}", r.map(drop))),
            },
        );
    }
}
