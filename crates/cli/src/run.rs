//! `ntt`, `intt` and `mul`: read the inputs, resolve the modulus, check the
//! coefficients, run on the GPU or the CPU, write the result.
//!
//! The modulus is one prime (`--q Q`, or `--bits B`: the largest `B`-bit
//! NTT-friendly prime for the file's N) or an RNS basis of `K` primes
//! (`--q Q1,...,QK`, or `--towers K --bits B`: [`RnsBasis::new`]). With `K`
//! towers an array of `K · batch` rows is **tower-major**: rows
//! `t·batch .. (t+1)·batch` hold the residues modulo prime `t` of the
//! batch's polynomials ([`RnsBasis::to_residues`] order), and the result has
//! the same layout.

use std::path::PathBuf;

use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
use polymul::kernels::arith::{Barrett4, ModMul};
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, Gpu, NttParams, NttPlan, cpu};
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
    /// `--cpu`: run the kernels' code on the CPU instead of a GPU.
    pub cpu: bool,
    /// `--out`.
    pub out: PathBuf,
}

/// The parameters a run computes with.
enum Moduli<W: Coeff> {
    /// One NTT prime.
    Single(NttParams<W>),
    /// RNS towers of NTT primes.
    Rns(RnsBasis<W>),
    /// DGT primes (one or several towers).
    Dgt(Vec<DgtParams<W>>),
}

impl<W: Coeff> Moduli<W> {
    fn primes(&self) -> Vec<u64> {
        match self {
            Moduli::Single(p) => vec![p.q().as_u64()],
            Moduli::Rns(b) => b.primes(),
            Moduli::Dgt(t) => t.iter().map(|p| p.p().as_u64()).collect(),
        }
    }
}

/// Runs `job`: the result is at `job.out`, or nothing is written and the
/// error says why.
///
/// # Errors
/// Bad files, shapes, moduli or coefficients (exit code 2); no GPU without
/// `--cpu`, CUDA failures, an output that cannot be written (exit code 1).
pub fn run(job: &Job) -> Result<()> {
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
    let moduli = resolve::<W>(job, n)?;
    let primes = moduli.primes();
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
        check_reduced(&moduli, data).map_err(|e| reduced_error(e, input, towers))?;
    }

    // Only now, with valid inputs, look for the GPU: no silent fallback.
    let gpu = if job.cpu { None } else { Some(Gpu::new()?) };
    let result = compute(job.op, &moduli, gpu.as_ref(), &words)?;
    io::write(&job.out, &first.shape, result)
}

/// The parameters for `n` and words `W` from the command line.
fn resolve<W: Coeff>(job: &Job, n: usize) -> Result<Moduli<W>> {
    let max_bits = Barrett4::<W>::MAX_BITS;
    let word_hint = |e: polymul::Error| {
        let wide = matches!(e, polymul::Error::ModulusTooWide { .. });
        let err = CliError::from(e);
        if wide && W::BITS == 32 {
            CliError {
                message: format!("{} (this run computes on 32-bit words: pass --word 64)", err.message),
                ..err
            }
        } else {
            err
        }
    };
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
    if let ModulusSpec::Primes(primes) = &job.modulus {
        let max = polymul::params::MAX_PRIME_COUNT;
        if primes.len() > max {
            return Err(polymul::Error::TooManyPrimes { wanted: primes.len(), max }.into());
        }
        let mut seen = std::collections::HashSet::with_capacity(primes.len());
        if let Some(&q) = primes.iter().find(|&&q| !seen.insert(q)) {
            return Err(polymul::Error::DuplicatePrime { q }.into());
        }
    }
    if let ModulusSpec::Bits { towers: Some(0), .. } = job.modulus {
        return Err(CliError::usage("--towers must be at least 1"));
    }
    Ok(match (&job.modulus, job.op) {
        (ModulusSpec::Primes(primes), Op::MulDgt) => Moduli::Dgt(
            primes
                .iter()
                .map(|&p| DgtParams::new(n, p))
                .collect::<polymul::Result<_>>()
                .map_err(word_hint)?,
        ),
        (&ModulusSpec::Bits { bits, towers }, Op::MulDgt) => {
            let primes = dgt::dgt_primes(bits, n, towers.unwrap_or(1))?;
            Moduli::Dgt(primes.iter().map(|&p| DgtParams::new(n, p)).collect::<polymul::Result<_>>()?)
        }
        (ModulusSpec::Primes(primes), _) if primes.len() == 1 => {
            Moduli::Single(NttParams::new(n, primes[0]).map_err(word_hint)?)
        }
        (ModulusSpec::Primes(primes), _) => Moduli::Rns(RnsBasis::from_primes(n, primes).map_err(word_hint)?),
        (&ModulusSpec::Bits { bits, towers: None }, _) => {
            Moduli::Single(NttParams::with_prime_bits(n, bits)?)
        }
        (&ModulusSpec::Bits { bits, towers: Some(k) }, _) => Moduli::Rns(RnsBasis::new(n, bits, k)?),
    })
}

