//! The CPU anchor: Zama's `concrete-ntt` (AVX2/AVX-512 negacyclic NTT,
//! one thread) on the same N and prime widths, beside this project's GPU
//! forward NTT (the SEED paper compares its GPU NTT with a CPU library).
//! Each `concrete-ntt` product is first checked against polymul's CPU
//! reference, so the timing is of a transform that computes the same thing.

use crate::report::Table;
use polymul::expert::GpuTiming;
use polymul::expert::{SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Gpu, NttParams, NttPlan};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The two `concrete-ntt` plan types (64- and 32-bit primes) behind one
/// interface, so that one timing function serves both words (here, in the
/// CPU backend's section and in the criterion benches).
pub trait Anchor<W>: Sized {
    /// `Plan::try_new(n, q)`.
    fn make(n: usize, q: W) -> Option<Self>;
    /// The forward transform, in place.
    fn fwd(&self, x: &mut [W]);
    /// The unnormalised inverse transform, in place.
    fn inv(&self, x: &mut [W]);
    /// Multiplies by `1/N`, the inverse's scaling.
    fn normalize(&self, x: &mut [W]);
    /// `a ← a ⊙ b / N` in the transform domain.
    fn mul_assign_normalize(&self, a: &mut [W], b: &[W]);
}

macro_rules! anchor {
    ($plan:ty, $w:ty) => {
        impl Anchor<$w> for $plan {
            fn make(n: usize, q: $w) -> Option<Self> {
                <$plan>::try_new(n, q)
            }
            fn fwd(&self, x: &mut [$w]) {
                <$plan>::fwd(self, x)
            }
            fn inv(&self, x: &mut [$w]) {
                <$plan>::inv(self, x)
            }
            fn normalize(&self, x: &mut [$w]) {
                <$plan>::normalize(self, x)
            }
            fn mul_assign_normalize(&self, a: &mut [$w], b: &[$w]) {
                <$plan>::mul_assign_normalize(self, a, b)
            }
        }
    };
}

anchor!(concrete_ntt::prime64::Plan, u64);
anchor!(concrete_ntt::prime32::Plan, u32);

/// µs per `concrete-ntt` forward transform (median of `reps` timings of
/// `inner` transforms each), after checking its product against polymul's
/// CPU reference.
fn cpu_forward_us<W: polymul::Coeff, P: Anchor<W>>(n: usize, bits: u32, reps: usize) -> Result<f64, String> {
    let s = |e: polymul::Error| e.to_string();
    let mut rng = SplitMix64::new(n as u64 ^ bits as u64);
    let inner = (1 << 18) / n + 1;
    let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
    let plan = P::make(n, p.q()).ok_or("concrete-ntt refused the prime")?;
    let (a, b) = (rng.coeffs(n, p.q()), rng.coeffs(n, p.q()));
    let (mut x, mut y) = (a.clone(), b.clone());
    plan.fwd(&mut x);
    plan.fwd(&mut y);
    plan.mul_assign_normalize(&mut x, &y);
    plan.inv(&mut x);
    if x != emulation::polymul(&p, &a, &b).map_err(s)? {
        return Err("concrete-ntt's product differs from polymul's CPU reference".into());
    }
    let mut buf = a;
    let times = (0..reps)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..inner {
                plan.fwd(&mut buf);
            }
            t.elapsed().as_secs_f64() * 1e6 / inner as f64
        })
        .collect();
    Ok(median(times))
}

fn gpu_forward_us<W: polymul::Coeff>(
    gpu: &Gpu,
    n: usize,
    bits: u32,
    batch: usize,
    quick: bool,
) -> polymul::Result<f64> {
    let p = NttParams::<W>::with_prime_bits(n, bits)?;
    let plan = NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options())?;
    let mut d = plan.upload(&SplitMix64::new(3).coeffs(n * batch, p.q()))?;
    let (warm, reps) = crate::repetitions(batch, quick);
    Ok(gpu.time(warm, reps, || plan.forward(&mut d))?.median_us / batch as f64)
}

/// The anchor table: `concrete-ntt` on this machine's CPU, and the GPU's
/// forward NTT (single and batched) when `gpu` is given.
pub fn table(gpu: Option<&Gpu>, quick: bool) -> Result<Table, String> {
    let mut t = Table::new(
        "CPU anchor: concrete-ntt (one CPU thread, AVX2/AVX-512 as detected) against the GPU forward NTT",
        &[
            "word",
            "q bits",
            "N",
            "concrete-ntt µs per forward NTT",
            "GPU µs, one polynomial",
            "GPU µs per polynomial, batched (2^25 coefficients)",
            "CPU / GPU batched",
        ],
    );
    t.note =
        "concrete-ntt 0.2 with default features, single thread, on the CPU of the machine that ran this \
              (median of repeated loops); its product is checked against polymul's CPU reference first. GPU: \
              the default NttPlan (Auto), CUDA events, median. Context: the SEED paper reports 123.13× over a CPU \
              library (another CPU, GPU and library)."
            .into();
    let reps = if quick { 5 } else { 15 };
    for (word, bits) in [(64u32, 62u32), (32, 30)] {
        for log_n in [12u32, 14, 16] {
            let n = 1usize << log_n;
            let c = match word {
                64 => cpu_forward_us::<u64, concrete_ntt::prime64::Plan>(n, bits, reps)?,
                _ => cpu_forward_us::<u32, concrete_ntt::prime32::Plan>(n, bits, reps)?,
            };
            let (g1, gb) = match gpu {
                Some(gpu) => {
                    let batch = (1usize << 25) / n;
                    let r = match word {
                        64 => gpu_forward_us::<u64>(gpu, n, bits, 1, quick)
                            .and_then(|a| Ok((a, gpu_forward_us::<u64>(gpu, n, bits, batch, quick)?))),
                        _ => gpu_forward_us::<u32>(gpu, n, bits, 1, quick)
                            .and_then(|a| Ok((a, gpu_forward_us::<u32>(gpu, n, bits, batch, quick)?))),
                    };
                    let (a, b) = r.map_err(|e| e.to_string())?;
                    (Some(a), Some(b))
                }
                None => (None, None),
            };
            let f = |x: Option<f64>| x.map_or("no GPU".into(), |v| format!("{v:.4}"));
            t.rows.push(vec![
                format!("u{word}"),
                bits.to_string(),
                format!("2^{log_n}"),
                format!("{c:.2}"),
                f(g1),
                f(gb),
                gb.map_or("".into(), |g| format!("{:.0}", c / g)),
            ]);
            eprintln!(
                "  cpu anchor u{word} N=2^{log_n}: concrete-ntt {c:.2} µs, GPU {} / {} µs",
                f(g1),
                f(gb)
            );
        }
    }
    Ok(t)
}
