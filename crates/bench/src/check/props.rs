//! The `props` suite: property tests on the GPU. Each case draws, from one
//! seed, a transform (NTT, RNS, DGT), a word, N, a modulus width (half the
//! NTT cases use the widest modulus their reduction accepts), a batch, a
//! tower count, a kernel configuration and inputs (uniform or edge operands:
//! all `q − 1`, zeros with `q − 1` and `1` sprinkled in), then asserts
//!
//! - GPU product == CPU reference (the kernels' code on the host), and for
//!   N ≤ 2^11 == the naive negacyclic convolution (for RNS, the big-integer
//!   schoolbook product modulo Q after CRT);
//! - inverse(forward(a)) == a on the GPU;
//! - linearity: forward(a + b) == forward(a) + forward(b) (mod q) on the GPU;
//! - GPU forward == CPU forward.
//!
//! Every case prints its seed; `check --only props --seed S --cases K`
//! replays the same K cases.

use super::{Tally, eq, s};
use crate::host_ext::{dgt_forward_host, forward_host, inverse_host};
use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
use polymul::expert::{NttKernel, PlanOptions, Reduction, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, Gpu, NttParams, NttPlan, cpu};

/// Largest N whose products are also checked against the naive convolution.
const NAIVE_MAX_LOG_N: u32 = 11;

/// One case's description and its checks' result.
type Case = (String, Result<(), String>);

/// Runs `cases` random cases from `seed`.
pub(crate) fn props_suite(gpu: &Gpu, seed: u64, cases: usize, t: &mut Tally) {
    println!("props: seed {seed}, {cases} cases (replay: check --only props --seed {seed} --cases {cases})");
    for case in 0..cases {
        let cs = SplitMix64::new(seed ^ (case as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64();
        let mut rng = SplitMix64::new(cs);
        let wide = rng.below(2) == 1;
        let (what, res) = match (rng.below(10), wide) {
            (0..=5, true) => ntt_case::<u64>(gpu, &mut rng),
            (0..=5, false) => ntt_case::<u32>(gpu, &mut rng),
            (6..=7, true) => rns_case::<u64>(gpu, &mut rng),
            (6..=7, false) => rns_case::<u32>(gpu, &mut rng),
            (_, true) => dgt_case::<u64>(gpu, &mut rng),
            (_, false) => dgt_case::<u32>(gpu, &mut rng),
        };
        let res = res.map_err(|e| format!("{e} (case seed {cs}; replay: --only props --seed {seed})"));
        t.record(&format!("props #{case} {what}"), res);
    }
}

/// Uniform random inputs, or edge operands.
pub(crate) fn inputs<W: Coeff>(rng: &mut SplitMix64, len: usize, q: W) -> Vec<W> {
    let qm1 = q - W::one();
    match rng.below(6) {
        0 => vec![qm1; len],
        1 => (0..len)
            .map(|_| match rng.below(8) {
                0 => qm1,
                1 => W::one(),
                _ => W::from_u64(0),
            })
            .collect(),
        _ => rng.coeffs(len, q),
    }
}

fn add_mod<W: Coeff>(a: &[W], b: &[W], q: W) -> Vec<W> {
    let q = q.as_u64();
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let v = x.as_u64() + y.as_u64();
            W::from_u64(if v >= q { v - q } else { v })
        })
        .collect()
}

/// Each length-`n` polynomial of `a` times the one of `b` by the naive
/// negacyclic convolution.
fn naive<W: Coeff>(n: usize, a: &[W], b: &[W], q: W) -> Result<Vec<W>, String> {
    let mut out = Vec::with_capacity(a.len());
    for (x, y) in a.chunks(n).zip(b.chunks(n)) {
        let xu: Vec<u64> = x.iter().map(|v| v.as_u64()).collect();
        let yu: Vec<u64> = y.iter().map(|v| v.as_u64()).collect();
        out.extend(cpu::negacyclic_naive(&xu, &yu, q.as_u64()).map_err(s)?.into_iter().map(W::from_u64));
    }
    Ok(out)
}

/// The widest width half the time, else uniform in
/// `[max(20, log N + 10), max_bits]` (narrower widths hold too few primes
/// of the form `k·2N ± 1` for three of them).
fn random_bits(rng: &mut SplitMix64, log_n: u32, max_bits: u32) -> u32 {
    let lo = (log_n + 10).clamp(20, max_bits);
    if rng.below(2) == 0 { max_bits } else { lo + rng.below(u64::from(max_bits - lo + 1)) as u32 }
}

