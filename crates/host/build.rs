//! Builds `polymul-kernels` to PTX for every requested arch and embeds it.
//!
//! This script compiles with any toolchain (stable included); the nested
//! kernel build runs the pinned nightly through rustup
//! (`polymul_ptx_builder::toolchain`). It writes only under cargo's target
//! folder: the PTX and cubins in `OUT_DIR`, the nested build in
//! `<target dir>/ptx/<arch>` (derived from `OUT_DIR`) so that `cargo build`,
//! `cargo test` and `cargo clippy` share it. docs/toolchain.md has the whole
//! story. Variables:
//!
//! - `POLYMUL_PTX_ARCHS=sm_70,sm_90`: the archs (default sm_70, sm_80, sm_90);
//! - `POLYMUL_PTX_DIR=/abs/dir`: take `polymul_kernels_sm_XY.ptx` from there
//!   (written by `cargo xtask build-ptx --out DIR`) instead of building them:
//!   no nightly needed; the files are checked as a fresh build is;
//! - `POLYMUL_PTX_CACHE_DIR=/abs/dir`: where the nested builds go instead;
//! - `POLYMUL_KERNEL_TOOLCHAIN`: another nightly for the kernels;
//! - `POLYMUL_CUBIN=0` (no cubins) or `=1` (no ptxas is an error),
//!   `POLYMUL_CUBIN_PTXAS`, `PTXAS`: the cubins (SASS);
//! - `DOCS_RS` (set by docs.rs): no kernels at all, for documentation only
//!   (offline, no nightly); `Gpu` constructors then fail with
//!   `Error::NoEmbeddedKernels`.
//!
//! The kernels' source is `polymul_kernels::SOURCE_DIR` (the build-dependency
//! says where cargo has it): built in place in polymul's repository, from a
//! copy below the target folder when it is a packaged crate (crates.io).

#[path = "build/embed.rs"]
mod embed;

use polymul_ptx_builder::{Arch, PtxBuilder};
use std::path::{Path, PathBuf};

fn main() {
    polymul_ptx_builder::run_as_linker_if_requested();
    if let Err(msg) = run() {
        eprintln!("\nerror: building the polymul GPU kernels failed\n{msg}\n");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let docs_only = docs_only();
    let kernels = Path::new(polymul_kernels::SOURCE_DIR);
    println!("cargo:rerun-if-changed={}", kernels.join("src").display());
    println!("cargo:rerun-if-changed={}", kernels.join("Cargo.toml").display());
    println!("cargo:rerun-if-env-changed=POLYMUL_PTX_ARCHS");
    println!("cargo:rerun-if-env-changed=POLYMUL_CUBIN");
    println!("cargo:rerun-if-env-changed=PTXAS");
    println!("cargo:rerun-if-env-changed=POLYMUL_CUBIN_PTXAS");
    println!("cargo:rerun-if-env-changed=POLYMUL_PTX_DIR");
    println!("cargo:rerun-if-env-changed=POLYMUL_KERNEL_TOOLCHAIN");

    let archs = match std::env::var("POLYMUL_PTX_ARCHS") {
        _ if docs_only => Vec::new(),
        Ok(s) => Arch::parse_list(&s).map_err(|e| e.to_string())?,
        Err(_) => Arch::DEFAULTS.to_vec(),
    };
    let target_root = ptx_cache_dir(&out_dir);
    let prebuilt = match std::env::var_os("POLYMUL_PTX_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => Some(dir),
        Some(dir) => return Err(format!("POLYMUL_PTX_DIR={} must be an absolute path", dir.display())),
        None => None,
    };
    let kernels = kernels_to_build(kernels, &target_root, prebuilt.is_some() || docs_only)?;
    let ptxas = if docs_only || std::env::var("POLYMUL_CUBIN").is_ok_and(|v| v == "0") {
        None
    } else {
        locate_ptxas(&manifest)
    };
    if ptxas.is_none() && !docs_only {
        let why = "ptxas not found (the CUDA toolkit's; put it on PATH or name it in PTXAS; in polymul's \
                   repository scripts/setup.sh installs it)";
        if std::env::var("POLYMUL_CUBIN").is_ok_and(|v| v == "1") {
            return Err(format!("POLYMUL_CUBIN=1 asks for cubins (SASS), but {why}"));
        }
        println!(
            "cargo:warning={why}: embedding PTX only, which the driver JIT-compiles on every fresh machine \
             (about 10 s); POLYMUL_CUBIN=1 makes this an error"
        );
    }

    // One thread per arch: each nested build is mostly one rustc process
    // (one codegen unit), so the archs build side by side.
    let job =
        Job { kernels: &kernels, cache: &target_root, out_dir: &out_dir, prebuilt: prebuilt.as_deref() };
    let ptxas = ptxas.as_deref();
    let built: Vec<Result<Built, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = archs.iter().map(|&arch| s.spawn(move || job.build(arch, ptxas))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a kernel build thread panicked".into())))
            .collect()
    });

    let built = built.into_iter().collect::<Result<Vec<Built>, String>>()?;
    embed::write_index(&out_dir, built)
}

