//! The launch switches (issue 31), once environment variables and now
//! options, change how a plan launches but never its words: every
//! [`PlanOptions`] switch (`latency_kernels`, `latency_radix`, `lazy_fused`,
//! `graph_cache`) and every [`GpuOptions`] one (`pdl`, `pdl_graph`,
//! `kernel_image`) gives the CPU's words, call after call on the same
//! buffers; a refused value is the typed error.

use super::{Tally, eq, s};
use polymul::expert::SplitMix64;
use polymul::expert::emulation as emu;
use polymul::expert::{LazyFused, PlanOptions};
use polymul::prelude::*;
use polymul::{Coeff, Error, ErrorKind, Gpu, GpuOptions, NttParams, NttPlan};

/// Calls per operation on the same buffers: the second captures a graph
/// (where the plan's cache is on), the third replays it.
const CALLS: usize = 3;

/// `CALLS` rounds of forward, inverse and polymul of `batch` polynomials of
/// N = 2^`log_n` on one pair of buffers, new inputs each round, against the
/// CPU.
fn exact<W: Coeff>(plan: &NttPlan<W>, gpu: &Gpu, batch: usize, seed: u64) -> Result<(), String> {
    let p = plan.params().clone();
    let n = p.n();
    let mut rng = SplitMix64::new(seed);
    let (mut a, mut b) = (plan.zeros(batch).map_err(s)?, plan.zeros(batch).map_err(s)?);
    for _ in 0..CALLS {
        let (x, y) = (rng.coeffs(n * batch, p.q()), rng.coeffs(n * batch, p.q()));
        gpu.copy_into(&mut a, &x).map_err(s)?;
        plan.forward(&mut a).map_err(s)?;
        let mut want = x.clone();
        emu::forward(&p, &mut want).map_err(s)?;
        eq("forward", &plan_download(plan, gpu, &a)?, &want)?;
        gpu.copy_into(&mut a, &x).map_err(s)?;
        plan.inverse(&mut a).map_err(s)?;
        let mut want = x.clone();
        emu::inverse(&p, &mut want).map_err(s)?;
        eq("inverse", &plan_download(plan, gpu, &a)?, &want)?;
        gpu.copy_into(&mut a, &x).map_err(s)?;
        gpu.copy_into(&mut b, &y).map_err(s)?;
        plan.polymul_in_place(&mut a, &mut b).map_err(s)?;
        eq("polymul", &plan_download(plan, gpu, &a)?, &emu::polymul(&p, &x, &y).map_err(s)?)?;
    }
    Ok(())
}

fn plan_download<W: Coeff>(
    plan: &NttPlan<W>,
    gpu: &Gpu,
    v: &polymul::DeviceVec<W>,
) -> Result<Vec<W>, String> {
    plan.synchronize().and_then(|()| gpu.download(v)).map_err(s)
}

/// The plan switches, one at a time off the defaults.
fn plan_switches() -> Vec<(String, PlanOptions)> {
    let d = PlanOptions::default();
    let mut v = vec![
        ("defaults".to_string(), d),
        ("latency_kernels: false".into(), PlanOptions { latency_kernels: false, ..d }),
        ("graph_cache: false".into(), PlanOptions { graph_cache: false, ..d }),
        ("lazy_fused: Off".into(), PlanOptions { lazy_fused: LazyFused::Off, ..d }),
        ("lazy_fused: OnePolyPerBlock".into(), PlanOptions { lazy_fused: LazyFused::OnePolyPerBlock, ..d }),
        ("lazy_fused: Always".into(), PlanOptions { lazy_fused: LazyFused::Always, ..d }),
    ];
    for r in [4, 8, 16] {
        v.push((format!("latency_radix: {r}"), PlanOptions { latency_radix: Some(r), ..d }));
    }
    v
}

