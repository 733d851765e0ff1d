//! `ntt`, `intt` and `mul`: read the inputs, resolve the modulus, check the
//! coefficients, run on the GPU or the CPU, write the result.
//!
//! The modulus is one prime (`--q Q`, or `--bits B`: the largest `B`-bit
//! NTT-friendly prime for the file's N) or an RNS basis of `K` primes
//! (`--q Q1,...,QK`, or `--towers K --bits B`: [`polymul::rns::RnsBasis::new`]). With `K`
//! towers an array of `K · batch` rows is **tower-major**: rows
//! `t·batch .. (t+1)·batch` hold the residues modulo prime `t` of the
//! batch's polynomials ([`polymul::rns::RnsBasis::to_residues`] order), and the result has
//! the same layout.
//!
//! The transform is chosen only by the planner ([`polymul::planner`]): the
//! command fixes the transform family (the NTT for `ntt`, `intt` and `mul`;
//! the DGT for `mul --dgt`, whose primes only the DGT takes) and the wisdom
//! `polymul tune` wrote ([`Wisdom::load_default`]; not with `--no-wisdom`)
//! picks the kernel and radix, or the DGT's configuration, for this device,
//! N, word, towers and batch; without wisdom for the key, the planner's
//! rule (or the DGT's default configuration). The primes are resolved and
//! validated once, before the GPU is touched, by the planner's CPU plan for
//! the family ([`Multiplier::cpu_with_decision`]), and the coefficients are
//! checked against them. On the GPU the primes go to the planner as
//! [`Modulus::Primes`]: one [`Multiplier`]
//! ([`Multiplier::with_decision_and_options`], with the developers'
//! `POLYMUL_*` switches) runs the transform or the product; on the CPU the
//! CPU plan does. The result does not depend on the choice: every plan
//! computes the same words.

use std::path::PathBuf;

use polymul::dgt::{self, DgtConfig};
use polymul::expert::kernels::arith::{Barrett4, ModMul};
use polymul::planner::{self, Choice, Decision, Modulus, Multiplier, Wisdom, WisdomKey};
use polymul::prelude::*;
use polymul::{Coeff, Gpu};
use polymul_npy::NpyWord;

use crate::error::{CliError, Result};
use crate::io::{self, Input, Word};

/// The operation a run performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Forward negacyclic NTT (normal order in, bit-reversed out).
    Ntt,
    /// Inverse negacyclic NTT (bit-reversed in, normal out, scaled by `1/N`).
    Intt,
    /// Negacyclic product of two inputs, row by row, through the NTT.
    Mul,
    /// Negacyclic product through Coala's DGT.
    MulDgt,
}

/// How the command line gives the modulus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModulusSpec {
    /// `--q Q[,Q...]`: explicit primes; several are RNS towers.
    Primes(Vec<u64>),
    /// `--bits B [--towers K]`: the largest `B`-bit primes for the file's N;
    /// `towers: Some(K)` asks for an RNS basis of `K` towers.
    Bits {
        /// Prime width.
        bits: u32,
        /// `--towers K`.
        towers: Option<usize>,
    },
    /// `--modulus-bits B [--bits b]`: big-integer limbs modulo the product
    /// of the fewest `b`-bit primes with at least `B` bits ([`crate::limbs`]).
    ModulusBits {
        /// Bits of Q at least.
        log_q: u64,
        /// Prime width (default: 62 on 64-bit words, 30 on 32-bit).
        bits: Option<u32>,
    },
}

/// One `ntt`, `intt` or `mul` run.
#[derive(Debug, Clone)]
pub struct Job {
    /// What to compute.
    pub op: Op,
    /// One input file (two for `mul`).
    pub inputs: Vec<PathBuf>,
    /// The modulus.
    pub modulus: ModulusSpec,
    /// `--word`; `None`: the files' dtype width.
    pub word: Option<Word>,
    /// `--cpu`: run on the CPU backend even if there is a GPU (without a
    /// GPU the run does so anyway, with a note on stderr).
    pub cpu: bool,
    /// Read the wisdom file ([`Wisdom::load_default`]) to plan the GPU run;
    /// `false` (`--no-wisdom`): the planner's rule. The CPU path reads none.
    pub wisdom: bool,
    /// `--out`.
    pub out: PathBuf,
    /// `--limbs` (or `--modulus-bits`): the inputs are big-integer limb
    /// arrays ([`crate::limbs`]).
    pub limbs: bool,
}