/// One of the three widest `bits`-bit NTT primes for N.
fn pick_prime(rng: &mut SplitMix64, bits: u32, n: usize) -> Result<u64, String> {
    let qs = polymul::params::ntt_primes(bits, n, 3).map_err(s)?;
    Ok(qs[rng.below(qs.len() as u64) as usize])
}

/// A drawn NTT case: parameters, plan options, batch and its name.
struct NttDraw<W: Coeff> {
    params: NttParams<W>,
    opts: PlanOptions,
    log_n: u32,
    batch: usize,
    what: String,
}

fn draw_ntt<W: Coeff>(rng: &mut SplitMix64) -> Result<NttDraw<W>, (String, String)> {
    let variants = super::variants();
    let (tag, mut opts) = variants[rng.below(variants.len() as u64) as usize].clone();
    opts.reduction = Reduction::ALL[rng.below(Reduction::ALL.len() as u64) as usize];
    let log_n = 1 + rng.below(17) as u32;
    let n = 1usize << log_n;
    let max_bits = opts.reduction.max_bits(W::BITS).min(if W::BITS == 32 { 30 } else { 62 });
    let bits = random_bits(rng, log_n, max_bits);
    let batch = 1 + rng.below(if log_n <= 12 { 8 } else { 4 }) as usize;
    // The lazy kernels run whole transforms only (no fused polymul).
    opts.fused_polymul = log_n >= 2 && rng.below(3) == 0 && !super::lazy_kernel(opts.kernel);
    if opts.kernel != NttKernel::Radix2Global && rng.below(3) == 0 {
        opts.tile_bytes = Some(1024 << rng.below(7)); // 1 KiB … 64 KiB
    }
    let mut what = format!(
        "ntt {tag} {} u{} {bits}b N=2^{log_n} batch {batch}{}{}",
        opts.reduction,
        W::BITS,
        if opts.fused_polymul { " fused" } else { "" },
        opts.tile_bytes.map(|b| format!(" tile {b}")).unwrap_or_default()
    );
    let params = (|| {
        let q = pick_prime(rng, bits, n)?;
        what.push_str(&format!(" q={q}"));
        NttParams::<W>::new(n, q).map_err(s)
    })();
    match params {
        Ok(params) => Ok(NttDraw { params, opts, log_n, batch, what }),
        Err(e) => Err((what, e)),
    }
}

fn ntt_case<W: Coeff>(gpu: &Gpu, rng: &mut SplitMix64) -> Case {
    let NttDraw { params: p, opts, log_n, batch, what } = match draw_ntt::<W>(rng) {
        Ok(d) => d,
        Err((what, e)) => return (what, Err(e)),
    };
    let n = 1usize << log_n;
    let res = (|| {
        let plan = match NttPlan::with_options(gpu, p.clone(), opts) {
            Ok(plan) => plan,
            // Configurations a plan refuses by design: the 2D split below
            // N = 4, a tile below one polynomial's need or above the device's.
            Err(polymul::Error::InvalidN { .. } | polymul::Error::BadTile { .. }) => {
                return Err("skip".into());
            }
            Err(e) => return Err(s(e)),
        };
        let qw = p.q();
        let len = n * batch;
        let (a, b) = (inputs(rng, len, qw), inputs(rng, len, qw));
        let got = plan.polymul(&a, &b).map_err(s)?;
        eq("polymul vs CPU", &got, &emulation::polymul_with(&p, opts.reduction, &a, &b).map_err(s)?)?;
        if log_n <= NAIVE_MAX_LOG_N {
            eq("polymul vs naive", &got, &naive(n, &a, &b, qw)?)?;
        }
        if !opts.fused_polymul {
            let fa = forward_host(&plan, &a).map_err(s)?;
            let mut want = a.clone();
            emulation::forward_with(&p, opts.reduction, &mut want).map_err(s)?;
            eq("forward vs CPU", &fa, &want)?;
            eq("inverse(forward(a))", &inverse_host(&plan, &fa).map_err(s)?, &a)?;
            let fb = forward_host(&plan, &b).map_err(s)?;
            let fab = forward_host(&plan, &add_mod(&a, &b, qw)).map_err(s)?;
            eq("forward(a+b) vs forward(a)+forward(b)", &fab, &add_mod(&fa, &fb, qw))?;
        }
        Ok(())
    })();
    skip_or(what, res)
}