/// Checks that every tower's rows of `data` are below its prime: the
/// library's own check ([`NttParams::check_batch`]) for the NTT; the same
/// typed error for the DGT. Errors carry the flat index into `data`.
fn check_reduced<W: Coeff>(moduli: &Moduli<W>, data: &[W]) -> polymul::Result<()> {
    let towers = moduli.primes();
    let len = data.len() / towers.len();
    for (t, &q) in towers.iter().enumerate() {
        let part = &data[t * len..(t + 1) * len];
        let checked = match moduli {
            Moduli::Single(p) => p.check_batch("coefficients", part).map(drop),
            Moduli::Rns(b) => b.towers()[t].check_batch("coefficients", part).map(drop),
            Moduli::Dgt(_) => match part.iter().position(|v| v.as_u64() >= q) {
                Some(index) => Err(polymul::Error::CoefficientOutOfRange {
                    what: "coefficients",
                    index,
                    value: part[index].as_u64(),
                    q,
                }),
                None => Ok(()),
            },
        };
        checked.map_err(|e| match e {
            polymul::Error::CoefficientOutOfRange { what, index, value, q } => {
                polymul::Error::CoefficientOutOfRange { what, index: index + t * len, value, q }
            }
            e => e,
        })?;
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

/// The result of `op` on `inputs` (one array, two for the products).
fn compute<W: Coeff>(op: Op, moduli: &Moduli<W>, gpu: Option<&Gpu>, inputs: &[Vec<W>]) -> Result<Vec<W>> {
    let a = &inputs[0];
    let b = inputs.get(1).unwrap_or(a);
    Ok(match (moduli, gpu) {
        (Moduli::Single(p), None) => match op {
            Op::Ntt | Op::Intt => {
                let mut d = a.clone();
                if op == Op::Ntt {
                    cpu::forward(p, &mut d)?
                } else {
                    cpu::inverse(p, &mut d)?
                }
                d
            }
            _ => cpu::polymul(p, a, b)?,
        },
        (Moduli::Single(p), Some(gpu)) => {
            let plan = NttPlan::new(gpu, p.clone())?;
            match op {
                Op::Ntt => plan.forward_host(a)?,
                Op::Intt => plan.inverse_host(a)?,
                _ => plan.polymul(a, b)?,
            }
        }
        (Moduli::Rns(basis), None) => match op {
            Op::Ntt | Op::Intt => {
                let mut d = a.clone();
                let len = d.len() / basis.len();
                for (tower, part) in basis.towers().iter().zip(d.chunks_mut(len)) {
                    if op == Op::Ntt { cpu::forward(tower, part)? } else { cpu::inverse(tower, part)? }
                }
                d
            }
            _ => cpu::rns_polymul(basis, a, b)?,
        },
        (Moduli::Rns(basis), Some(gpu)) => {
            let plan = RnsPlan::new(gpu, basis)?;
            match op {
                Op::Ntt | Op::Intt => {
                    let mut d = plan.upload(a)?;
                    if op == Op::Ntt {
                        plan.forward(&mut d)?
                    } else {
                        plan.inverse(&mut d)?
                    }
                    gpu.download(&d)?
                }
                _ => plan.polymul(a, b)?,
            }
        }
        (Moduli::Dgt(towers), gpu) => {
            let config = DgtConfig::default_for(towers[0].log_m());
            match gpu {
                None => {
                    let len = a.len() / towers.len();
                    let mut out = Vec::with_capacity(a.len());
                    for ((p, a), b) in towers.iter().zip(a.chunks(len)).zip(b.chunks(len)) {
                        out.extend(dgt::cpu::polymul(p, &config, a, b)?);
                    }
                    out
                }
                Some(gpu) => DgtPlan::with_towers(gpu, towers, config)?.polymul(a, b)?,
            }
        }
    })
}