/// Runs `job`: the result is at `job.out`, or nothing is written and the
/// error says why.
///
/// # Errors
/// Bad files, shapes, moduli or coefficients (exit code 2); CUDA failures,
/// an output that cannot be written (exit code 1). Without a GPU (and
/// without `--cpu`) the run takes the CPU backend and says so on stderr.
pub fn run(job: &Job) -> Result<()> {
    if job.limbs || matches!(job.modulus, ModulusSpec::ModulusBits { .. }) {
        if job.op != Op::Mul {
            return Err(CliError::usage(
                "--modulus-bits and --limbs (big-integer limb arrays) work with mul (without --dgt) only",
            ));
        }
        return crate::limbs::run(job);
    }
    let inputs = job.inputs.iter().map(|p| Input::read(p)).collect::<Result<Vec<_>>>()?;
    let first = &inputs[0];
    if let Some(other) = inputs.iter().find(|i| i.shape != first.shape) {
        return Err(CliError::usage(format!(
            "{} has shape {} but {} has shape {}; mul multiplies the two arrays row by row, so give two \
             arrays of the same shape",
            first.path.display(),
            first.shape_str(),
            other.path.display(),
            other.shape_str()
        )));
    }
    // A mix of a 32-bit and a 64-bit file computes on 64-bit words.
    let word =
        job.word.unwrap_or_else(|| Word::from_bits(inputs.iter().map(|i| i.file_bits).max().unwrap_or(64)));
    match word {
        Word::W32 => run_word::<u32>(job, inputs),
        Word::W64 => run_word::<u64>(job, inputs),
    }
}

fn run_word<W: Coeff + NpyWord>(job: &Job, mut inputs: Vec<Input>) -> Result<()> {
    let first = &inputs[0];
    let n = first.cols();
    let (min, max) = if job.op == Op::MulDgt {
        (dgt::MIN_N, dgt::MAX_N)
    } else {
        (polymul::params::MIN_N, polymul::params::MAX_N)
    };
    let shape_context = || format!("{} has shape {}", first.path.display(), first.shape_str());
    if !(n.is_power_of_two() && (min..=max).contains(&n)) {
        return Err(CliError::from(polymul::Error::InvalidN { n, min, max }).context(shape_context()));
    }
    let modulus = modulus::<W>(job)?;
    // The primes, validated by the planner's CPU plan for the command's
    // transform family (cheap tables), before the GPU is touched.
    let cpu = Multiplier::<W>::cpu_with_decision(n, modulus, family_default(job.op, n))
        .map_err(|e| prime_hint::<W>(e, n, job.op == Op::MulDgt))?;
    let primes = cpu.primes().to_vec();
    let towers = primes.len();
    let rows = first.rows();
    if rows == 0 {
        return Err(CliError::usage("it holds no polynomial; give at least one row").context(shape_context()));
    }
    if !rows.is_multiple_of(towers) {
        return Err(CliError::usage(format!(
            "{rows} rows are not a whole number of polynomials for {towers} RNS towers: with K towers the \
             array is tower-major, shape (K*batch, N), rows t*batch..(t+1)*batch holding the residues \
             modulo prime t"
        ))
        .context(shape_context()));
    }
    let words = inputs.iter_mut().map(Input::take_words::<W>).collect::<Result<Vec<_>>>()?;
    let first = &inputs[0];
    for (input, data) in inputs.iter().zip(&words) {
        check_reduced(&primes, data).map_err(|e| reduced_error(e, input, towers))?;
    }

    let result = if job.cpu {
        compute(job.op, &cpu, &words)?
    } else {
        // With valid inputs, the wisdom file (a broken one is an error, on
        // every machine), and only then the GPU; without one, the CPU
        // backend, said once on stderr.
        let wisdom = if job.wisdom { load_wisdom()? } else { None };
        match polymul_bench::env_options::gpu() {
            Ok(gpu) => {
                let m = gpu_multiplier::<W>(job.op, &gpu, n, primes, rows / towers, wisdom.as_ref())?;
                compute(job.op, &m, &words)?
            }
            Err(polymul::Error::NoGpu { detail }) => {
                eprintln!("polymul: note: no CUDA GPU ({detail}); running on the CPU backend");
                compute(job.op, &cpu, &words)?
            }
            Err(e) => return Err(e.into()),
        }
    };
    io::write(&job.out, &first.shape, result)
}

