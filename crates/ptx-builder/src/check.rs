//! Checks every PTX module must pass before it is embedded.

use crate::Arch;
use std::fmt;

/// A PTX module failed a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckError {
    /// A panic or formatting symbol survived dead-code elimination.
    ForbiddenSymbol {
        /// The first offending lines.
        lines: Vec<String>,
    },
    /// An expected kernel entry is missing.
    MissingKernel(String),
    /// The `.target` directive does not name the requested arch.
    WrongTarget {
        /// The requested arch.
        expected: Arch,
        /// The `.target` line found (empty if none).
        found: String,
    },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::ForbiddenSymbol { lines } => write!(
                f,
                "the PTX contains panic/core::fmt code paths (find the bounds check, division, \
                 overflow check or unwrap that brings them in):\n  {}",
                lines.join("\n  ")
            ),
            CheckError::MissingKernel(k) => write!(f, "kernel entry `{k}` is missing from the PTX"),
            CheckError::WrongTarget { expected, found } => {
                write!(f, "expected `.target {expected}`, found `{found}`")
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// Substrings that betray panic or formatting machinery, in legacy (`_ZN…`)
/// and v0 (`_R…`) mangling alike.
const FORBIDDEN: &[&str] = &["panic", "core..fmt", "3fmt", "unwrap_failed", "expect_failed", "slice_index"];

/// Returns the lines of `ptx` that contain a forbidden symbol (at most 8).
pub fn forbidden_lines(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .filter(|l| FORBIDDEN.iter().any(|f| l.contains(f)))
        .take(8)
        .map(|l| l.trim().to_string())
        .collect()
}

/// The names of all `.entry` kernels in `ptx`.
pub fn entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix(".visible .entry ").or_else(|| l.strip_prefix(".entry "))?;
            let end = rest.find(|c: char| c == '(' || c.is_whitespace()).unwrap_or(rest.len());
            Some(rest[..end].to_string())
        })
        .collect()
}

/// Runs all checks; returns the entry names on success.
pub fn check_ptx(ptx: &str, arch: Arch, expected: &[String]) -> Result<Vec<String>, CheckError> {
    let bad = forbidden_lines(ptx);
    if !bad.is_empty() {
        return Err(CheckError::ForbiddenSymbol { lines: bad });
    }
    let target = ptx.lines().map(str::trim).find(|l| l.starts_with(".target")).unwrap_or("").to_string();
    let want = format!(".target {arch}");
    if target != want && !target.starts_with(&format!("{want},")) {
        return Err(CheckError::WrongTarget { expected: arch, found: target });
    }
    let found = entries(ptx);
    for k in expected {
        if !found.iter().any(|e| e == k) {
            return Err(CheckError::MissingKernel(k.clone()));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "//\n.version 7.8\n.target sm_90\n.address_size 64\n\n\
        .visible .entry k_u64(\n\t.param .u64 k_param_0\n)\n{\n\tret;\n}\n";

    #[test]
    fn accepts_clean_ptx_and_lists_entries() {
        let e = check_ptx(GOOD, Arch(90), &["k_u64".to_string()]).unwrap();
        assert_eq!(e, vec!["k_u64"]);
    }

    #[test]
    fn rejects_panic_symbols() {
        let bad = format!("{GOOD}.extern .func _ZN4core9panicking5panic17h0E();\n");
        assert!(matches!(check_ptx(&bad, Arch(90), &[]), Err(CheckError::ForbiddenSymbol { .. })));
        let bad_v0 = format!("{GOOD}.func _RNvNtCs1_4core3fmt5write();\n");
        assert!(matches!(check_ptx(&bad_v0, Arch(90), &[]), Err(CheckError::ForbiddenSymbol { .. })));
    }

    #[test]
    fn rejects_missing_kernel_and_wrong_target() {
        assert_eq!(
            check_ptx(GOOD, Arch(90), &["other".to_string()]),
            Err(CheckError::MissingKernel("other".into()))
        );
        assert!(matches!(check_ptx(GOOD, Arch(70), &[]), Err(CheckError::WrongTarget { .. })));
    }
}
