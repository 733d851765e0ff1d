//! `cargo xtask gpu-bundle` and the CI step that keeps the shipped
//! binaries small.
//!
//! - [`gpu_bundle`] builds `polymul-bench` and the `polymul` CLI (release),
//!   finds them under `$CARGO_TARGET_DIR/release` (else `target/release`),
//!   copies them and the scripts into `bundle/`, and fails when the bundle
//!   is over [`BUNDLE_LIMIT`] (the device tool carries 64 MiB).
//! - [`ci`] (a step of `cargo xtask test`, after `check-ptx`): the release
//!   CLI and `polymul-bench` with every arch's PTX (those `check-ptx` built,
//!   through `POLYMUL_PTX_DIR`), plus every cubin `check-ptx` assembled,
//!   packed as build.rs packs them, against [`BINARY_LIMIT`] each. The
//!   cubins are packed here rather than rebuilt into the binaries: building
//!   them with ptxas again takes minutes a arch (docs/toolchain.md,
//!   "Kernel images").

use crate::{Res, cargo, root, run};
use std::path::{Path, PathBuf};

/// The most a GPU bundle may weigh (two binaries, the sm_90 images in
/// each, and the scripts).
pub const BUNDLE_LIMIT: u64 = 40 << 20;

/// The most one release binary that links polymul may weigh, with every
/// arch's kernels (PTX for sm_70/80/90, SASS for sm_80/90): 12 MB.
pub const BINARY_LIMIT: u64 = 12_000_000;

/// The zstd level build.rs packs a release build's images at
/// (crates/host/build/embed.rs `DEFAULT_LEVEL`).
const RELEASE_LEVEL: i32 = 19;

/// Where cargo puts release binaries: `$CARGO_TARGET_DIR/release` (or
/// `$CARGO_BUILD_TARGET_DIR`'s; relative to the workspace, where xtask runs
/// cargo), else `target/release` of the workspace.
pub fn release_dir() -> PathBuf {
    let set = ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"]
        .into_iter()
        .find_map(|v| std::env::var_os(v).filter(|d| !d.is_empty()));
    match set {
        Some(d) => {
            let d = PathBuf::from(d);
            if d.is_absolute() { d } else { root().join(d) }.join("release")
        }
        None => root().join("target/release"),
    }
}

fn file_len(path: &Path) -> Res<u64> {
    std::fs::metadata(path).map(|m| m.len()).map_err(|e| format!("{}: {e}", path.display()))
}