/// The wisdom at [`polymul::planner::default_wisdom_path`], if any: a file
/// that exists but cannot be read or parsed is an error (exit code 2).
pub(crate) fn load_wisdom() -> Result<Option<Wisdom>> {
    Wisdom::load_default().map_err(|e| {
        let err = CliError::from(e);
        CliError { message: format!("{}, or pass --no-wisdom", err.message), ..err }
    })
}

/// The planner's modulus for the command line (`--q`: the primes, one
/// tower each; `--bits B`: the largest `B`-bit prime of the command's
/// transform; `--towers K`: `K` of them), after the checks that speak in
/// the tool's terms. The primes themselves are checked by the planner.
pub(crate) fn modulus<W: Coeff>(job: &Job) -> Result<Modulus> {
    let max_bits = Barrett4::<W>::MAX_BITS;
    if let ModulusSpec::Bits { bits, .. } = job.modulus
        && bits > max_bits
        && W::BITS == 32
        && bits <= Barrett4::<u64>::MAX_BITS
    {
        return Err(CliError::usage(format!(
            "--bits {bits} needs 64-bit words, but this run computes on 32-bit words (--word 32, or a \
             uint32 input), which take primes of at most {max_bits} bits; pass --word 64"
        )));
    }
    Ok(match job.modulus {
        ModulusSpec::Primes(ref primes) => Modulus::Primes(primes.clone()),
        ModulusSpec::Bits { towers: Some(0), .. } => {
            return Err(CliError::usage("--towers must be at least 1"));
        }
        ModulusSpec::Bits { bits, towers: None } => Modulus::Bits(bits),
        ModulusSpec::Bits { bits, towers: Some(towers) } => Modulus::Rns { bits, towers },
        // `run` sends these to `crate::limbs` before resolving anything.
        ModulusSpec::ModulusBits { .. } => {
            return Err(CliError::usage("--modulus-bits works with limb arrays and mul only"));
        }
    })
}

/// A prime the library refused, with what to do about it in the tool's
/// terms: the word to pass, or the command that lists primes that fit.
pub(crate) fn prime_hint<W: Coeff>(e: polymul::Error, n: usize, dgt: bool) -> CliError {
    let max_bits = Barrett4::<W>::MAX_BITS;
    let hint = match e {
        polymul::Error::ModulusTooWide { .. } if W::BITS == 32 => {
            Some("this run computes on 32-bit words: pass --word 64".to_string())
        }
        polymul::Error::NotPrime { q }
        | polymul::Error::NotNttFriendly { q, .. }
        | polymul::Error::NotDgtFriendly { p: q, .. } => Some(format!(
            "`polymul params{} --n {n} --bits {}` lists primes that fit",
            if dgt { " --dgt" } else { "" },
            (64 - q.leading_zeros()).clamp(polymul::params::MIN_PRIME_BITS, max_bits)
        )),
        _ => None,
    };
    let err = CliError::from(e);
    match hint {
        Some(h) => CliError { message: format!("{} ({h})", err.message), ..err },
        None => err,
    }
}

