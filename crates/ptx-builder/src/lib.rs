//! # polymul-ptx-builder
//!
//! Turns the `no_std` crate `polymul-kernels` into PTX without `cuda_builder`
//! (which needs LLVM 7 through `rustc_codegen_nvvm`) and without the
//! `llvm-bitcode-linker` rustup component (not downloadable here):
//!
//! 1. [`PtxBuilder::build`] runs a nested
//!    `cargo rustc --crate-type cdylib --target nvptx64-nvidia-cuda -Zbuild-std=core --profile ptx`
//!    with `-C linker=<this executable>` and `-C target-cpu=<arch>`, on the
//!    pinned nightly ([`toolchain::NIGHTLY`], found through rustup) whatever
//!    toolchain compiled the caller: the caller itself builds on stable.
//! 2. rustc then calls *this same executable* as its linker, handing it
//!    LLVM bitcode objects. The executable notices the
//!    [`LINKER_MODE_ENV`] variable in [`run_as_linker_if_requested`] and
//!    becomes the linker: `llvm-link` → `opt` (internalize all but the kernel
//!    entries, drop dead code, `-O3`) → `llc` → `.ptx` (see [`link`]).
//! 3. The PTX is checked ([`check`]): no panic or `core::fmt` symbol, every
//!    expected kernel present, and the `.target` is the requested arch.
//!
//! Callers (the host crate's `build.rs`, `cargo xtask build-ptx`) must call
//! [`run_as_linker_if_requested`] first thing in `main`. A packaged kernel
//! crate (crates.io, a vendor folder) is built from a copy
//! ([`standalone::standalone_copy`]), never in its shared folder.
//!
//! `docs/toolchain.md` in the repository explains the whole path.

pub mod check;
pub mod directives;
pub mod link;
pub mod standalone;
pub mod toolchain;
mod tools;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use toolchain::Toolchain;
pub use tools::LlvmTools;

/// LLVM's full-unroll threshold for the kernels, in rustc and in `opt`.
pub const UNROLL_THRESHOLD: u32 = 4000;

/// Environment variable that turns an executable into the bitcode linker.
pub const LINKER_MODE_ENV: &str = "POLYMUL_PTX_LINKER_MODE";
/// Environment variable that tells the linker where `llvm-link`, `opt` and
/// `llc` are (the `llvm-tools` component's `bin` folder).
pub const LLVM_TOOLS_ENV: &str = "POLYMUL_LLVM_TOOLS_DIR";
/// The rustc target the kernels are built for.
pub const TARGET: &str = "nvptx64-nvidia-cuda";
/// The cargo profile (declared in the workspace `Cargo.toml`) for the PTX build.
pub const PROFILE: &str = "ptx";

/// If this process was started by rustc as the nvptx linker, links and exits.
///
/// Returns normally (doing nothing) otherwise. Call it first in `main` of any
/// executable that calls [`PtxBuilder::build`].
pub fn run_as_linker_if_requested() {
    if std::env::var_os(LINKER_MODE_ENV).is_some() {
        let args: Vec<String> = std::env::args().skip(1).collect();
        match link::run(&args) {
            Ok(()) => std::process::exit(0),
            Err(e) => {
                eprintln!("polymul-ptx-builder (linker): {e}");
                std::process::exit(1)
            }
        }
    }
}

/// A GPU architecture, `sm_XY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Arch(pub u32);

impl Arch {
    /// The archs whose PTX is embedded by default: Volta, Ampere, Hopper.
    pub const DEFAULTS: [Arch; 3] = [Arch(70), Arch(80), Arch(90)];

    /// Parses `sm_70`, `sm70`, `70` or `compute_70`.
    pub fn parse(s: &str) -> Result<Self, BuildError> {
        let t = s.trim();
        let digits = t.trim_start_matches("compute_").trim_start_matches("sm_").trim_start_matches("sm");
        match digits.parse::<u32>() {
            Ok(v) if (30..=120).contains(&v) => Ok(Arch(v)),
            _ => Err(BuildError::BadArch(s.to_string())),
        }
    }

