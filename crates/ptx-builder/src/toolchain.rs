//! The pinned nightly toolchain that builds the kernels.
//!
//! Only the nested kernel build needs nightly (`-Zbuild-std=core` for
//! `nvptx64-nvidia-cuda`, `extern "ptx-kernel"`, `core::arch::nvptx`): the
//! crate that runs [`crate::PtxBuilder`] (polymul's `build.rs`, `xtask`) may
//! be compiled by any toolchain, stable included. [`Toolchain::pinned`] asks
//! rustup where the pinned nightly's `cargo` and `rustc` are, and the nested
//! build runs those binaries directly, so neither the outer toolchain nor a
//! `rust-toolchain.toml` of the outer project decides it.

use crate::BuildError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The nightly the kernels are built with; the same as the workspace's
/// `rust-toolchain.toml` (a test checks it).
pub const NIGHTLY: &str = "nightly-2026-05-20";

/// Environment variable naming another rustup toolchain for the kernel build
/// (it must be a nightly with `rust-src` and `llvm-tools`).
pub const TOOLCHAIN_ENV: &str = "POLYMUL_KERNEL_TOOLCHAIN";

/// The one-line install command for a toolchain.
pub fn install_hint(name: &str) -> String {
    format!("rustup toolchain install {name} --profile minimal --component rust-src,llvm-tools")
}

/// A rustup toolchain's `cargo` and `rustc`.
#[derive(Debug, Clone)]
pub struct Toolchain {
    name: String,
    cargo: PathBuf,
    rustc: PathBuf,
    sysroot: PathBuf,
    host: String,
}

impl Toolchain {
    /// `$POLYMUL_KERNEL_TOOLCHAIN`, else [`NIGHTLY`].
    pub fn pinned() -> Result<Self, BuildError> {
        let name = std::env::var(TOOLCHAIN_ENV).ok().filter(|s| !s.trim().is_empty());
        Self::named(name.as_deref().unwrap_or(NIGHTLY))
    }

    /// The rustup toolchain `name`, checked to be installed with `rust-src`.
    pub fn named(name: &str) -> Result<Self, BuildError> {
        let rustup = rustup().ok_or_else(|| BuildError::NoRustup(name.to_string()))?;
        let which = |tool: &str| -> Result<PathBuf, BuildError> {
            let out = Command::new(&rustup)
                .args(["which", "--toolchain", name, tool])
                .env_remove("RUSTUP_TOOLCHAIN")
                .env("RUSTUP_AUTO_INSTALL", "0")
                .output()
                .map_err(|err| BuildError::Spawn { tool: rustup.display().to_string(), err })?;
            let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            if out.status.success() && path.is_file() {
                Ok(path)
            } else {
                Err(BuildError::MissingToolchain(name.to_string()))
            }
        };
        let rustc = which("rustc")?;
        let cargo = which("cargo")?;
        let (sysroot, host) = crate::tools::sysroot_and_host(&rustc)?;
        if !sysroot.join("lib/rustlib/src/rust/library/core").is_dir() {
            return Err(BuildError::MissingComponent { toolchain: name.to_string(), component: "rust-src" });
        }
        Ok(Self { name: name.to_string(), cargo, rustc, sysroot, host })
    }

    /// The toolchain's name, e.g. `nightly-2026-05-20`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its `cargo` binary (not the rustup proxy).
    pub fn cargo(&self) -> &Path {
        &self.cargo
    }

    /// Its `rustc` binary (not the rustup proxy).
    pub fn rustc(&self) -> &Path {
        &self.rustc
    }

    /// `rustc --print sysroot`.
    pub fn sysroot(&self) -> &Path {
        &self.sysroot
    }

    /// The folder where the `llvm-tools` component puts `llvm-link`, `opt`,
    /// `llc` and `llvm-ar`.
    pub fn llvm_tools_dir(&self) -> PathBuf {
        self.sysroot.join("lib/rustlib").join(&self.host).join("bin")
    }
}

/// `rustup` on `PATH`, else in `$CARGO_HOME/bin` or `~/.cargo/bin`.
fn rustup() -> Option<PathBuf> {
    let works = |p: &Path| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success());
    let mut candidates = vec![PathBuf::from("rustup")];
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        candidates.push(Path::new(&home).join("bin/rustup"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(Path::new(&home).join(".cargo/bin/rustup"));
    }
    candidates.into_iter().find(|p| works(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_nightly_matches_rust_toolchain_toml() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rust-toolchain.toml");
        let text = std::fs::read_to_string(&file).unwrap();
        let channel = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("channel"))
            .and_then(|r| r.trim_start().strip_prefix('='))
            .map(|v| v.trim().trim_matches('"'))
            .unwrap();
        assert_eq!(channel, NIGHTLY, "update NIGHTLY in crates/ptx-builder/src/toolchain.rs too");
    }

    #[test]
    fn missing_toolchain_says_how_to_install_it() {
        let err = Toolchain::named("nightly-1999-01-01").unwrap_err().to_string();
        assert!(err.contains("rustup toolchain install nightly-1999-01-01"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
