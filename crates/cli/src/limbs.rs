//! `mul` on big-integer coefficients: products modulo a large `Q` of
//! polynomials whose coefficients are given as little-endian `u64` limbs.
//!
//! The inputs are `uint64` arrays of shape `(N, L)` (one polynomial) or
//! `(batch, N, L)`, `L = ⌈log2 Q / 64⌉`: coefficient `x = Σ_j a[..., j] ·
//! 2^(64j)`, every coefficient below `Q`. `Q` is the product of RNS towers:
//! `--modulus-bits B` takes the fewest (largest) NTT-friendly primes of
//! `--bits b` bits (default 62 on 64-bit words, 30 with `--word 32`) whose
//! product has at least `B` bits; `--q Q1,...,QK --limbs` names them. The
//! result has the inputs' shape: `c = a·b mod (X^N + 1, Q)`, limbs in
//! `[0, Q)`. The product runs on the planner's [`Multiplier`] for the
//! towers' primes (the NTT: the rule, or the wisdom `polymul tune` wrote,
//! as for `mul`), through [`Multiplier::polymul_limbs`]: on the GPU with
//! several towers the conversions (RNS decomposition, CRT) run on the
//! device ([`polymul::rns::RnsPlan::polymul_limbs`]); with one tower, and
//! with `--cpu`, the same code runs on every core
//! ([`polymul::rns::RnsBasis::decompose`], [`polymul::rns::RnsBasis::reconstruct`]).

use polymul::Coeff;
use polymul::planner::{Modulus, Multiplier};
use polymul::rns::RnsBasis;
use polymul_npy::NpyArray;
use std::path::{Path, PathBuf};

use crate::error::{CliError, Result};
use crate::io::{Word, shape_str};
use crate::run::{Job, ModulusSpec, Op};

/// A limb array as `mul --limbs` reads it: shape `(N, L)` or
/// `(batch, N, L)`, nothing empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limbs {
    /// The file (named in error messages).
    pub path: PathBuf,
    /// `[N, L]` or `[batch, N, L]`.
    pub shape: Vec<usize>,
    /// The limbs, coefficient after coefficient (`L` each, least
    /// significant first).
    pub data: Vec<u64>,
}

impl Limbs {
    /// Reads the `.npy` file at `path`.
    ///
    /// # Errors
    /// The reader's errors (a file that cannot be read, is not `.npy`, has
    /// an unsupported dtype or more than three dimensions, or negative
    /// values), a 1-D or empty array: exit code 2.
    pub fn read(path: &Path) -> Result<Self> {
        Self::checked(path, NpyArray::<u64>::read_file_nd(path, 3)?)
    }

    /// Parses the bytes of a `.npy` file as [`Limbs::read`] does the file's
    /// (the reader's messages then say "in-memory .npy data"; `path` names
    /// it in the shape checks). The fuzz target `cli_limbs` comes in here.
    ///
    /// # Errors
    /// As [`Limbs::read`].
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self> {
        Self::checked(path, NpyArray::<u64>::from_bytes_nd(bytes, 3)?)
    }

    /// The shape checks of a parsed array.
    fn checked(path: &Path, a: NpyArray<u64>) -> Result<Self> {
        let shape_err = |why: &str| {
            CliError::usage(format!(
                "{} has shape {}: {why}; big-integer coefficients are uint64 limb arrays of shape (N, L) or \
                 (batch, N, L), L = ceil(log2 Q / 64) little-endian 64-bit limbs per coefficient",
                path.display(),
                shape_str(&a.shape)
            ))
        };
        if !matches!(a.shape.len(), 2 | 3) {
            return Err(shape_err("a 1-D array holds no limbs"));
        }
        if a.shape.contains(&0) {
            return Err(shape_err("it is empty"));
        }
        Ok(Limbs { path: path.to_path_buf(), shape: a.shape, data: a.data })
    }
}