    /// Parses a comma-separated list such as `sm_70,sm_90`.
    pub fn parse_list(s: &str) -> Result<Vec<Self>, BuildError> {
        let mut v =
            s.split(',').filter(|p| !p.trim().is_empty()).map(Arch::parse).collect::<Result<Vec<_>, _>>()?;
        v.sort();
        v.dedup();
        if v.is_empty() {
            return Err(BuildError::BadArch(s.to_string()));
        }
        Ok(v)
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.0)
    }
}

/// What went wrong while building PTX.
#[derive(Debug)]
pub enum BuildError {
    /// An arch string was not of the form `sm_XY`.
    BadArch(String),
    /// A tool could not be started.
    Spawn {
        /// The tool.
        tool: String,
        /// The OS error.
        err: std::io::Error,
    },
    /// A tool ran and failed.
    ToolFailed {
        /// The tool and its arguments.
        cmd: String,
        /// Its exit status and captured error output.
        detail: String,
    },
    /// The `llvm-tools` component is missing.
    MissingLlvmTools(PathBuf),
    /// `rustup` was not found; the kernels need it for the pinned nightly
    /// (the toolchain's name).
    NoRustup(String),
    /// The pinned nightly is not installed (its name).
    MissingToolchain(String),
    /// A component of the pinned nightly is missing.
    MissingComponent {
        /// The toolchain.
        toolchain: String,
        /// The rustup component, e.g. `rust-src`.
        component: &'static str,
    },
    /// The nested build succeeded but produced no PTX file.
    NoOutput(PathBuf),
    /// The PTX failed a check (panic path, missing kernel, wrong target).
    Check(check::CheckError),
    /// Reading or writing a file failed.
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::BadArch(s) => {
                write!(f, "`{s}` is not a GPU arch; write sm_70, sm_80, sm_90 ...")
            }
            BuildError::Spawn { tool, err } => write!(
                f,
                "could not start `{tool}`: {err}; run scripts/setup.sh to install the pinned toolchain"
            ),
            BuildError::ToolFailed { cmd, detail } => write!(f, "`{cmd}` failed:\n{detail}"),
            BuildError::MissingLlvmTools(p) => write!(
                f,
                "llvm-link/opt/llc not found in {}; install them with `rustup component add llvm-tools \
                 --toolchain {}` (scripts/setup.sh does this)",
                p.display(),
                toolchain::NIGHTLY
            ),
            BuildError::NoRustup(name) => write!(
                f,
                "the GPU kernels are built with the nightly toolchain {name} through rustup, which was not \
                 found: install rustup (https://rustup.rs), then `{}`",
                toolchain::install_hint(name)
            ),
            BuildError::MissingToolchain(name) => write!(
                f,
                "the GPU kernels are built with the nightly toolchain {name} (for -Zbuild-std), which is not \
                 installed: `{}`",
                toolchain::install_hint(name)
            ),
            BuildError::MissingComponent { toolchain, component } => write!(
                f,
                "the toolchain {toolchain} has no `{component}` component, which the kernel build needs: \
                 `rustup component add {component} --toolchain {toolchain}`"
            ),
            BuildError::NoOutput(p) => {
                write!(f, "the kernel build produced no PTX at {}", p.display())
            }
            BuildError::Check(e) => write!(f, "PTX check failed: {e}"),
            BuildError::Io(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<check::CheckError> for BuildError {
    fn from(e: check::CheckError) -> Self {
        BuildError::Check(e)
    }
}

/// Builds one kernel crate to PTX for one arch.
#[derive(Debug, Clone)]
pub struct PtxBuilder {
    crate_dir: PathBuf,
    target_dir: PathBuf,
    arch: Arch,
    expected_kernels: Vec<String>,
    quiet: bool,
}

/// A PTX module that passed the checks.
#[derive(Debug, Clone)]
pub struct PtxArtifact {
    /// The arch it was built for.
    pub arch: Arch,
    /// Where the `.ptx` file is.
    pub path: PathBuf,
    /// Its text.
    pub ptx: String,
    /// The `.entry` (kernel) names it defines.
    pub entries: Vec<String>,
}

impl PtxBuilder {
    /// A builder for the crate at `crate_dir`, building into `target_dir`
    /// (which must not be a directory another running cargo holds locked).
    pub fn new(crate_dir: impl Into<PathBuf>, target_dir: impl Into<PathBuf>, arch: Arch) -> Self {
        Self {
            crate_dir: crate_dir.into(),
            target_dir: target_dir.into(),
            arch,
            expected_kernels: Vec::new(),
            quiet: false,
        }
    }

    /// Kernel entry names that must be present in the PTX.
    pub fn expect_kernels<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.expected_kernels.extend(names.into_iter().map(Into::into));
        self
    }

    /// Passes `--quiet` to the nested cargo.
    pub fn quiet(mut self, quiet: bool) -> Self {
        self.quiet = quiet;
        self
    }

    /// Runs the nested build and the checks.
    pub fn build(&self) -> Result<PtxArtifact, BuildError> {
        let toolchain = Toolchain::pinned()?;
        let linker = self.stable_linker()?;
        let tools = LlvmTools::for_toolchain(&toolchain)?;
        let cargo = toolchain.cargo();
        let manifest = self.crate_dir.join("Cargo.toml");
        let flags = [
            "-C".to_string(),
            format!("linker={}", linker.display()),
            "-C".to_string(),
            format!("target-cpu={}", self.arch),
            // GPU code wants fully unrolled register arrays (the radix-16
            // NTT units): above the default threshold LLVM keeps the loops
            // and puts the arrays in local memory.
            "-C".to_string(),
            format!("llvm-args=-unroll-threshold={UNROLL_THRESHOLD}"),
        ];
        let mut cmd = Command::new(cargo);
        // `--locked`: the nested build reads the kernels' workspace lock file
        // and must never rewrite it (for a dependency, that is a source tree).
        cmd.current_dir(&self.crate_dir)
            .arg("rustc")
            .arg("--locked")
            .arg("--manifest-path")
            .arg(&manifest)
            .args(["--lib", "--crate-type", "cdylib", "--target", TARGET, "-Zbuild-std=core"])
            .args(["--profile", PROFILE]);
        if self.quiet {
            cmd.arg("--quiet");
        }
        // A clean environment: nothing from an outer cargo (build script
        // variables, its toolchain's rustc, clippy's wrapper, the jobserver)
        // may leak in. Cargo's network and registry settings stay.
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy();
            let keep = ["CARGO_HOME", "CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTRIES_", "CARGO_REGISTRY_"]
                .iter()
                .any(|p| k.starts_with(p));
            if k.starts_with("CARGO_") && !keep {
                cmd.env_remove(&*k);
            }
        }
        for k in [
            "CARGO",
            "RUSTC",
            "RUSTDOC",
            "RUSTC_LINKER",
            "RUSTFLAGS",
            "RUSTDOCFLAGS",
            "RUSTC_WRAPPER",
            "RUSTC_WORKSPACE_WRAPPER",
            "MAKEFLAGS",
            "MFLAGS",
            "TARGET",
            "HOST",
            "OUT_DIR",
            "OPT_LEVEL",
            "PROFILE",
            "DEBUG",
            "NUM_JOBS",
        ] {
            cmd.env_remove(k);
        }
        cmd.env("CARGO_TARGET_DIR", &self.target_dir)
            .env("RUSTC", toolchain.rustc())
            .env("RUSTUP_TOOLCHAIN", toolchain.name())
            .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"))
            .env(LINKER_MODE_ENV, "1")
            .env(LLVM_TOOLS_ENV, tools.dir());
        let out = cmd.output().map_err(|err| BuildError::Spawn { tool: cargo.display().to_string(), err })?;
        if !out.status.success() {
            return Err(BuildError::ToolFailed {
                cmd: format!(
                    "cargo +{} rustc --target {TARGET} (kernels for {})",
                    toolchain.name(),
                    self.arch
                ),
                detail: format!(
                    "{}\n{}{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ),
            });
        }
        let path = self.output_path()?;
        let ptx = std::fs::read_to_string(&path).map_err(|e| BuildError::Io(path.clone(), e))?;
        let entries = check::check_ptx(&ptx, self.arch, &self.expected_kernels)?;
        Ok(PtxArtifact { arch: self.arch, path, ptx, entries })
    }

    /// Copies the running executable to `<target_dir>/polymul-ptx-linker`
    /// and returns that path.
    ///
    /// The `-C linker=` path is part of cargo's fingerprint: passing each
    /// caller's own path (build script, xtask) would make every caller
    /// rebuild `core` for nvptx. The copy is written beside the final name
    /// and renamed over it, which is atomic and safe while another build is
    /// running the previous copy.
    fn stable_linker(&self) -> Result<PathBuf, BuildError> {
        let exe = std::env::current_exe().map_err(|e| BuildError::Io(PathBuf::from("current_exe"), e))?;
        std::fs::create_dir_all(&self.target_dir).map_err(|e| BuildError::Io(self.target_dir.clone(), e))?;
        let dst = self.target_dir.join("polymul-ptx-linker");
        let tmp = self.target_dir.join(format!(".polymul-ptx-linker.{}.tmp", std::process::id()));
        std::fs::copy(&exe, &tmp).map_err(|e| BuildError::Io(tmp.clone(), e))?;
        std::fs::rename(&tmp, &dst).map_err(|e| BuildError::Io(dst.clone(), e))?;
        Ok(dst)
    }

    fn output_path(&self) -> Result<PathBuf, BuildError> {
        let name = self
            .crate_dir
            .file_name()
            .map(|_| crate_lib_name(&self.crate_dir.join("Cargo.toml")))
            .transpose()?
            .unwrap_or_default();
        let path = self.target_dir.join(TARGET).join(PROFILE).join(format!("{name}.ptx"));
        if path.is_file() { Ok(path) } else { Err(BuildError::NoOutput(path)) }
    }
}

/// The library name (`package.name` with `-` → `_`) from a manifest.
fn crate_lib_name(manifest: &Path) -> Result<String, BuildError> {
    let text = std::fs::read_to_string(manifest).map_err(|e| BuildError::Io(manifest.to_path_buf(), e))?;
    let mut in_package = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_package = l == "[package]";
        } else if in_package
            && let Some(rest) = l.strip_prefix("name")
            && let Some(v) = rest.trim_start().strip_prefix('=')
        {
            return Ok(v.trim().trim_matches('"').replace('-', "_"));
        }
    }
    Err(BuildError::NoOutput(manifest.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_parsing() {
        assert_eq!(Arch::parse("sm_90").unwrap(), Arch(90));
        assert_eq!(Arch::parse("compute_80").unwrap(), Arch(80));
        assert_eq!(Arch::parse("70").unwrap(), Arch(70));
        assert!(Arch::parse("sm_x").is_err());
        assert!(Arch::parse("sm_7").is_err());
        assert_eq!(Arch::parse_list("sm_90, sm_70,sm_90").unwrap(), vec![Arch(70), Arch(90)]);
        assert!(Arch::parse_list(",").is_err());
        assert_eq!(Arch(86).to_string(), "sm_86");
    }

    #[test]
    fn lib_name_from_manifest() {
        let dir = std::env::temp_dir().join(format!("ptxb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let m = dir.join("Cargo.toml");
        std::fs::write(&m, "[package]\nname = \"polymul-kernels\"\n[lib]\nname = \"x\"\n").unwrap();
        assert_eq!(crate_lib_name(&m).unwrap(), "polymul_kernels");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