/// Each plan switch on one word: single polynomials (the latency schedule
/// and the graph cache), a small batch, and a batch the fused two-pass
/// kernels take (u32 N = 2^16 × 128).
fn plan_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    let cases: &[(u32, usize)] =
        if W::BITS == 32 { &[(12, 1), (16, 1), (16, 2), (16, 128)] } else { &[(12, 1), (16, 1), (16, 2)] };
    for (name, o) in plan_switches() {
        let r = (|| {
            for (i, &(log_n, batch)) in cases.iter().enumerate() {
                let p = NttParams::<W>::with_prime_bits(1 << log_n, bits).map_err(s)?;
                let plan = NttPlan::with_options(gpu, p, o).map_err(s)?;
                exact(&plan, gpu, batch, seed ^ i as u64)
                    .map_err(|e| format!("N=2^{log_n} batch {batch}: {e}"))?;
            }
            Ok(())
        })();
        let sizes: Vec<String> = cases.iter().map(|(l, b)| format!("2^{l}×{b}")).collect();
        t.record(
            &format!(
                "options u{} {name}: forward, inverse, polymul {CALLS}× on the same buffers ({}) == CPU",
                W::BITS,
                sizes.join(", ")
            ),
            r,
        );
    }
    // A latency radix the kernels do not have: refused, typed.
    let r = (|| {
        let p = NttParams::<W>::with_prime_bits(1 << 12, bits).map_err(s)?;
        match NttPlan::with_options(gpu, p, PlanOptions { latency_radix: Some(2), ..PlanOptions::default() })
        {
            Err(e @ Error::BadLatencyRadix { radix: 2 }) if e.kind() == ErrorKind::InvalidInput => Ok(()),
            other => Err(format!("got {:?}, expected BadLatencyRadix", other.map(|_| "a plan"))),
        }
    })();
    t.record(&format!("options u{}: latency_radix 2 is refused (BadLatencyRadix, InvalidInput)", W::BITS), r);
}

/// A `Gpu` made with `o` computes the same words (u32 and u64, N = 2^12
/// and 2^16 single, where the lazy passes launch as dependents).
fn gpu_case(name: &str, o: GpuOptions, seed: u64, t: &mut Tally) {
    let r = (|| {
        let gpu = Gpu::with_options(0, o).map_err(s)?;
        for (i, log_n) in [12u32, 16].into_iter().enumerate() {
            let p = NttParams::<u32>::with_prime_bits(1 << log_n, 30).map_err(s)?;
            exact(&NttPlan::new(&gpu, p).map_err(s)?, &gpu, 1, seed ^ i as u64)?;
            let p = NttParams::<u64>::with_prime_bits(1 << log_n, 62).map_err(s)?;
            exact(&NttPlan::new(&gpu, p).map_err(s)?, &gpu, 1, seed ^ (i as u64 + 8))?;
        }
        Ok(())
    })();
    t.record(
        &format!("options Gpu {name}: forward, inverse, polymul {CALLS}× u32/u64 N=2^12, 2^16 == CPU"),
        r,
    );
}

/// The GPU switches: programmatic launches off, off while capturing, and
/// the kernels loaded from a file (the embedded cubin for this device if
/// the build has one, else the embedded PTX), and a file that is not there.
fn gpu_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    gpu_case("pdl: false", GpuOptions { pdl: false, ..GpuOptions::default() }, seed, t);
    gpu_case("pdl_graph: false", GpuOptions { pdl_graph: false, ..GpuOptions::default() }, seed ^ 1, t);
    let (major, minor) = gpu.info().compute_capability;
    let sm = (major * 10 + minor) as u32;
    let image = match polymul::expert::embedded_cubin(sm) {
        Ok(Some(bin)) => Ok(Some(("cubin", bin.to_vec()))),
        Ok(None) => polymul::expert::embedded_ptx(gpu.info().ptx_arch)
            .map(|p| p.map(|p| ("ptx", p.as_bytes().to_vec()))),
        Err(e) => Err(e),
    };
    let dir = std::env::temp_dir().join(format!("polymul-check-image-{}", std::process::id()));
    match image {
        Ok(Some((ext, bytes))) => {
            let path = dir.join(format!("kernels.{ext}"));
            match std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, bytes)) {
                Ok(()) => gpu_case(
                    &format!("kernel_image: the embedded {ext} from a file"),
                    GpuOptions { kernel_image: Some(path), ..GpuOptions::default() },
                    seed ^ 2,
                    t,
                ),
                Err(e) => t.record("options Gpu kernel_image: writing the image", Err(e.to_string())),
            }
        }
        Ok(None) => {
            t.record("options Gpu kernel_image: an embedded image to load", Err("none embedded".into()))
        }
        Err(e) => t.record("options Gpu kernel_image: an embedded image to load", Err(e.to_string())),
    }
    let r = match Gpu::with_options(
        0,
        GpuOptions { kernel_image: Some(dir.join("missing.cubin")), ..GpuOptions::default() },
    ) {
        Err(e @ Error::KernelImage { .. }) if e.kind() == ErrorKind::Device => Ok(()),
        other => Err(format!("got {:?}, expected KernelImage", other.map(|_| "a Gpu"))),
    };
    t.record("options Gpu kernel_image: a missing file is KernelImage (Device)", r);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The suite: the plan switches on `gpu`, the GPU switches on GPUs of
/// their own.
pub fn options_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    plan_suite::<u32>(gpu, 30, seed, t);
    plan_suite::<u64>(gpu, 62, seed ^ 0x100, t);
    gpu_suite(gpu, seed ^ 0x200, t);
}