fn rns_case<W: Coeff>(gpu: &Gpu, rng: &mut SplitMix64) -> Case {
    let variants = super::variants();
    let (tag, mut opts) = variants[rng.below(variants.len() as u64) as usize].clone();
    opts.fused_polymul = rng.below(3) == 0 && !super::lazy_kernel(opts.kernel);
    let log_n = 2 + rng.below(15) as u32;
    let n = 1usize << log_n;
    let max_bits = if W::BITS == 32 { 30 } else { 62 };
    let bits = random_bits(rng, log_n, max_bits);
    let towers = 1 + rng.below(5) as usize;
    let batch = 1 + rng.below(3) as usize;
    let what = format!(
        "rns {tag}{} u{} {towers}x{bits}b N=2^{log_n} batch {batch}",
        if opts.fused_polymul { " fused" } else { "" },
        W::BITS
    );
    let basis = match RnsBasis::<W>::new(n, bits, towers) {
        Ok(b) => b,
        Err(e) => return (what, Err(s(e))),
    };
    let res = (|| {
        let plan = match RnsPlan::with_options(gpu, &basis, opts) {
            Ok(plan) => plan,
            Err(polymul::Error::InvalidN { .. }) => return Err("skip".into()),
            Err(e) => return Err(s(e)),
        };
        let len = n * batch;
        let mut a = Vec::with_capacity(len * towers);
        let mut b = Vec::with_capacity(len * towers);
        for p in basis.towers() {
            a.extend(inputs(rng, len, p.q()));
            b.extend(inputs(rng, len, p.q()));
        }
        let got = plan.polymul(&a, &b).map_err(s)?;
        eq("polymul vs CPU", &got, &emulation::rns_polymul(&basis, &a, &b).map_err(s)?)?;
        if log_n <= 9 && batch == 1 {
            let (ba, bb) = (basis.from_residues(&a).map_err(s)?, basis.from_residues(&b).map_err(s)?);
            let big = cpu::negacyclic_naive_big(&ba, &bb, basis.modulus()).map_err(s)?;
            if basis.from_residues(&got).map_err(s)? != big {
                return Err("CRT of the GPU product != big-integer product mod Q".into());
            }
        }
        if !opts.fused_polymul {
            let mut d = plan.upload(&a).map_err(s)?;
            plan.forward(&mut d).map_err(s)?;
            let fa = gpu.download(&d).map_err(s)?;
            let mut want = a.clone();
            for (i, p) in basis.towers().iter().enumerate() {
                emulation::forward(p, &mut want[i * len..(i + 1) * len]).map_err(s)?;
            }
            eq("forward vs CPU", &fa, &want)?;
            plan.inverse(&mut d).map_err(s)?;
            eq("inverse(forward(a))", &gpu.download(&d).map_err(s)?, &a)?;
        }
        Ok(())
    })();
    skip_or(what, res)
}

fn dgt_case<W: Coeff>(gpu: &Gpu, rng: &mut SplitMix64) -> Case {
    let log_n = 2 + rng.below(16) as u32;
    let (n, log_m) = (1usize << log_n, log_n - 1);
    let max_bits = if W::BITS == 32 { 30 } else { 62 };
    let bits = random_bits(rng, log_n, max_bits);
    let towers = 1 + rng.below(3) as usize;
    let batch = 1 + rng.below(3) as usize;
    let cfgs: Vec<DgtConfig> =
        DgtConfig::all(log_m, 5).into_iter().filter(|c| c.passes(log_m).is_ok()).collect();
    let cfg = if cfgs.is_empty() {
        DgtConfig::default_for(log_m)
    } else {
        cfgs[rng.below(cfgs.len() as u64) as usize]
    };
    let what = format!("dgt {cfg} u{} {towers}x{bits}b N=2^{log_n} batch {batch}", W::BITS);
    let params = match dgt_params::<W>(bits, n, towers) {
        Ok(p) => p,
        Err(e) => return (what, Err(e)),
    };
    let res = (|| {
        let plan = DgtPlan::with_towers(gpu, &params, cfg).map_err(s)?;
        let len = n * batch;
        let mut a = Vec::with_capacity(len * towers);
        let mut b = Vec::with_capacity(len * towers);
        for p in &params {
            a.extend(inputs(rng, len, p.p()));
            b.extend(inputs(rng, len, p.p()));
        }
        let got = plan.polymul(&a, &b).map_err(s)?;
        let fa = dgt_forward_host(&plan, &a).map_err(s)?;
        let fb = dgt_forward_host(&plan, &b).map_err(s)?;
        let mut sum = Vec::with_capacity(a.len());
        let mut fsum = Vec::with_capacity(a.len());
        for (i, p) in params.iter().enumerate() {
            let r = i * len..(i + 1) * len;
            let want = emulation::dgt::polymul(p, &cfg, &a[r.clone()], &b[r.clone()]).map_err(s)?;
            eq("polymul vs CPU", &got[r.clone()], &want)?;
            if log_n <= NAIVE_MAX_LOG_N {
                eq("polymul vs naive", &got[r.clone()], &naive(n, &a[r.clone()], &b[r.clone()], p.p())?)?;
            }
            let mut wf = a[r.clone()].to_vec();
            emulation::dgt::forward(p, &cfg, &mut wf).map_err(s)?;
            eq("forward vs CPU", &fa[r.clone()], &wf)?;
            sum.extend(add_mod(&a[r.clone()], &b[r.clone()], p.p()));
            fsum.extend(add_mod(&fa[r.clone()], &fb[r], p.p()));
        }
        eq("forward(a+b) vs forward(a)+forward(b)", &dgt_forward_host(&plan, &sum).map_err(s)?, &fsum)?;
        let mut d = plan.upload(&a).map_err(s)?;
        let f = plan.forward(&mut d).map_err(s)?;
        plan.inverse(f).map_err(s)?;
        eq("inverse(forward(a))", &gpu.download(&d).map_err(s)?, &a)
    })();
    skip_or(what, res)
}

