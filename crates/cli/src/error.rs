//! One-line error messages and exit codes.
//!
//! Every failure of the tool becomes a [`CliError`]: the message `main`
//! prints as `polymul: <message>` on one line of stderr, and the exit code —
//! [`USAGE`] (2) for bad arguments or bad input files, [`RUNTIME`] (1) for
//! failures of the machine (no GPU, CUDA errors, out of GPU memory, a file
//! that cannot be written). A library error's code comes from its
//! [`polymul::ErrorKind`], in one function ([`exit_code`]); its message is
//! printed as the library wrote it (the library's messages name no Rust
//! API, so they read the same on the command line).

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

/// The exit code for a library error of `kind`: [`USAGE`] where the
/// arguments or the input files must change, [`RUNTIME`] where the machine
/// failed. `None` for a kind this version of the tool does not know (the
/// kinds are `#[non_exhaustive]`); [`exit_code`] makes those [`RUNTIME`].
pub fn known_exit_code(kind: polymul::ErrorKind) -> Option<u8> {
    use polymul::ErrorKind as K;
    Some(match kind {
        // Bad N, q, shapes, coefficients; a request no plan does; a wisdom
        // file that exists but is not wisdom: fix the command or the file.
        K::InvalidInput | K::Unsupported | K::Wisdom => USAGE,
        // No GPU where one is needed, CUDA errors, out of GPU memory, a
        // file that cannot be written (full disk, permissions).
        K::NoGpu | K::Device | K::OutOfMemory | K::Io => RUNTIME,
        _ => return None,
    })
}

/// The exit code for a library error of `kind` ([`known_exit_code`]; a
/// kind newer than the tool is a failure at run time).
pub fn exit_code(kind: polymul::ErrorKind) -> u8 {
    known_exit_code(kind).unwrap_or(RUNTIME)
}

impl From<polymul::Error> for CliError {
    /// The library's message (it already says what to do), with the exit
    /// code of its kind ([`exit_code`]); without a GPU, where to go instead.
    fn from(e: polymul::Error) -> Self {
        let kind = e.kind();
        let mut message = e.to_string();
        if kind == polymul::ErrorKind::NoGpu {
            message.push_str("; pass --cpu to run on the CPU instead");
        }
        Self { code: exit_code(kind), message }
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
        assert_eq!(
            (not_prime.code, not_prime.message.as_str()),
            (USAGE, "q = 15 is not prime; the modulus must be a prime")
        );
        let fused: CliError = polymul::Error::FusedPlanTransform.into();
        assert_eq!(fused.code, USAGE);
        let oom: CliError = polymul::Error::OutOfDeviceMemory { during: "allocating", bytes: 8 }.into();
        assert_eq!(oom.code, RUNTIME);
    }

    /// Every kind the library has maps to a code of its own choosing (no
    /// kind falls to the fallback), and the codes are the documented ones.
    #[test]
    fn exit_codes_cover_every_kind() {
        use polymul::ErrorKind as K;
        for &k in K::ALL {
            let code = known_exit_code(k).unwrap_or_else(|| panic!("no exit code chosen for {k:?}"));
            assert!(code == USAGE || code == RUNTIME, "{k:?}");
            assert_eq!(exit_code(k), code);
        }
        let usage = [K::InvalidInput, K::Unsupported, K::Wisdom];
        for &k in K::ALL {
            assert_eq!(exit_code(k) == USAGE, usage.contains(&k), "{k:?}");
        }
    }
}
