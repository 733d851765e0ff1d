//! The `polymul` binary: the clap types of its command line, and the
//! dispatch to [`polymul_cli`]. The subcommands, the `.npy` conventions and
//! the exit codes are described in the library's documentation and in
//! `docs/cli.md`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgGroup, Args, Parser, Subcommand};

use polymul_cli::error::CliError;
use polymul_cli::io::Word;
use polymul_cli::run::{self, Job, ModulusSpec, Op};
use polymul_cli::{bench, params};

const NPY_HELP: &str = "\
.npy conventions:
  A 1-D array (N,) is one polynomial, a 2-D array (batch, N) a batch, one polynomial per row;
  N is a power of two. Inputs may be uint64, uint32 or non-negative int64/int32; every
  coefficient must be below q. The output has the input's shape, as uint32 or uint64 words.
  RNS (--towers K --bits B, or --q with K primes): the array is tower-major, shape
  (K*batch, N): rows t*batch..(t+1)*batch hold the residues modulo prime t (NumPy:
  np.concatenate([a % q for q in primes])). The result has the same layout.";

/// The command line: one subcommand.
#[derive(Debug, Parser)]
#[command(
    name = "polymul",
    version,
    about = "Negacyclic polynomial arithmetic in Z_q[X]/(X^N + 1) on an NVIDIA GPU, or on the CPU.",
    long_about = "Negacyclic polynomial arithmetic in Z_q[X]/(X^N + 1), the core of lattice-based \
                  homomorphic encryption, on an NVIDIA GPU (kernels written in Rust) or on the CPU \
                  (with --cpu, or by itself when there is no GPU). Coefficient arrays are NumPy .npy files.",
    after_help = "Examples:\n  polymul params --n 4096 --bits 30 --count 3\n  \
                  polymul mul a.npy b.npy --bits 62 --out c.npy\n  \
                  polymul mul a_limbs.npy b_limbs.npy --modulus-bits 1240 --out c_limbs.npy\n  \
                  polymul ntt a.npy --towers 3 --bits 62 --cpu --out a_hat.npy\n  \
                  polymul bench --quick\n\nEvery failure prints one line 'polymul: ...' on stderr and exits \
                  with 2 (bad arguments or input) or 1 (CUDA, writing; tune without a GPU)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List NTT-friendly primes (or DGT primes) for N and a bit width, with their roots.
    Params(ParamsArgs),
    /// Forward negacyclic NTT of every polynomial in a .npy file (bit-reversed output order).
    #[command(after_help = NPY_HELP)]
    Ntt(TransformArgs),
    /// Inverse negacyclic NTT (bit-reversed input order, scaled by 1/N): intt(ntt(a)) = a.
    #[command(after_help = NPY_HELP)]
    Intt(TransformArgs),
    /// Negacyclic product a·b mod (X^N + 1, q) of two .npy files, row by row.
    #[command(after_help = NPY_HELP)]
    Mul(MulArgs),
    /// Run the benchmark suite (polymul-bench) and print its tables.
    Bench(BenchArgs),
    /// Time the NTT and DGT candidates on this GPU and write the wisdom file that ntt, intt and mul
    /// read.
    Tune(TuneArgs),
}

#[derive(Debug, Args)]
struct TuneArgs {
    /// Fewer sizes, repetitions and DGT candidates.
    #[arg(long)]
    quick: bool,
    /// The wisdom file (default: $POLYMUL_WISDOM, else ~/.cache/polymul/wisdom.json).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct ParamsArgs {
    /// Polynomial length N (a power of two).
    #[arg(long, value_name = "N")]
    n: usize,
    /// Bit width of the primes (20 to 62).
    #[arg(long, value_name = "B")]
    bits: u32,
    /// How many primes, largest first (1 to 100000).
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=polymul::params::MAX_PRIME_COUNT as i64))]
    count: u32,
    /// DGT primes p ≡ -1 (mod N) with their roots ξ and g instead of NTT primes q ≡ 1 (mod 2N).
    #[arg(long)]
    dgt: bool,
    /// Write the primes as JSON to FILE ('-' for stdout) instead of printing a table.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// The modulus, the word, the device and the output: common to ntt, intt and mul.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("modulus").required(true).multiple(true).args(["q", "bits", "modulus_bits"])))]