fn mb(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

/// `cargo xtask gpu-bundle [--dir DIR] [--arch sm_90]`.
pub fn gpu_bundle(args: &[String]) -> Res {
    let dir = crate::flag_value(args, "--dir").map(PathBuf::from).unwrap_or_else(|| root().join("bundle"));
    // `--arch sm_90`: embed only that PTX (smaller binaries, quicker builds).
    let archs = crate::flag_value(args, "--arch");
    let cargo = || {
        let mut c = cargo();
        if let Some(a) = &archs {
            c.env("POLYMUL_PTX_ARCHS", a);
        }
        c
    };
    run("build polymul-bench (release)", cargo().args(["build", "--release", "-p", "polymul-bench"]))?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let copy = |from: PathBuf, name: &str| {
        std::fs::copy(&from, dir.join(name)).map(|_| ()).map_err(|e| format!("{}: {e}", from.display()))
    };
    let bin = release_dir();
    copy(bin.join("polymul-bench"), "polymul-bench")?;
    run("build the polymul CLI (release)", cargo().args(["build", "--release", "-p", "polymul-cli"]))?;
    copy(bin.join("polymul"), "polymul")?;
    // The examples are not in the bundle (each binary embeds the kernels,
    // and run.sh does not use them), nor are standalone PTX files:
    // `cargo xtask build-ptx` writes those when they are wanted.
    copy(root().join("xtask/bundle/run.sh"), "run.sh")?;
    copy(root().join("xtask/bundle/sanitize.sh"), "sanitize.sh")?;
    copy(root().join("xtask/bundle/perf.sh"), "perf.sh")?;
    let mut size = 0;
    for e in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?.flatten() {
        let len = file_len(&e.path())?;
        eprintln!("  {:16} {}", e.file_name().to_string_lossy(), mib(len));
        size += len;
    }
    if size > BUNDLE_LIMIT {
        return Err(format!(
            "the bundle is {size} bytes ({}), over the {} limit (BUNDLE_LIMIT in xtask/src/bundle.rs; the \
             device tool carries 64 MiB): see what grew above, and docs/toolchain.md (\"Kernel images\")",
            mib(size),
            mib(BUNDLE_LIMIT)
        ));
    }
    eprintln!(
        "\nGPU bundle ready: {} ({}, limit {}). On a GPU machine (no Rust needed): bash {}/run.sh",
        dir.display(),
        mib(size),
        mib(BUNDLE_LIMIT),
        dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    );
    Ok(())
}

/// The CI step: the release binaries with every arch's kernels stay under
/// [`BINARY_LIMIT`]. Needs the PTX and cubins of `check-ptx` in
/// `target/ptx-out`.
pub fn ci() -> Res {
    let t0 = std::time::Instant::now();
    let ptx_dir = root().join("target/ptx-out");
    let mut cubins = 0u64;
    let mut packed = Vec::new();
    // The archs build.rs embeds SASS for with the CUDA 13 ptxas that
    // scripts/setup.sh installs (it no longer assembles sm_70; check-ptx's
    // CUDA 12.9 ptxas does).
    for arch in polymul_ptx_builder::Arch::DEFAULTS.into_iter().filter(|a| a.0 >= 80) {
        let file = ptx_dir.join(format!("polymul_kernels_{arch}.cubin"));
        if !file.is_file() {
            continue;
        }
        let bin = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let len = pack(&bin)? as u64;
        packed.push(format!("{arch} {} -> {}", mb(bin.len() as u64), mb(len)));
        cubins += len;
    }
    if packed.is_empty() {
        return Err(format!(
            "no cubins in {} (cargo xtask check-ptx writes them; ptxas assembles sm_80 and sm_90)",
            ptx_dir.display()
        ));
    }
    run(
        "build polymul-cli and polymul-bench (release, PTX of check-ptx, no cubins)",
        cargo()
            .args(["build", "--release", "-p", "polymul-cli", "-p", "polymul-bench"])
            .env("POLYMUL_PTX_DIR", &ptx_dir)
            .env("POLYMUL_CUBIN", "0")
            .env_remove("POLYMUL_PTX_ARCHS")
            .env_remove("POLYMUL_ZSTD_LEVEL"),
    )?;
    eprintln!("cubins zstd-packed at level {RELEASE_LEVEL}: {}", packed.join(", "));
    let mut over = Vec::new();
    for name in ["polymul", "polymul-bench"] {
        let len = file_len(&release_dir().join(name))?;
        let total = len + cubins;
        eprintln!("{name}: {} + cubins {} = {} (limit {})", mb(len), mb(cubins), mb(total), mb(BINARY_LIMIT));
        if total > BINARY_LIMIT {
            over.push(format!("{name} would be {total} bytes"));
        }
    }
    eprintln!("binary sizes checked in {:.0} s", t0.elapsed().as_secs_f64());
    if over.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}: over BINARY_LIMIT ({BINARY_LIMIT} bytes, xtask/src/bundle.rs) with every arch's kernels; \
             see docs/toolchain.md (\"Kernel images\")",
            over.join(", ")
        ))
    }
}

/// The length of `data` packed as build.rs packs a release build's cubin
/// (crates/host/build/embed.rs `pack_to`: one frame, a window spanning it,
/// long-distance matching, checksum).
fn pack(data: &[u8]) -> Res<usize> {
    use zstd::zstd_safe::CParameter;
    let err = |e: std::io::Error| format!("zstd: {e}");
    let window_log = (usize::BITS - data.len().max(1 << 10).saturating_sub(1).leading_zeros()).min(30);
    let mut c = zstd::bulk::Compressor::new(RELEASE_LEVEL).map_err(err)?;
    c.set_parameter(CParameter::WindowLog(window_log)).map_err(err)?;
    c.set_parameter(CParameter::EnableLongDistanceMatching(true)).map_err(err)?;
    c.set_parameter(CParameter::ChecksumFlag(true)).map_err(err)?;
    Ok(c.compress(data).map_err(err)?.len())
}