/// Checks that every tower's rows of `data` are below its prime (the
/// plans' own check, made before any plan runs so that the error can name
/// the file). Errors carry the flat index into `data`.
fn check_reduced<W: Coeff>(primes: &[u64], data: &[W]) -> polymul::Result<()> {
    let len = data.len() / primes.len();
    for (t, &q) in primes.iter().enumerate() {
        let part = &data[t * len..(t + 1) * len];
        if let Some(i) = part.iter().position(|v| v.as_u64() >= q) {
            let (index, value) = (t * len + i, part[i].as_u64());
            return Err(polymul::Error::CoefficientOutOfRange { what: "coefficients", index, value, q });
        }
    }
    Ok(())
}

/// An unreduced coefficient, located in the file.
fn reduced_error(e: polymul::Error, input: &Input, towers: usize) -> CliError {
    let polymul::Error::CoefficientOutOfRange { index, value, q, .. } = e else {
        return CliError::from(e).context(input.path.display());
    };
    let n = input.cols();
    let (row, col) = (index / n, index % n);
    let at = if input.shape.len() == 1 { format!("[{col}]") } else { format!("[{row}, {col}]") };
    let tower = if towers > 1 {
        format!(" (row {row} is in RNS tower {} of {towers})", row / (input.rows() / towers))
    } else {
        String::new()
    };
    CliError::usage(format!(
        "{}{at} = {value} is not reduced modulo q = {q}{tower}; reduce the coefficients first (NumPy: arr % q)",
        input.path.display()
    ))
}

/// The GPU plan for `op`: the planner's decision for `key`, within the
/// transform family the command fixes (the DGT for `mul --dgt`, the NTT
/// otherwise; a decision of the other family gives way to that family's
/// default), with `wisdom` or by the rule.
fn decision(op: Op, key: &WisdomKey, modulus: &Modulus, n: usize, wisdom: Option<&Wisdom>) -> Decision {
    let decided = planner::decide(key, modulus, n, wisdom);
    let want_dgt = op == Op::MulDgt;
    if matches!(decided.choice, Choice::Dgt { .. }) == want_dgt {
        return decided;
    }
    family_default(op, n)
}

/// The planner's default of the transform family `op` fixes, without
/// wisdom: [`planner::rule`] (the NTT), or the DGT's default configuration
/// for `mul --dgt`.
pub(crate) fn family_default(op: Op, n: usize) -> Decision {
    let choice = if op == Op::MulDgt {
        Choice::Dgt { config: DgtConfig::default_for(n.trailing_zeros().saturating_sub(1)) }
    } else {
        planner::rule()
    };
    Decision { choice, from_wisdom: false, measured_us: None }
}

/// The GPU multiplier for `op`: [`decision`] for `primes` and `batch`
/// polynomials per tower, built with the developers' `POLYMUL_*` switches
/// ([`polymul_bench::env_options::plan_options`]).
pub(crate) fn gpu_multiplier<W: Coeff>(
    op: Op,
    gpu: &Gpu,
    n: usize,
    primes: Vec<u64>,
    batch: usize,
    wisdom: Option<&Wisdom>,
) -> Result<Multiplier<W>> {
    let modulus = Modulus::Primes(primes);
    let key = planner::wisdom_key::<W>(gpu, n, &modulus, batch);
    let decision = decision(op, &key, &modulus, n, wisdom);
    let (from_wisdom, summary) = (decision.from_wisdom, decision.summary());
    let options = polymul_bench::env_options::plan_options();
    Multiplier::<W>::with_decision_and_options(gpu, n, modulus, decision, options).map_err(|e| {
        let err = CliError::from(e);
        // The inputs are valid: a plan the wisdom file chose that cannot be
        // built (an edited file) says where it came from.
        if from_wisdom && err.code == crate::error::USAGE {
            let message = format!("the wisdom file chose {summary}: {}; pass --no-wisdom", err.message);
            CliError { message, ..err }
        } else {
            err
        }
    })
}