/// Whether this is a documentation-only build: docs.rs sets `DOCS_RS` and
/// builds offline, without the nightly or a GPU, so no kernels are built or
/// read and the index lists none (`Gpu` constructors then return
/// `Error::NoEmbeddedKernels`).
fn docs_only() -> bool {
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    std::env::var_os("DOCS_RS").is_some()
}

/// The folder the nested build compiles the kernels from: `source`
/// (`polymul_kernels::SOURCE_DIR`) where it is a checkout (polymul's
/// repository: the workspace's `Cargo.lock` and `[profile.ptx]` apply, and
/// the nested cargo writes only to `cache`), a copy in `<cache>/src` where it
/// is a packaged crate (crates.io, a vendor folder), whose folder cargo
/// shares between projects and may keep read-only. No copy when nothing is
/// built (`skip`: prebuilt PTX or a documentation-only build).
fn kernels_to_build(source: &Path, cache: &Path, skip: bool) -> Result<PathBuf, String> {
    if skip || !polymul_ptx_builder::standalone::is_packaged(source) {
        return Ok(source.to_path_buf());
    }
    polymul_ptx_builder::standalone::standalone_copy(source, &cache.join("src"))
        .map_err(|e| format!("copying the kernels' source {}: {e}", source.display()))
}

/// What every arch's build shares.
#[derive(Clone, Copy)]
struct Job<'a> {
    kernels: &'a Path,
    cache: &'a Path,
    out_dir: &'a Path,
    prebuilt: Option<&'a Path>,
}

/// One arch's files in `OUT_DIR`.
struct Built {
    arch: Arch,
    /// The PTX text (also written to `OUT_DIR/<ptx_file>`).
    ptx: String,
    cubin_file: Option<String>,
    /// Whether the PTX has `griddepcontrol.wait` (the sm_90 pass kernels).
    dependent: bool,
}

impl Job<'_> {
    /// Builds (or reads) and checks one arch's PTX, writes it to `OUT_DIR`
    /// and assembles it to a cubin where `ptxas` knows the arch.
    fn build(self, arch: Arch, ptxas: Option<&Path>) -> Result<Built, String> {
        let mut expected = Vec::new();
        polymul_kernels::names::for_each_entry(arch.0, |n| expected.push(n.to_string()));
        let ptx_file = format!("polymul_kernels_{arch}.ptx");
        let ptx: String = match self.prebuilt {
            Some(dir) => read_prebuilt(&dir.join(&ptx_file), arch, &expected)?,
            None => {
                PtxBuilder::new(self.kernels, self.cache.join(arch.to_string()), arch)
                    .expect_kernels(expected.clone())
                    .quiet(true)
                    .build()
                    .map_err(|e| e.to_string())?
                    .ptx
            }
        };
        // Every entry point is one an identifier names: with the check
        // above (every identifier's symbol is an entry point), the symbols
        // spelled out in `entry.rs` are exactly those of `polymul_kernels::names`.
        if let Some(extra) =
            polymul_ptx_builder::check::entries(&ptx).into_iter().find(|e| !expected.contains(e))
        {
            return Err(format!(
                "kernel entry `{extra}` has no identifier in polymul_kernels::names (for_each_entry)"
            ));
        }
        // The kernels' register caps (`cargo xtask build-ptx` writes them too;
        // adding them again to a prebuilt file changes nothing).
        let ptx = polymul_ptx_builder::directives::with_register_caps(&ptx, &register_caps(arch.0))?;
        // Embedded (and assembled) without LLVM's comments: the same SASS,
        // a smaller image (docs/toolchain.md, "Kernel images").
        let ptx = polymul_ptx_builder::directives::without_comments(&ptx);
        std::fs::write(self.out_dir.join(&ptx_file), &ptx).map_err(|e| e.to_string())?;
        let dependent = ptx.contains("griddepcontrol.wait");
        let Some(ptxas) = ptxas else { return Ok(Built { arch, ptx, cubin_file: None, dependent }) };
        let cubin = format!("polymul_kernels_{arch}.cubin");
        let out = std::process::Command::new(ptxas)
            .arg(format!("-arch={arch}"))
            .arg("-O3")
            .arg("-o")
            .arg(self.out_dir.join(&cubin))
            .arg(self.out_dir.join(&ptx_file))
            .output()
            .map_err(|e| format!("running {}: {e}", ptxas.display()))?;
        if !out.status.success() {
            // E.g. CUDA 13's ptxas no longer knows sm_70: that arch stays
            // PTX-only (`cargo xtask check-ptx` checks every arch's PTX).
            // An arch this ptxas does not know is expected (sm_70 with
            // CUDA 13, documented in docs/toolchain.md); anything else is
            // worth a warning.
            let why = String::from_utf8_lossy(&out.stderr);
            if !why.contains("is not defined for option 'gpu-name'") {
                let first = why.lines().next().unwrap_or("");
                println!("cargo:warning=no cubin for {arch} ({}): {first}", ptxas.display());
            }
            return Ok(Built { arch, ptx, cubin_file: None, dependent });
        }
        Ok(Built { arch, ptx, cubin_file: Some(cubin), dependent })
    }
}