fn dgt_params<W: Coeff>(bits: u32, n: usize, towers: usize) -> Result<Vec<DgtParams<W>>, String> {
    let ps = dgt::dgt_primes(bits, n, towers).map_err(s)?;
    ps.iter().map(|&p| DgtParams::new(n, p)).collect::<polymul::Result<_>>().map_err(s)
}

/// A configuration the plan refuses by design passes as "skipped" (named).
fn skip_or(what: String, res: Result<(), String>) -> Case {
    match res {
        Err(e) if e == "skip" => (format!("{what} (refused by design: typed error, skipped)"), Ok(())),
        r => (what, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every width `random_bits` can draw holds the primes the cases ask
    /// for, for every N, word and reduction: no case fails or is skipped
    /// for want of parameters.
    #[test]
    fn every_drawable_width_has_parameters() {
        for word in [32u32, 64] {
            let top = if word == 32 { 30 } else { 62 };
            for r in Reduction::ALL {
                let max_bits = r.max_bits(word).min(top);
                for log_n in 1..=17u32 {
                    let n = 1usize << log_n;
                    let lo = (log_n + 10).clamp(20, max_bits);
                    for bits in [lo, max_bits] {
                        polymul::params::ntt_primes(bits, n, 3)
                            .unwrap_or_else(|e| panic!("ntt u{word} {r} {bits}b N=2^{log_n}: {e}"));
                    }
                }
            }
            for log_n in 2..=17u32 {
                let n = 1usize << log_n;
                let lo = (log_n + 10).clamp(20, top);
                for bits in [lo, top] {
                    if log_n <= 16 {
                        let ok = if word == 32 {
                            RnsBasis::<u32>::new(n, bits, 5).map(|_| ())
                        } else {
                            RnsBasis::<u64>::new(n, bits, 5).map(|_| ())
                        };
                        ok.unwrap_or_else(|e| panic!("rns u{word} 5x{bits}b N=2^{log_n}: {e}"));
                    }
                    let ok = if word == 32 {
                        dgt_params::<u32>(bits, n, 3).map(|_| ())
                    } else {
                        dgt_params::<u64>(bits, n, 3).map(|_| ())
                    };
                    ok.unwrap_or_else(|e| panic!("dgt u{word} 3x{bits}b N=2^{log_n}: {e}"));
                }
            }
        }
    }

    /// The same seed draws the same cases (replays are exact).
    #[test]
    fn draws_are_reproducible() {
        for seed in 0..50u64 {
            let a = draw_ntt::<u64>(&mut SplitMix64::new(seed)).map(|d| d.what).unwrap_or_else(|e| e.0);
            let b = draw_ntt::<u64>(&mut SplitMix64::new(seed)).map(|d| d.what).unwrap_or_else(|e| e.0);
            assert_eq!(a, b);
        }
    }

    /// The edge inputs stay below q and the sum helper reduces.
    #[test]
    fn inputs_below_q_and_sums_reduce() {
        let mut rng = SplitMix64::new(5);
        let q = (1u64 << 61) - 1;
        for _ in 0..60 {
            let a = inputs::<u64>(&mut rng, 64, q);
            assert!(a.iter().all(|&x| x < q));
            assert!(
                add_mod(&a, &a, q).iter().zip(&a).all(|(&s2, &x)| s2 == ((x as u128 * 2) % q as u128) as u64)
            );
        }
    }
}
