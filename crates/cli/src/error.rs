//! One-line error messages and exit codes.
//!
//! Every failure of the tool becomes a [`CliError`]: the message `main`
//! prints as `polymul: <message>` on one line of stderr, and the exit code —
//! [`USAGE`] (2) for bad arguments or bad input files, [`RUNTIME`] (1) for
//! failures of the machine (no GPU, CUDA errors, out of GPU memory, a file
//! that cannot be written).

use std::fmt;

/// Exit code for bad arguments and bad input (as clap uses for usage errors).
pub const USAGE: u8 = 2;
/// Exit code for failures at run time: no GPU, CUDA, out of memory, writing.
pub const RUNTIME: u8 = 1;

/// A failure: what `main` prints after `polymul: `, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// The exit code: [`USAGE`] or [`RUNTIME`].
    pub code: u8,
    /// What is wrong and what to do, on one line.
    pub message: String,
}

impl CliError {
    /// Bad arguments or bad input (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self { code: USAGE, message: message.into() }
    }

    /// A failure at run time (exit code 1).
    pub fn runtime(message: impl Into<String>) -> Self {
        Self { code: RUNTIME, message: message.into() }
    }

    /// The same error with `context` (a file name, a subject) in front.
    pub fn context(mut self, context: impl fmt::Display) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// The message as `main` prints it: one line, whatever the parts held.
    pub fn line(&self) -> String {
        let one: Vec<&str> = self.message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        format!("polymul: {}", one.join("; "))
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line())
    }
}

impl From<polymul::Error> for CliError {
    /// The library's message (it already says what to do), classified: the
    /// machine's failures exit with 1, everything about the arguments or the
    /// input files with 2.
    fn from(e: polymul::Error) -> Self {
        use polymul::Error as E;
        match &e {
            E::NoGpu { detail } => Self::runtime(format!(
                "no CUDA GPU available ({detail}); pass --cpu to run on the CPU instead"
            )),
            E::NoSuchDevice { .. }
            | E::NoPtxForDevice { .. }
            | E::OutOfDeviceMemory { .. }
            | E::Cuda { .. }
            | E::CudaCode { .. }
            | E::FusedPlanTransform => Self::runtime(e.to_string()),
            // A file that cannot be read is a bad argument; one that cannot
            // be written is a failure of the machine (full disk, permissions).
            E::Io { during, .. } if *during == "reading" => Self::usage(e.to_string()),
            E::Io { .. } => Self::runtime(e.to_string()),
            // The library names its own API where a command line user wants
            // the command.
            _ => Self::usage(
                e.to_string()
                    .replace("polymul::params::ntt_primes", "`polymul params --n N --bits B`")
                    .replace("polymul::dgt::dgt_primes", "`polymul params --dgt --n N --bits B`"),
            ),
        }
    }
}

impl From<polymul_npy::Error> for CliError {
    /// The reader's and writer's message: a file that cannot be read or is
    /// not a usable array is a bad argument (exit code 2); one that cannot
    /// be written is a failure of the machine (1).
    fn from(e: polymul_npy::Error) -> Self {
        match &e {
            polymul_npy::Error::Io { during, .. } if *during != "reading" => Self::runtime(e.to_string()),
            _ => Self::usage(e.to_string()),
        }
    }
}

/// Result of the tool's functions.
pub type Result<T, E = CliError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_single_and_prefixed() {
        let e = CliError::usage("first\n  second\n").context("a.npy");
        assert_eq!(e.line(), "polymul: a.npy: first; second");
        assert_eq!(e.code, USAGE);
    }

    #[test]
    fn library_errors_are_classified() {
        let no_gpu: CliError = polymul::Error::NoGpu { detail: "no driver".into() }.into();
        assert_eq!(no_gpu.code, RUNTIME);
        assert!(no_gpu.message.contains("--cpu"));
        let bad_n: CliError = polymul::Error::InvalidN { n: 3, min: 2, max: 1 << 24 }.into();
        assert_eq!(bad_n.code, USAGE);
        let not_prime: CliError = polymul::Error::NotPrime { q: 15 }.into();
        assert!(not_prime.message.contains("polymul params"), "{}", not_prime.message);
    }
}
