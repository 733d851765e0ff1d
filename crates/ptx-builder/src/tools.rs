//! Finding the `llvm-tools` component of the active toolchain.

use crate::{BuildError, LLVM_TOOLS_ENV, Toolchain};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder holding `llvm-link`, `llvm-dis`, `llvm-as`, `opt`, `llc` and `llvm-ar`.
#[derive(Debug, Clone)]
pub struct LlvmTools {
    dir: PathBuf,
}

impl LlvmTools {
    /// Uses [`LLVM_TOOLS_ENV`] if set, else
    /// `$(rustc --print sysroot)/lib/rustlib/<host>/bin`.
    pub fn locate() -> Result<Self, BuildError> {
        if let Some(d) = std::env::var_os(LLVM_TOOLS_ENV) {
            return Self::at(PathBuf::from(d));
        }
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let (sysroot, host) = sysroot_and_host(Path::new(&rustc))?;
        Self::at(sysroot.join("lib/rustlib").join(host).join("bin"))
    }

    /// The `llvm-tools` component of `toolchain` ([`LLVM_TOOLS_ENV`] still
    /// wins if set).
    pub fn for_toolchain(toolchain: &Toolchain) -> Result<Self, BuildError> {
        match std::env::var_os(LLVM_TOOLS_ENV) {
            Some(d) => Self::at(PathBuf::from(d)),
            None => Self::at(toolchain.llvm_tools_dir()),
        }
    }

    fn at(dir: PathBuf) -> Result<Self, BuildError> {
        let t = Self { dir };
        for tool in ["llvm-link", "llvm-dis", "llvm-as", "opt", "llc", "llvm-ar"] {
            if !t.tool(tool).is_file() {
                return Err(BuildError::MissingLlvmTools(t.dir));
            }
        }
        Ok(t)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of one tool.
    pub fn tool(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// `rustc --print sysroot` and the host triple of `rustc -vV`.
pub(crate) fn sysroot_and_host(rustc: &Path) -> Result<(PathBuf, String), BuildError> {
    let run = |args: &[&str]| -> Result<String, BuildError> {
        let out = Command::new(rustc)
            .args(args)
            .output()
            .map_err(|err| BuildError::Spawn { tool: rustc.display().to_string(), err })?;
        if !out.status.success() {
            return Err(BuildError::ToolFailed {
                cmd: format!("{} {}", rustc.display(), args.join(" ")),
                detail: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let sysroot = PathBuf::from(run(&["--print", "sysroot"])?);
    let host = run(&["-vV"])?
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .unwrap_or_else(|| "x86_64-unknown-linux-gnu".to_string());
    Ok((sysroot, host))
}