struct RunArgs {
    /// The modulus: a prime q ≡ 1 (mod 2N) (for mul --dgt: p ≡ -1 (mod N)); several comma-separated
    /// primes are RNS towers.
    #[arg(long, value_name = "Q[,Q...]", value_delimiter = ',', num_args = 1)]
    q: Vec<u64>,
    /// Use the largest B-bit NTT-friendly prime for the file's N (for mul --dgt: DGT prime; see
    /// `polymul params`).
    #[arg(long, value_name = "B", conflicts_with = "q")]
    bits: Option<u32>,
    /// mul on big integers: Q is the product of the fewest NTT-friendly primes of --bits bits (default
    /// 62, or 30 with --word 32) with at least B bits, and the inputs are uint64 limb arrays of shape
    /// (N, L) or (batch, N, L), L = ceil(log2 Q / 64) little-endian limbs per coefficient below Q.
    #[arg(long, value_name = "B", conflicts_with_all = ["q", "towers"])]
    modulus_bits: Option<u64>,
    /// mul with --q Q1,...,QK: the inputs are big-integer limb arrays modulo the product of the primes
    /// (as with --modulus-bits).
    #[arg(long, requires = "q")]
    limbs: bool,
    /// RNS: the K largest B-bit primes (needs --bits); the array holds tower-major residues,
    /// shape (K*batch, N).
    #[arg(long, value_name = "K", requires = "bits", conflicts_with = "q")]
    towers: Option<usize>,
    /// Coefficient word: 32 (moduli up to 30 bits) or 64 (up to 62) [default: the file's dtype].
    #[arg(long, value_name = "32|64", hide_possible_values = true)]
    word: Option<Word>,
    /// Run on the CPU backend even if a GPU is present (without a GPU the run does so anyway and
    /// says so on stderr).
    #[arg(long)]
    cpu: bool,
    /// Plan the GPU run by the planner's rule, without reading the wisdom file `polymul tune` wrote
    /// ($POLYMUL_WISDOM, else ~/.cache/polymul/wisdom.json).
    #[arg(long)]
    no_wisdom: bool,
    /// The output .npy file (written atomically: nothing is left on error).
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
}

#[derive(Debug, Args)]
struct TransformArgs {
    /// Input .npy file: (N,) or (batch, N).
    #[arg(value_name = "INPUT")]
    input: PathBuf,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
struct MulArgs {
    /// First factor: a .npy file, (N,) or (batch, N).
    #[arg(value_name = "A")]
    a: PathBuf,
    /// Second factor: a .npy file of the same shape.
    #[arg(value_name = "B")]
    b: PathBuf,
    /// Multiply through Coala's DGT instead of the NTT (the modulus must then be a DGT prime;
    /// --bits picks one).
    #[arg(long)]
    dgt: bool,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Args)]
struct BenchArgs {
    /// Fewer sizes and repetitions.
    #[arg(long)]
    quick: bool,
    /// Benchmark the CPU path even if a GPU is present (without a GPU the suite does so anyway).
    #[arg(long)]
    cpu: bool,
    /// Write the result tables, CSV files and figures to DIR.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run only these sections of the GPU benchmark (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = bench::SECTIONS)]
    only: Vec<String>,
}

impl RunArgs {
    fn job(&self, op: Op, inputs: Vec<PathBuf>) -> Job {
        let modulus = match (self.modulus_bits, self.bits) {
            (Some(log_q), bits) => ModulusSpec::ModulusBits { log_q, bits },
            (None, Some(bits)) => ModulusSpec::Bits { bits, towers: self.towers },
            (None, None) => ModulusSpec::Primes(self.q.clone()),
        };
        Job {
            op,
            inputs,
            modulus,
            word: self.word,
            cpu: self.cpu,
            wisdom: !self.no_wisdom,
            out: self.out.clone(),
            limbs: self.limbs,
        }
    }
}

fn dispatch(command: Command) -> Result<u8, CliError> {
    match command {
        Command::Params(a) => {
            params::run(a.n, a.bits, a.count as usize, a.dgt, a.json.as_deref()).map(|()| 0)
        }
        Command::Ntt(a) => run::run(&a.run.job(Op::Ntt, vec![a.input])).map(|()| 0),
        Command::Intt(a) => run::run(&a.run.job(Op::Intt, vec![a.input])).map(|()| 0),
        Command::Mul(a) => {
            let op = if a.dgt { Op::MulDgt } else { Op::Mul };
            run::run(&a.run.job(op, vec![a.a, a.b])).map(|()| 0)
        }
        Command::Bench(a) => {
            bench::run(&bench::BenchJob { quick: a.quick, cpu: a.cpu, out: a.out, only: a.only })
        }
        Command::Tune(a) => polymul_cli::tune::run(a.quick, a.out),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{}", e.line());
            ExitCode::from(e.code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every section of the bench runner is accepted by `--only` (alone
    /// and all together), and a name that is none is refused.
    #[test]
    fn every_bench_section_is_accepted() {
        use clap::Parser;
        for s in polymul_bench::SECTIONS {
            let r = Cli::try_parse_from(["polymul", "bench", "--only", s]);
            assert!(r.is_ok(), "--only {s}: {:?}", r.err());
        }
        let all = polymul_bench::SECTIONS.join(",");
        assert!(Cli::try_parse_from(["polymul", "bench", "--only", &all]).is_ok());
        assert!(Cli::try_parse_from(["polymul", "bench", "--only", "no-such-section"]).is_err());
    }
}
