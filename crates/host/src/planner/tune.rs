//! `polymul tune`: time the candidate transforms for each key on this
//! device and keep the fastest (FFTW's "measure" mode).

use super::{Choice, Decision, Modulus, Multiplier, Wisdom, WisdomEntry, WisdomKey, batch_bucket};
use crate::dgt::DgtConfig;
use crate::gpu::GpuTiming;
use crate::plan::NttKernel;
use crate::random::SplitMix64;
use crate::{Coeff, Error, Gpu, Product, Result};
use polymul_kernels::dgt::layout::MAX_LOG_UNIT;

/// What to tune.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuneSpec {
    /// `log2 N` values.
    pub log_ns: Vec<u32>,
    /// Word sizes (32, 64).
    pub words: Vec<u32>,
    /// Tower counts.
    pub towers: Vec<usize>,
    /// Polynomials per tower per call.
    pub batches: Vec<usize>,
    /// Fewer repetitions and DGT candidates.
    pub quick: bool,
}

impl Default for TuneSpec {
    fn default() -> Self {
        Self {
            log_ns: (10..=17).collect(),
            words: vec![32, 64],
            towers: vec![1, 4],
            batches: vec![1, 64],
            quick: false,
        }
    }
}

impl TuneSpec {
    /// The default keys, or with `quick` four sizes (2^10, 2^12, 2^14, 2^16)
    /// and fewer repetitions and DGT candidates.
    pub fn new(quick: bool) -> Self {
        let log_ns = if quick { vec![10, 12, 14, 16] } else { (10..=17).collect() };
        Self { quick, log_ns, ..Self::default() }
    }
}

impl TuneSpec {
    /// Checks every key before anything is timed: `log2 N` in `1..=24`
    /// ([`Error::ArgumentOutOfRange`]), words of 32 or 64 bits
    /// ([`Error::UnsupportedWord`]), at least one tower and at most
    /// [`crate::params::MAX_PRIME_COUNT`] ([`Error::EmptyBasis`],
    /// [`Error::TooManyPrimes`]), batches of 1 to `u32::MAX / N`
    /// polynomials ([`Error::NotAMultipleOfN`], [`Error::BatchTooLarge`]).
    /// [`tune`] calls it first.
    ///
    /// # Errors
    /// The first bad entry, as above.
    pub fn check(&self) -> Result<()> {
        let max_log_n = crate::params::MAX_N.ilog2();
        for &log_n in &self.log_ns {
            if !(1..=max_log_n).contains(&log_n) {
                let (value, max) = (u64::from(log_n), u64::from(max_log_n));
                return Err(Error::ArgumentOutOfRange { what: "log2 N", value, min: 1, max });
            }
        }
        if let Some(&bits) = self.words.iter().find(|&&w| w != 32 && w != 64) {
            return Err(Error::UnsupportedWord { bits });
        }
        for &towers in &self.towers {
            if towers == 0 {
                return Err(Error::EmptyBasis);
            }
            crate::params::check_count(towers)?;
        }
        for &log_n in &self.log_ns {
            let n = 1usize << log_n;
            for &batch in &self.batches {
                crate::params::check_batch_size(n, batch)?;
            }
        }
        Ok(())
    }
}

/// The NTT candidates: the automatic choice and each kernel at each radix.
fn ntt_candidates() -> Vec<Choice> {
    let mut v = vec![Choice::Ntt { kernel: NttKernel::Auto, radix: None }];
    for kernel in [NttKernel::Tiled, NttKernel::TwoD] {
        for radix in [4, 8, 16] {
            v.push(Choice::Ntt { kernel, radix: Some(radix) });
        }
    }
    // The lazy kernels (radix 8 and 16 only; sizes they do not cover are
    // refused and skipped) and the one-pass cluster kernels.
    for radix in [None, Some(8), Some(16)] {
        v.push(Choice::Ntt { kernel: NttKernel::Lazy, radix });
    }
    v.push(Choice::Ntt { kernel: NttKernel::Cluster, radix: None });
    v
}

/// The DGT candidates: the default and the batched configuration and,
/// unless `quick`, a spread of the search space (every stage split with
/// clusters 1, 4 and 16, Coala's fixed access and radix-8 register units:
/// radix 2 and 4 were never the best of the H100 search, docs/dgt.md).
fn dgt_candidates(log_m: u32, quick: bool) -> Vec<Choice> {
    let default = DgtConfig::default_for(log_m);
    let batched = DgtConfig::batched_for(log_m);
    let mut v = vec![default];
    if batched != default {
        v.push(batched);
    }
    if !quick {
        let spread = |c: &DgtConfig| {
            c.log_cluster1.is_multiple_of(2)
                && c.log_cluster2.is_multiple_of(2)
                && matches!(c.log_unit, 0 | MAX_LOG_UNIT)
        };
        let more: Vec<DgtConfig> =
            DgtConfig::all(log_m, 4).into_iter().filter(|c| spread(c) && !v.contains(c)).collect();
        v.extend(more);
    }
    v.into_iter().map(|config| Choice::Dgt { config }).collect()
}