/// Where the nested kernel builds go: `$POLYMUL_PTX_CACHE_DIR`, else
/// `<target dir>/ptx`, the target folder found from
/// `OUT_DIR = <target dir>[/<triple>]/<profile>/build/polymul-<hash>/out`;
/// `OUT_DIR/ptx` if the layout is not that one. Never a source folder.
fn ptx_cache_dir(out_dir: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("POLYMUL_PTX_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    let in_build = out_dir.ancestors().nth(2).and_then(Path::file_name).is_some_and(|n| n == "build");
    match out_dir.ancestors().nth(4) {
        Some(root) if in_build => {
            // With `--target`, the profile folder sits in `<target dir>/<triple>`.
            let root = match root.parent() {
                Some(up) if !root.join("CACHEDIR.TAG").is_file() && up.join("CACHEDIR.TAG").is_file() => up,
                _ => root,
            };
            root.join("ptx")
        }
        _ => out_dir.join("ptx"),
    }
}

/// A prebuilt PTX module from `POLYMUL_PTX_DIR`, checked as a fresh build's is.
fn read_prebuilt(file: &Path, arch: Arch, expected: &[String]) -> Result<String, String> {
    println!("cargo:rerun-if-changed={}", file.display());
    let ptx = std::fs::read_to_string(file).map_err(|e| {
        format!(
            "POLYMUL_PTX_DIR: {}: {e} (write the files with `cargo xtask build-ptx --arch {arch} --out DIR`)",
            file.display()
        )
    })?;
    polymul_ptx_builder::check::check_ptx(&ptx, arch, expected)
        .map_err(|e| format!("POLYMUL_PTX_DIR: {}: {e}", file.display()))?;
    Ok(ptx)
}

/// The register caps of the kernels for `sm_<arch>`
/// (`polymul_kernels::names::for_each_register_cap`).
fn register_caps(arch: u32) -> Vec<(String, u32)> {
    let mut caps = Vec::new();
    polymul_kernels::names::for_each_register_cap(arch, |n, c| caps.push((n.to_string(), c)));
    caps
}

/// The `ptxas` that makes the embedded cubins: `$POLYMUL_CUBIN_PTXAS`, the
/// CUDA 13.0 copy scripts/setup.sh installs (the same compiler as the 13.0
/// driver's JIT), `$PTXAS`, the CUDA 12.9 copy, or one on `PATH`.
fn locate_ptxas(manifest: &std::path::Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("POLYMUL_CUBIN_PTXAS") {
        return Some(PathBuf::from(p));
    }
    let tools = manifest.join("../../target/tools");
    let cu13 = tools.join("nvcc13/nvidia/cu13/bin/ptxas");
    if cu13.is_file() {
        return Some(cu13);
    }
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(PathBuf::from(p));
    }
    let wheel = tools.join("nvcc/nvidia/cuda_nvcc/bin/ptxas");
    if wheel.is_file() {
        return Some(wheel);
    }
    let on_path = std::process::Command::new("ptxas").arg("--version").output();
    on_path.is_ok_and(|o| o.status.success()).then(|| PathBuf::from("ptxas"))
}
