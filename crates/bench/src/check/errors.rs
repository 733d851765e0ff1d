//! The `errors` suite: bad input to every GPU entry point that takes data
//! (`NttPlan`, `RnsPlan`, `DgtPlan`, `Multiplier`, `ModMulBench`, `Gpu`,
//! `tune`) gets its typed error, checked variant and fields; out of device
//! memory — a batch larger than the card, and every allocation of every
//! plan type while the card is full — is `Error::OutOfDeviceMemory`, and
//! afterwards the same plans and context still compute the CPU's product.
//! `docs/bad-input.md` lists the checks.

mod dgt;
mod multiplier;
mod ntt;
mod out_of_memory;
mod rns;

use super::{Tally, eq, s};
use polymul::dgt::{DgtConfig, DgtParams};
use polymul::expert::GpuTiming;
use polymul::expert::{ModMulBench, Reduction, emulation};
use polymul::planner::tune;
use polymul::{Coeff, Error, Gpu};

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

/// Runs the error-path checks.
pub(crate) fn error_suite(gpu: &Gpu, t: &mut Tally) {
    gpu_errors(gpu, t);
    ntt::ntt_errors::<u64>(gpu, 62, t);
    ntt::ntt_errors::<u32>(gpu, 30, t);
    ntt::ntt_option_errors(gpu, t);
    rns::rns_errors::<u64>(gpu, 62, t);
    rns::rns_errors::<u32>(gpu, 30, t);
    dgt::dgt_errors::<u32>(gpu, 30, t);
    dgt::dgt_errors::<u64>(gpu, 62, t);
    multiplier::multiplier_errors(gpu, t);
    modmul_bench_errors(gpu, t);
    tune_errors(gpu, t);
    out_of_memory::out_of_memory(gpu, t);
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
