//! The `errors` suite: bad input to every GPU entry point that takes data
//! (`NttPlan`, `RnsPlan`, `DgtPlan`, `Multiplier`, `ModMulBench`, `Gpu`,
//! `tune`) gets its typed error, checked variant and fields; out of device
//! memory — a batch larger than the card, and every allocation of every
//! plan type while the card is full — is `Error::OutOfDeviceMemory`, and
//! afterwards the same plans and context still compute the CPU's product.
//! `docs/bad-input.md` lists the checks.

use super::{Tally, eq, s};
use crate::host_ext::{dgt_forward_host, forward_host, inverse_host};
use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
use polymul::expert::{DgtPipeline, ModMulBench, NttKernel, PlanOptions, Reduction, SplitMix64, emulation};
use polymul::planner::{Choice, Decision, Modulus, Multiplier, tune};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, DeviceVec, DgtView, Error, Gpu, NttParams, NttPlan};

/// `Ok` when `r` is an error that `want` accepts.
fn expect<T>(r: polymul::Result<T>, want: impl Fn(&Error) -> bool) -> Result<(), String> {
    match r {
        Err(e) if want(&e) => Ok(()),
        Err(e) => Err(format!("wrong error: {e:?}")),
        Ok(_) => Err("no error".into()),
    }
}

/// Records `name` as the result of `want` on `r`.
fn check<T>(t: &mut Tally, name: &str, r: polymul::Result<T>, want: impl Fn(&Error) -> bool) {
    t.record(&format!("errors: {name}"), expect(r, want));
}

fn oom(e: &Error) -> bool {
    matches!(e, Error::OutOfDeviceMemory { .. })
}

/// Runs the error-path checks.
pub(crate) fn error_suite(gpu: &Gpu, t: &mut Tally) {
    gpu_errors(gpu, t);
    ntt_errors::<u64>(gpu, 62, t);
    ntt_errors::<u32>(gpu, 30, t);
    ntt_option_errors(gpu, t);
    rns_errors::<u64>(gpu, 62, t);
    rns_errors::<u32>(gpu, 30, t);
    dgt_errors::<u32>(gpu, 30, t);
    dgt_errors::<u64>(gpu, 62, t);
    multiplier_errors(gpu, t);
    modmul_bench_errors(gpu, t);
    tune_errors(gpu, t);
    out_of_memory(gpu, t);
}

/// `Gpu`'s own buffers: empty buffers are allowed (no allocation), lengths
/// are checked, impossible sizes are out-of-memory, a missing device is
/// typed.
fn gpu_errors(gpu: &Gpu, t: &mut Tally) {
    t.record(
        "errors: Gpu empty buffers (zeros(0), upload(&[]), download) are empty, no allocation",
        (|| {
            let z = gpu.zeros::<u64>(0).map_err(s)?;
            let u = gpu.upload::<u32>(&[]).map_err(s)?;
            if !z.is_empty() || !u.is_empty() || !gpu.download(&z).map_err(s)?.is_empty() {
                return Err("not empty".into());
            }
            Ok(())
        })(),
    );
    t.record(
        "errors: Gpu::copy_into length mismatch",
        (|| {
            let mut v = gpu.zeros::<u64>(4).map_err(s)?;
            expect(gpu.copy_into(&mut v, &[1, 2, 3]), |e| {
                matches!(e, Error::LengthMismatch { what: "data", got: 3, expected: 4 })
            })
        })(),
    );
    check(t, "Gpu::zeros with a byte count beyond the address space", gpu.zeros::<u64>(usize::MAX), |e| {
        matches!(e, Error::OutOfDeviceMemory { bytes: usize::MAX, .. })
    });
    let huge = gpu.info().total_memory / 8 * 2;
    check(
        t,
        "Gpu::zeros larger than the card",
        gpu.zeros::<u64>(huge),
        |e| matches!(e, Error::OutOfDeviceMemory { bytes, .. } if *bytes == huge * 8),
    );
    check(t, "Gpu::copy_bandwidth_gbs below one word", gpu.copy_bandwidth_gbs(4, 1), |e| {
        matches!(e, Error::ArgumentOutOfRange { what: "bytes", value: 4, min: 8, .. })
    });
    check(
        t,
        "Gpu::with_device of a device that does not exist",
        Gpu::with_device(1 << 20),
        |e| matches!(e, Error::NoSuchDevice { ordinal, .. } if *ordinal == 1 << 20),
    );
}