/// The result of `op` on `inputs` (one array, two for the products) with
/// the planner's multiplier `m`, on the GPU or the CPU (the CPU backend's
/// NTT over all cores, or the DGT's CPU code tower by tower).
fn compute<W: Coeff>(op: Op, m: &Multiplier<W>, inputs: &[Vec<W>]) -> Result<Vec<W>> {
    let a = &inputs[0];
    let b = inputs.get(1).unwrap_or(a);
    Ok(match op {
        Op::Ntt | Op::Intt => {
            let mut d = a.clone();
            if op == Op::Ntt {
                Transform::<W, [W]>::forward(m, &mut d)?
            } else {
                Transform::<W, [W]>::inverse(m, &mut d)?
            }
            d
        }
        Op::Mul | Op::MulDgt => m.polymul(a, b)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use polymul::expert::NttKernel;
    use polymul::planner::WisdomEntry;

    /// The command fixes the family; wisdom picks within it.
    #[test]
    fn wisdom_decides_within_the_commands_transform_family() {
        let n = 1 << 12;
        let key = WisdomKey { device: "GPU".into(), log_n: 12, word_bits: 64, towers: 1, batch_bucket: 0 };
        let ntt = Modulus::Primes(polymul::params::ntt_primes(62, n, 1).unwrap());
        let dgt = Modulus::Primes(dgt::dgt_primes(62, n, 1).unwrap());
        let tuned_ntt = Choice::Ntt { kernel: NttKernel::TwoD, radix: Some(8) };
        let tuned_dgt =
            Choice::Dgt { config: DgtConfig { stages1: 11, log_cluster1: 0, log_cluster2: 0, log_unit: 0 } };
        let wisdom = |winner| {
            let mut w = Wisdom::new();
            w.insert(WisdomEntry { key: key.clone(), winner, us_per_poly: 1.0, candidates: 2 });
            w
        };
        let default_dgt = Choice::Dgt { config: DgtConfig::default_for(11) };
        // No wisdom: the rule, or the DGT's default for mul --dgt.
        for op in [Op::Ntt, Op::Intt, Op::Mul] {
            assert_eq!(decision(op, &key, &ntt, n, None).choice, planner::rule());
        }
        assert_eq!(decision(Op::MulDgt, &key, &dgt, n, None).choice, default_dgt);
        // Wisdom of the command's family decides.
        for op in [Op::Ntt, Op::Intt, Op::Mul] {
            let d = decision(op, &key, &ntt, n, Some(&wisdom(tuned_ntt)));
            assert!(d.from_wisdom && d.choice == tuned_ntt, "{op:?}: {d:?}");
        }
        let d = decision(Op::MulDgt, &key, &dgt, n, Some(&wisdom(tuned_dgt)));
        assert!(d.from_wisdom && d.choice == tuned_dgt, "{d:?}");
        // Wisdom of the other family does not.
        let d = decision(Op::MulDgt, &key, &dgt, n, Some(&wisdom(tuned_ntt)));
        assert!(!d.from_wisdom && d.choice == default_dgt, "{d:?}");
        let d = decision(Op::Mul, &key, &ntt, n, Some(&wisdom(tuned_dgt)));
        assert!(!d.from_wisdom && d.choice == planner::rule(), "{d:?}");
        // N = 2: every odd prime is p ≡ −1 (mod N), so the planner would take
        // DGT wisdom for an NTT prime; ntt and intt stay NTTs.
        let key2 = WisdomKey { log_n: 1, ..key.clone() };
        let q = Modulus::Primes(vec![polymul::params::ntt_primes(30, 2, 1).unwrap()[0]]);
        let mut w = Wisdom::new();
        w.insert(WisdomEntry { key: key2.clone(), winner: tuned_dgt, us_per_poly: 1.0, candidates: 2 });
        assert!(matches!(planner::decide(&key2, &q, 2, Some(&w)).choice, Choice::Dgt { .. }));
        for op in [Op::Ntt, Op::Intt, Op::Mul] {
            assert_eq!(decision(op, &key2, &q, 2, Some(&w)).choice, planner::rule(), "{op:?}");
        }
    }
}