/// Runs `mul` on limb arrays (`--modulus-bits`, or `--q … --limbs`).
///
/// # Errors
/// Bad files, shapes, moduli or coefficients (exit code 2); no GPU without
/// `--cpu`, CUDA failures, an output that cannot be written (exit code 1).
pub fn run(job: &Job) -> Result<()> {
    let inputs = job.inputs.iter().map(|p| Limbs::read(p)).collect::<Result<Vec<_>>>()?;
    let result = product(job, &inputs)?;
    NpyArray { shape: inputs[0].shape.clone(), data: result }.write_file_nd(&job.out, 3)?;
    Ok(())
}

/// What [`run`] computes once the two files are read: the checks (same
/// shapes, the modulus of `job.modulus` on `job.word`'s words, `L` of that
/// `Q`, every coefficient below `Q`) and the product's limbs, of the
/// inputs' shape, on the GPU or, with `job.cpu`, on the CPU backend
/// (`job.inputs` and `job.out` are not used). The fuzz target `cli_limbs`
/// calls it with `job.cpu` set.
///
/// # Errors
/// As [`run`], but for reading and writing the files.
pub fn product(job: &Job, inputs: &[Limbs]) -> Result<Vec<u64>> {
    let [first, second] = inputs else {
        return Err(CliError::usage(format!("mul takes two limb arrays, not {}", inputs.len())));
    };
    if second.shape != first.shape {
        return Err(CliError::usage(format!(
            "{} has shape {} but {} has shape {}; give two limb arrays of the same shape",
            first.path.display(),
            shape_str(&first.shape),
            second.path.display(),
            shape_str(&second.shape)
        )));
    }
    match job.word.unwrap_or(Word::W64) {
        Word::W32 => product_word::<u32>(job, first, second),
        Word::W64 => product_word::<u64>(job, first, second),
    }
}

fn product_word<W: Coeff>(job: &Job, first: &Limbs, second: &Limbs) -> Result<Vec<u64>> {
    let d = first.shape.len();
    let (n, l) = (first.shape[d - 2], first.shape[d - 1]);
    let basis = match &job.modulus {
        &ModulusSpec::ModulusBits { log_q, bits } => {
            let bits = bits.unwrap_or(if W::BITS == 32 { 30 } else { 62 });
            RnsBasis::<W>::with_modulus_bits(n, bits, log_q)?
        }
        ModulusSpec::Primes(primes) => RnsBasis::<W>::from_primes(n, primes)?,
        ModulusSpec::Bits { .. } => {
            return Err(CliError::usage("limb arrays need --modulus-bits B (or --q Q1,...,QK --limbs)"));
        }
    };
    if l != basis.limbs() {
        return Err(CliError::usage(format!(
            "{} has {l} limb(s) per coefficient (the last axis of shape {}), but Q = the product of {} \
             primes has {} bits and takes L = {} limbs; give limbs for this Q (or choose --modulus-bits \
             accordingly)",
            first.path.display(),
            shape_str(&first.shape),
            basis.len(),
            basis.modulus().bits(),
            basis.limbs()
        )));
    }
    for input in [first, second] {
        basis.check_limbs("coefficients", &input.data).map_err(|e| located(e, input, n))?;
    }
    let (a, b) = (&first.data, &second.data);
    let primes = basis.primes();
    let m = if job.cpu {
        Multiplier::<W>::cpu_with_decision(
            n,
            Modulus::Primes(primes),
            crate::run::family_default(Op::Mul, n),
        )?
    } else {
        let wisdom = if job.wisdom { crate::run::load_wisdom()? } else { None };
        let gpu = polymul_bench::env_options::gpu()?;
        let batch = a.len() / (n * l);
        crate::run::gpu_multiplier::<W>(Op::Mul, &gpu, n, primes, batch, wisdom.as_ref())?
    };
    Ok(m.polymul_limbs(a, b)?)
}

/// A coefficient not below `Q`, located in the file.
fn located(e: polymul::Error, input: &Limbs, n: usize) -> CliError {
    let polymul::Error::BigCoefficientOutOfRange { index, bits, q_bits, .. } = e else {
        return CliError::from(e).context(input.path.display());
    };
    let at =
        if input.shape.len() == 2 { format!("[{index}]") } else { format!("[{}, {}]", index / n, index % n) };
    CliError::usage(format!(
        "{}{at} has {bits} bits and is not below Q ({q_bits} bits); reduce the coefficients modulo Q first",
        input.path.display()
    ))
}