/// A host-in, host-out method of a plan.
type HostFn<'a, W> = dyn Fn(&[W]) -> polymul::Result<Vec<W>> + 'a;

/// Every data method of an `NttPlan` (and a fused one), on words `W`.
fn ntt_errors<W: Coeff>(gpu: &Gpu, bits: u32, t: &mut Tally) {
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
    check(
        t,
        &name("zeros", "batch above max_batch"),
        plan.zeros(max + 1),
        |e| matches!(e, Error::BatchTooLarge { batch, max: m, .. } if *batch == max + 1 && *m == max),
    );

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
fn ntt_option_errors(gpu: &Gpu, t: &mut Tally) {
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

/// Every data method of an `RnsPlan` of three towers: wrong tower counts
/// (layouts), unreduced residues in the last tower, mismatches.
fn rns_errors<W: Coeff>(gpu: &Gpu, bits: u32, t: &mut Tally) {
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
    let max = u32::MAX as usize / n;
    check(
        t,
        &name("zeros", "batch above u32::MAX / N per tower"),
        plan.zeros(max + 1),
        |e| matches!(e, Error::BatchTooLarge { batch, max: m, .. } if *batch == max + 1 && *m == max),
    );
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

/// The CPU's DGT product of tower-major data.
fn dgt_cpu<W: Coeff>(params: &[DgtParams<W>], cfg: &DgtConfig, a: &[W], b: &[W]) -> Result<Vec<W>, String> {
    let len = a.len() / params.len();
    let mut out = Vec::with_capacity(a.len());
    for (i, p) in params.iter().enumerate() {
        let r = i * len..(i + 1) * len;
        out.extend(emulation::dgt::polymul(p, cfg, &a[r.clone()], &b[r]).map_err(s)?);
    }
    Ok(out)
}

/// Every data method of a two-tower `DgtPlan`, and its constructors.
fn dgt_errors<W: Coeff>(gpu: &Gpu, bits: u32, t: &mut Tally) {
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
        DgtConfig { stages1: 0, log_cluster1: 0, log_cluster2: 0 },
        DgtConfig { stages1: 10, log_cluster1: 0, log_cluster2: 0 },
        DgtConfig { stages1: 4, log_cluster1: 7, log_cluster2: 0 },
        DgtConfig { stages1: 5, log_cluster1: 40, log_cluster2: u32::MAX },
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
    let max = u32::MAX as usize / n;
    check(t, &name("zeros", "batch above u32::MAX / N per tower"), plan.zeros(max + 1), |e| {
        matches!(e, Error::BatchTooLarge { .. })
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

/// The planner: moduli, N and decisions no transform takes, a broken
/// wisdom file, and its data methods.
fn multiplier_errors(gpu: &Gpu, t: &mut Tally) {
    let n = 1usize << 12;
    let mk = |n: usize, m: Modulus| Multiplier::<u64>::with_wisdom(gpu, n, m, 1, None);
    check(t, "Multiplier: N not a power of two", mk(1000, Modulus::Bits(62)), |e| {
        matches!(e, Error::InvalidN { n: 1000, .. })
    });
    check(t, "Multiplier: N too large", mk(1 << 25, Modulus::Bits(62)), |e| {
        matches!(e, Error::InvalidN { .. })
    });
    check(t, "Multiplier: N = 0", mk(0, Modulus::Bits(62)), |e| matches!(e, Error::InvalidN { n: 0, .. }));
    check(t, "Multiplier: q not prime", mk(n, Modulus::Prime(1_000_001)), |e| {
        matches!(e, Error::NotPrime { q: 1_000_001 })
    });
    // 1,000,003 is prime, ≢ 1 (mod 2N) and ≢ −1 (mod N): the rule's NTT refuses it.
    check(t, "Multiplier: q neither an NTT nor a DGT prime", mk(n, Modulus::Prime(1_000_003)), |e| {
        matches!(e, Error::NotNttFriendly { q: 1_000_003, .. })
    });
    check(t, "Multiplier: q too wide", mk(n, Modulus::Prime(u64::MAX)), |e| {
        matches!(e, Error::ModulusTooWide { bits: 64, .. })
    });
    check(t, "Multiplier: 63-bit primes", mk(n, Modulus::Bits(63)), |e| {
        matches!(e, Error::UnsupportedPrimeWidth { bits: 63, .. })
    });
    check(
        t,
        "Multiplier: 31-bit primes on u32",
        Multiplier::<u32>::with_wisdom(gpu, n, Modulus::Bits(31), 1, None),
        |e| matches!(e, Error::ModulusTooWide { word: 32, .. } | Error::UnsupportedPrimeWidth { .. }),
    );
    check(t, "Multiplier: RNS of no tower", mk(n, Modulus::Rns { bits: 62, towers: 0 }), |e| {
        matches!(e, Error::EmptyBasis)
    });
    check(
        t,
        "Multiplier: RNS of too many towers",
        mk(n, Modulus::Rns { bits: 62, towers: usize::MAX }),
        |e| matches!(e, Error::TooManyPrimes { .. }),
    );
    let decided = |winner: Choice, m: Modulus| {
        Multiplier::<u64>::with_decision(gpu, n, m, Decision { winner, from_wisdom: true, measured_us: None })
    };
    let q = polymul::params::ntt_primes(62, n, 1).map(|v| v[0]).unwrap_or(0);
    let p = dgt::dgt_primes(62, n, 1).map(|v| v[0]).unwrap_or(0);
    check(
        t,
        "Multiplier: the DGT given an NTT prime",
        decided(Choice::Dgt { config: DgtConfig::default_for(11) }, Modulus::Prime(q)),
        |e| matches!(e, Error::NotDgtFriendly { .. }),
    );
    check(
        t,
        "Multiplier: the NTT given a DGT prime",
        decided(Choice::Ntt { kernel: NttKernel::Auto, radix: None }, Modulus::Prime(p)),
        |e| matches!(e, Error::NotNttFriendly { .. }),
    );
    check(
        t,
        "Multiplier: a decision with radix 3",
        decided(Choice::Ntt { kernel: NttKernel::Tiled, radix: Some(3) }, Modulus::Bits(62)),
        |e| matches!(e, Error::BadRadix { radix: 3 }),
    );
    let absurd = DgtConfig { stages1: u32::MAX, log_cluster1: 40, log_cluster2: 64 };
    check(
        t,
        "Multiplier: a DGT configuration that does not fit",
        decided(Choice::Dgt { config: absurd }, Modulus::Bits(62)),
        |e| matches!(e, Error::BadDgtConfig { .. }),
    );
    // An unreadable wisdom file at the default path is an error when it is
    // loaded (`Wisdom::load_default`), not ignored; `Multiplier::new` reads
    // no wisdom at all (issue 17: wisdom is loaded explicitly).
    let dir = std::env::temp_dir().join(format!("polymul-errors-wisdom-{}", std::process::id()));
    let res = (|| -> Result<(), String> {
        std::fs::create_dir_all(&dir).map_err(s)?;
        let garbage = dir.join("garbage.json");
        std::fs::write(&garbage, b"{\"version\": 1, \"entries\": [").map_err(s)?;
        for path in [garbage.as_path(), dir.as_path()] {
            let previous = std::env::var_os("POLYMUL_WISDOM");
            // SAFETY: the check suite runs its suites one after another on
            // this thread; no other thread reads the environment now.
            unsafe { std::env::set_var("POLYMUL_WISDOM", path) };
            let r = polymul::planner::Wisdom::load_default();
            let planned =
                Multiplier::<u64>::new(gpu, n, Modulus::Bits(62), 1).map(|m| m.decision().from_wisdom);
            // SAFETY: as above.
            unsafe {
                match previous {
                    Some(v) => std::env::set_var("POLYMUL_WISDOM", v),
                    None => std::env::remove_var("POLYMUL_WISDOM"),
                }
            }
            expect(r, |e| matches!(e, Error::Wisdom { path: p, .. } if p.as_path() == path))?;
            if !matches!(planned, Ok(false)) {
                return Err(format!("Multiplier::new beside an unreadable wisdom file gave {planned:?}"));
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    t.record(
        "errors: Wisdom::load_default with an unreadable wisdom file (garbage, a folder) is an error; \
         Multiplier::new reads none",
        res,
    );

    // Data methods, through an NTT, an RNS and a DGT multiplier.
    for (tag, m) in [
        ("NTT", Modulus::Bits(62)),
        ("RNS", Modulus::Rns { bits: 62, towers: 2 }),
        ("DGT", Modulus::Prime(p)),
    ] {
        let res = (|| -> Result<(), String> {
            let mul = mk(n, m).map_err(s)?;
            let k = mul.primes().len();
            let mut rng = SplitMix64::new(5);
            let good: Vec<u64> = mul.primes().iter().flat_map(|&q| rng.coeffs(n, q)).collect();
            let mut bad = good.clone();
            bad[k * n - 1] = mul.primes()[k - 1];
            let unreduced =
                |e: &Error| matches!(e, Error::CoefficientOutOfRange { index, .. } if *index == k * n - 1);
            expect(mul.upload(&[]), |e| matches!(e, Error::NotAMultipleOfN { got: 0, .. }))?;
            expect(mul.upload(&good[..n - 1]), |e| matches!(e, Error::NotAMultipleOfN { .. }))?;
            expect(mul.upload(&bad), unreduced)?;
            expect(mul.polymul(&good, &bad), unreduced)?;
            expect(mul.polymul(&good, &good[..k * n / 2]), |e| {
                matches!(e, Error::LengthMismatch { .. } | Error::NotAMultipleOfN { .. })
            })?;
            expect(mul.zeros(0), |e| matches!(e, Error::NotAMultipleOfN { what: "batch", got: 0, .. }))?;
            expect(mul.zeros(usize::MAX), |e| matches!(e, Error::BatchTooLarge { .. }))?;
            let (mut a, mut b) = (mul.zeros(1).map_err(s)?, mul.zeros(2).map_err(s)?);
            expect(mul.polymul_in_place(&mut a, &mut b), |e| matches!(e, Error::LengthMismatch { .. }))?;
            let want: Vec<u64> = match tag {
                "DGT" => dgt_cpu(&[DgtParams::<u64>::new(n, p).map_err(s)?], &mul_cfg(&mul), &good, &good)?,
                _ => {
                    let basis = RnsBasis::<u64>::from_primes(n, mul.primes()).map_err(s)?;
                    emulation::rns_polymul(&basis, &good, &good).map_err(s)?
                }
            };
            eq("product after the errors", &mul.polymul(&good, &good).map_err(s)?, &want)
        })();
        t.record(&format!("errors: Multiplier ({tag}) data methods, then still right"), res);
    }
}

/// The DGT configuration a multiplier chose.
fn mul_cfg(m: &Multiplier<u64>) -> DgtConfig {
    match m.decision().winner {
        Choice::Dgt { config } => config,
        Choice::Ntt { .. } => DgtConfig::default_for(0),
    }
}

fn modmul_bench_errors(gpu: &Gpu, t: &mut Tally) {
    let q = polymul::params::ntt_primes(62, 1 << 10, 1).map(|v| v[0]).unwrap_or(0);
    check(t, "ModMulBench: 0 threads", ModMulBench::new(gpu, Reduction::Shoup, false, q, 0, 1), |e| {
        matches!(e, Error::ArgumentOutOfRange { what: "threads", value: 0, .. })
    });
    for (bad, what) in [(0u64, "zero"), (1 << 40, "even"), (3, "below 5")] {
        check(
            t,
            &format!("ModMulBench: modulus {bad} ({what})"),
            ModMulBench::new(gpu, Reduction::Barrett4, false, bad, 64, 1),
            |e| matches!(e, Error::BadModulus { q, .. } if *q == bad),
        );
    }
    check(
        t,
        "ModMulBench: a 62-bit modulus for Dhem–Quisquater",
        ModMulBench::new(gpu, Reduction::DhemQuisquater, false, q, 64, 1),
        |e| matches!(e, Error::ModulusTooWide { max_bits: 60, .. }),
    );
    let res = (|| -> Result<(), String> {
        let mut mb = ModMulBench::new(gpu, Reduction::Shoup, false, q, 64, 1).map_err(s)?;
        expect(mb.cpu_thread(64, 5), |e| {
            matches!(e, Error::ArgumentOutOfRange { what: "thread", value: 64, max: 63, .. })
        })?;
        expect(mb.cpu_thread(usize::MAX, 5), |e| matches!(e, Error::ArgumentOutOfRange { .. }))?;
        mb.run(5).map_err(s)?;
        let got = mb.values().map_err(s)?;
        eq("thread 63", &got[4 * 63..], &mb.cpu_thread(63, 5).map_err(s)?)
    })();
    t.record("errors: ModMulBench::cpu_thread beyond the threads; the run stays right", res);
}

fn tune_errors(gpu: &Gpu, t: &mut Tally) {
    let spec = tune::TuneSpec {
        log_ns: vec![10, 40],
        words: vec![64],
        towers: vec![1],
        batches: vec![1],
        quick: true,
    };
    let mut calls = 0;
    let r = tune::tune(gpu, &spec, &mut |_, _, _| calls += 1);
    t.record(
        "errors: tune with log2 N = 40 is refused before anything runs",
        match (r, calls) {
            (Err(Error::ArgumentOutOfRange { what: "log2 N", value: 40, .. }), 0) => Ok(()),
            (r, calls) => Err(format!("{:?} after {calls} progress calls", r.map(drop))),
        },
    );
    let spec = tune::TuneSpec { log_ns: vec![10], words: vec![16], ..spec };
    check(t, "tune with 16-bit words", tune::tune(gpu, &spec, &mut |_, _, _| {}), |e| {
        matches!(e, Error::UnsupportedWord { bits: 16 })
    });
}

/// Out of device memory through every plan type.
///
/// 1. A batch larger than the card, asked of `zeros` where the batch limit
///    (`u32::MAX / N` words per tower) allows one: RNS and DGT plans with
///    enough towers, and an RNS multiplier.
/// 2. The card full (1 GiB buffers, then ever smaller ones, held): every
///    allocation of every plan type — `zeros`, `upload`, the host
///    products, the DGT plan's scratch on its first `forward`, and a new
///    plan's tables — fails with `OutOfDeviceMemory`.
///
/// After each, with the memory back, the same plans and context compute
/// the CPU's product.
fn out_of_memory(gpu: &Gpu, t: &mut Tally) {
    let total = gpu.info().total_memory;
    let n = 1usize << 12;
    let max_batch = u32::MAX as usize / n;
    // u64: a tower's largest batch is 32 GiB; enough towers to pass the card.
    let towers64 = total / (max_batch * n * 8) + 2;
    let towers32 = total / (max_batch * n * 4) + 2;
    let mut rng = SplitMix64::new(99);

    let rns = RnsBasis::<u64>::new(n, 62, towers64).and_then(|b| RnsPlan::new(gpu, &b).map(|p| (b, p)));
    let dgt_params: polymul::Result<Vec<DgtParams<u32>>> =
        dgt::dgt_primes(30, n, towers32).and_then(|ps| ps.iter().map(|&p| DgtParams::new(n, p)).collect());
    let cfg = DgtConfig::default_for(11);
    let dgtp = dgt_params.and_then(|ps| DgtPlan::with_towers(gpu, &ps, cfg).map(|p| (ps, p)));
    let mul = Multiplier::<u64>::with_wisdom(gpu, n, Modulus::Rns { bits: 62, towers: towers64 }, 1, None);
    let (Ok((basis, rns)), Ok((dgt_ps, dgtp)), Ok(mul)) = (rns, dgtp, mul) else {
        return t.record("errors: out-of-memory plans", Err("could not build the plans".into()));
    };
    let ntt = match NttParams::<u64>::with_prime_bits(n, 62).and_then(|p| NttPlan::new(gpu, p)) {
        Ok(p) => p,
        Err(e) => return t.record("errors: out-of-memory NTT plan", Err(s(e))),
    };
    let q = ntt.params().q();
    let (a, b) = (rng.coeffs(n, q), rng.coeffs(n, q));
    let res_a: Vec<u64> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
    let dgt_a: Vec<u32> = dgt_ps.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
    let mul_a: Vec<u64> = mul.primes().iter().flat_map(|&q| rng.coeffs(n, q)).collect();
    let mul_basis = RnsBasis::<u64>::from_primes(n, mul.primes());

    // Each plan right: after an out-of-memory error it must still be.
    let all_right = |when: &str| -> Result<(), String> {
        eq(
            &format!("NTT {when}"),
            &ntt.polymul(&a, &b).map_err(s)?,
            &emulation::polymul(ntt.params(), &a, &b).map_err(s)?,
        )?;
        eq(
            &format!("RNS {when}"),
            &rns.polymul(&res_a, &res_a).map_err(s)?,
            &emulation::rns_polymul(&basis, &res_a, &res_a).map_err(s)?,
        )?;
        eq(
            &format!("DGT {when}"),
            &dgtp.polymul(&dgt_a, &dgt_a).map_err(s)?,
            &dgt_cpu(&dgt_ps, &cfg, &dgt_a, &dgt_a)?,
        )?;
        let mb = mul_basis.as_ref().map_err(s)?;
        eq(
            &format!("Multiplier {when}"),
            &mul.polymul(&mul_a, &mul_a).map_err(s)?,
            &emulation::rns_polymul(mb, &mul_a, &mul_a).map_err(s)?,
        )
    };

    // 1. Batches larger than the card.
    let bigger = |e: &Error, bytes_at_least: usize| matches!(e, Error::OutOfDeviceMemory { bytes, .. } if *bytes >= bytes_at_least);
    check(
        t,
        &format!("RnsPlan::zeros of {towers64} towers × 32 GiB (larger than the card)"),
        rns.zeros(max_batch),
        |e| bigger(e, total),
    );
    check(
        t,
        &format!("DgtPlan::zeros of {towers32} towers × 16 GiB (larger than the card)"),
        dgtp.zeros(max_batch),
        |e| bigger(e, total),
    );
    check(
        t,
        &format!("Multiplier::zeros of {towers64} towers × 32 GiB (larger than the card)"),
        mul.zeros(max_batch),
        |e| bigger(e, total),
    );
    t.record(
        "errors: every plan right after a batch larger than the card",
        all_right("after a batch larger than the card"),
    );

    // 2. The card full. DGT data buffers made first: on the full card the
    // forward of Coala's pipeline needs a larger scratch buffer than its
    // plan has yet; the fused pipeline's needs none, so it runs.
    let coala = DgtPlan::with_pipeline(gpu, &dgt_ps, cfg, DgtPipeline::Coala);
    let (mut dgt_data, coala, mut coala_data) = match (dgtp.zeros(64), coala) {
        (Ok(d), Ok(c)) => match c.zeros(64) {
            Ok(cd) => (d, c, cd),
            Err(e) => return t.record("errors: DGT data buffer (Coala's pipeline)", Err(s(e))),
        },
        (Err(e), _) | (_, Err(e)) => return t.record("errors: DGT data buffer", Err(s(e))),
    };
    let mut hog: Vec<DeviceVec<u64>> = Vec::new();
    let mut words = 1usize << 27; // 1 GiB, then halves down to 256 bytes
    while words >= 32 && hog.len() < 100_000 {
        match gpu.zeros::<u64>(words) {
            Ok(v) => hog.push(v),
            Err(Error::OutOfDeviceMemory { .. }) => words /= 2,
            Err(e) => {
                drop(hog);
                return t.record("errors: filling the card", Err(s(e)));
            }
        }
    }
    let held: usize = hog.iter().map(|v| v.len() * 8).sum();
    t.record(
        &format!(
            "errors: the card filled ({} buffers, {:.1} GiB held)",
            hog.len(),
            held as f64 / (1u64 << 30) as f64
        ),
        if held > total / 2 { Ok(()) } else { Err(format!("only {held} of {total} bytes")) },
    );
    let batch64 = vec![1u64; 64 * n]; // 2 MiB: more than is left
    let rns_batch = vec![1u64; 64 * n * towers64];
    let dgt_batch = vec![1u32; 128 * n * towers32];
    check(t, "card full: NttPlan::zeros", ntt.zeros(64), oom);
    check(t, "card full: NttPlan::upload", ntt.upload(&batch64), oom);
    check(t, "card full: NttPlan::polymul", ntt.polymul(&batch64, &batch64), oom);
    check(t, "card full: NttPlan::forward_host", forward_host(&ntt, &batch64), oom);
    check(t, "card full: NttPlan::inverse_host", inverse_host(&ntt, &batch64), oom);
    let big = NttParams::<u64>::with_prime_bits(1 << 20, 62);
    check(t, "card full: NttPlan::new (its twiddle tables)", big.and_then(|p| NttPlan::new(gpu, p)), oom);
    check(t, "card full: RnsPlan::zeros", rns.zeros(64), oom);
    check(t, "card full: RnsPlan::upload", rns.upload(&rns_batch), oom);
    check(t, "card full: RnsPlan::polymul", rns.polymul(&rns_batch, &rns_batch), oom);
    check(t, "card full: DgtPlan::zeros", dgtp.zeros(128), oom);
    check(t, "card full: DgtPlan::upload", dgtp.upload(&dgt_batch), oom);
    check(t, "card full: DgtPlan::polymul", dgtp.polymul(&dgt_batch, &dgt_batch), oom);
    check(t, "card full: DgtPlan::forward_host", dgt_forward_host(&dgtp, &dgt_batch), oom);
    check(t, "card full: Multiplier::zeros", mul.zeros(64), oom);
    check(t, "card full: Multiplier::upload", mul.upload(&rns_batch), oom);
    check(t, "card full: Multiplier::polymul", mul.polymul(&rns_batch, &rns_batch), oom);
    let planned = Multiplier::<u64>::with_wisdom(gpu, 1 << 20, Modulus::Bits(62), 1, None);
    check(t, "card full: Multiplier::with_wisdom (a new plan)", planned, oom);
    // Last (it frees the plan's old, smaller scratch before it asks).
    check(
        t,
        "card full: DgtPlan::forward, Coala's pipeline (its scratch buffer)",
        coala.forward(&mut coala_data),
        oom,
    );
    t.record(
        "card full: DgtPlan::forward, fused pipeline (no scratch: runs)",
        dgtp.forward(&mut dgt_data).and_then(|_| dgtp.synchronize()).map_err(s),
    );
    drop(hog);
    drop((dgt_data, coala_data));
    t.record(
        "errors: every plan and the context right after the card was full",
        all_right("after the card was full"),
    );
}