fn bits_for(word: u32) -> u32 {
    if word == 32 { 30 } else { 62 }
}

fn time_one<W: Coeff>(gpu: &Gpu, n: usize, m: Modulus, batch: usize, w: Choice, quick: bool) -> Result<f64> {
    let d = Decision { choice: w, from_wisdom: false, measured_us: None };
    let plan = Multiplier::<W>::with_decision(gpu, n, m, d)?;
    let mut rng = SplitMix64::new(n as u64 ^ batch as u64);
    let data: Vec<W> = plan.primes().iter().flat_map(|&q| rng.coeffs(batch * n, W::from_u64(q))).collect();
    let (mut a, mut b) = (plan.upload(&data)?, plan.upload(&data)?);
    let (warm, reps) = match (batch, quick) {
        (1, false) => (10, 100),
        (1, true) => (5, 20),
        (_, false) => (3, 10),
        (_, true) => (2, 4),
    };
    let t = gpu.time(warm, reps, || plan.polymul_in_place(&mut a, &mut b))?;
    Ok(t.median_us / (batch * plan.primes().len()) as f64)
}

/// Times every candidate for every key of `spec` and returns the winners.
/// `progress(done, total, what)` is called before each key.
///
/// # Errors
/// Those of [`TuneSpec::check`] (before anything runs), and CUDA errors.
pub fn tune(gpu: &Gpu, spec: &TuneSpec, progress: &mut dyn FnMut(usize, usize, &str)) -> Result<Wisdom> {
    spec.check()?;
    let mut keys = Vec::new();
    for &log_n in &spec.log_ns {
        for &word in &spec.words {
            for &towers in &spec.towers {
                for &batch in &spec.batches {
                    keys.push((log_n, word, towers, batch));
                }
            }
        }
    }
    let mut wisdom = Wisdom::new();
    for (i, &(log_n, word, towers, batch)) in keys.iter().enumerate() {
        let what = format!("N=2^{log_n} u{word} {towers} tower(s) batch {batch}");
        progress(i, keys.len(), &what);
        let n = 1usize << log_n;
        let modulus = if towers == 1 {
            Modulus::Bits(bits_for(word))
        } else {
            Modulus::Rns { bits: bits_for(word), towers }
        };
        let mut cands = ntt_candidates();
        cands.extend(dgt_candidates(log_n - 1, spec.quick));
        let mut best: Option<(f64, Choice)> = None;
        let mut timed = 0;
        for c in cands {
            let t = match word {
                32 => time_one::<u32>(gpu, n, modulus.clone(), batch, c, spec.quick),
                _ => time_one::<u64>(gpu, n, modulus.clone(), batch, c, spec.quick),
            };
            // A candidate that does not fit (a radix or tile for this N, a
            // configuration) is skipped; device errors end the run.
            let t = match t {
                Ok(t) => t,
                Err(e @ (Error::Cuda { .. } | Error::CudaCode { .. } | Error::BadLaunch { .. })) => {
                    return Err(e);
                }
                Err(_) => continue,
            };
            timed += 1;
            if best.is_none_or(|(b, _)| t < b) {
                best = Some((t, c));
            }
        }
        if let Some((us, winner)) = best {
            let key = WisdomKey {
                device: gpu.info().name.clone(),
                log_n,
                word_bits: word,
                towers,
                batch_bucket: batch_bucket(batch),
            };
            wisdom.insert(WisdomEntry { key, winner, us_per_poly: us, candidates: timed });
        }
    }
    progress(keys.len(), keys.len(), "done");
    Ok(wisdom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dgt_candidates_are_the_default_the_batched_and_a_spread_without_repeats() {
        for log_m in [3u32, 9, 11, 15] {
            for quick in [true, false] {
                let v: Vec<DgtConfig> = dgt_candidates(log_m, quick)
                    .into_iter()
                    .map(|c| match c {
                        Choice::Dgt { config } => config,
                        other => panic!("{other:?}"),
                    })
                    .collect();
                assert_eq!(v[0], DgtConfig::default_for(log_m));
                assert!(v.contains(&DgtConfig::batched_for(log_m)), "{log_m}");
                assert!(v.iter().all(|c| c.passes(log_m).is_ok() && matches!(c.log_unit, 0 | MAX_LOG_UNIT)));
                for (i, c) in v.iter().enumerate() {
                    assert!(!v[..i].contains(c), "{log_m} {c} twice");
                }
                assert_eq!(quick, v.len() <= 2, "{log_m}: {}", v.len());
            }
        }
    }
}
