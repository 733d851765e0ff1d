//! `cargo xtask gpu-bundle` and the CI step that keeps the shipped
//! binaries small.
//!
//! - [`gpu_bundle`] builds `polymul-bench` and the `polymul` CLI (release),
//!   finds them under `$CARGO_TARGET_DIR/release` (else `target/release`),
//!   copies them and the scripts into `bundle/`, and fails when the bundle
//!   is over [`BUNDLE_LIMIT`] (the device tool carries 64 MiB).
//!   With them, for each bundled arch ≥ sm_80, the kernel images of both
//!   `ptxas` versions ([`kernel_images`]: `kernel-images.tar.xz`) that
//!   `check-images.sh` runs the check suite on, one image at a time.
//! - [`ci`] (a step of `cargo xtask test`, after `check-ptx`): the release
//!   CLI and `polymul-bench` with every arch's PTX (those `check-ptx` built,
//!   through `POLYMUL_PTX_DIR`), plus every cubin `check-ptx` assembled,
//!   packed as build.rs packs them, against [`BINARY_LIMIT`] each. The
//!   cubins are packed here rather than rebuilt into the binaries: building
//!   them with ptxas again takes minutes a arch (docs/toolchain.md,
//!   "Kernel images").

use crate::{Res, cargo, root, run};
use polymul_ptx_builder::Arch;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The most a GPU bundle may weigh (two binaries, the sm_90 images in
/// each, and the scripts).
pub const BUNDLE_LIMIT: u64 = 40 << 20;

/// The most one release binary that links polymul may weigh, with every
/// arch's kernels (PTX for sm_70/80/90, SASS for sm_80/90): 16 MB (issue
/// 55 raised it from 12 MB: the limit had begun to shape code, and the
/// soundness work of issue 53 took `polymul-bench` to 12.16 MB).
pub const BINARY_LIMIT: u64 = 16_000_000;

/// The most the packed (zstd) cubins of every arch may weigh together: what
/// the kernels add to each binary beside their PTX (issue 55: ≤ 6 MB).
pub const IMAGES_LIMIT: u64 = 6_000_000;

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

/// `cargo xtask gpu-bundle [--dir DIR] [--arch sm_90] [--no-images]`.
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
    if !args.iter().any(|a| a == "--no-images") {
        copy(root().join("xtask/bundle/check-images.sh"), "check-images.sh")?;
        kernel_images(&dir, archs.as_deref())?;
    }
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
        "\nGPU bundle ready: {} ({}, limit {}). On a GPU machine (no Rust needed): bash {}/run.sh \
         (the check suite per kernel image: bash check-images.sh there)",
        dir.display(),
        mib(size),
        mib(BUNDLE_LIMIT),
        dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    );
    Ok(())
}

/// The file [`kernel_images`] writes into the bundle.
pub const IMAGES_FILE: &str = "kernel-images.tar.xz";

/// Writes [`IMAGES_FILE`] into `dir`: for each arch of `archs` (the
/// `--arch` list, else the default archs) from sm_80 up, the PTX the
/// bundle's binaries embed (`polymul_kernels_<arch>.ptx`, for the driver's
/// JIT) and its cubins from CUDA 12.9's and CUDA 13.0's `ptxas`
/// (`polymul_kernels_<arch>.ptxas12.cubin`, `.ptxas13.cubin`), assembled
/// with build.rs's options, plus `images.txt` (which compiler made which
/// file). One xz tar with a 64 MiB dictionary: the two cubins of an arch
/// are nearly the same bytes, and unpacked the images of two archs come to
/// about 86 MB. `check-images.sh` unpacks it (`xz`, else Python's `lzma`).
pub fn kernel_images(dir: &Path, archs: Option<&str>) -> Res {
    let t0 = std::time::Instant::now();
    let archs: Vec<Arch> = match archs {
        Some(a) => Arch::parse_list(a).map_err(|e| e.to_string())?,
        None => Arch::DEFAULTS.to_vec(),
    };
    let archs: Vec<Arch> = archs.into_iter().filter(|a| a.0 >= 80).collect();
    if archs.is_empty() {
        eprintln!("no arch from sm_80 up in the bundle: no kernel images for check-images.sh");
        return Ok(());
    }
    let stage = root().join("target/bundle-images");
    let _ = std::fs::remove_dir_all(&stage);
    std::fs::create_dir_all(&stage).map_err(|e| format!("{}: {e}", stage.display()))?;
    // The PTX the binaries embed: POLYMUL_PTX_DIR's (build.rs adds the
    // register caps to it; adding them again changes nothing), else the
    // kernels built as build.rs built them (the nested build is shared).
    let ptx: Vec<(Arch, PathBuf)> = match std::env::var_os("POLYMUL_PTX_DIR").filter(|d| !d.is_empty()) {
        Some(from) => {
            let mut v = Vec::new();
            for &arch in &archs {
                let name = format!("polymul_kernels_{arch}.ptx");
                let src = Path::new(&from).join(&name);
                let text = std::fs::read_to_string(&src).map_err(|e| format!("{}: {e}", src.display()))?;
                let text =
                    polymul_ptx_builder::directives::with_register_caps(&text, &crate::register_caps(arch))?;
                std::fs::write(stage.join(&name), text).map_err(|e| format!("{name}: {e}"))?;
                v.push((arch, stage.join(name)));
            }
            v
        }
        None => crate::build_ptx(&archs, &stage)?,
    };
    let compilers = crate::sass_diff::compilers()?;
    eprintln!(
        "\n==> kernel images: {} assembled by {}",
        archs.iter().map(Arch::to_string).collect::<Vec<_>>().join(", "),
        compilers.iter().map(|c| format!("{} {}", c.label, c.version)).collect::<Vec<_>>().join(" and ")
    );
    let jobs: Vec<(Arch, &Path, &crate::sass_diff::Compiler)> =
        ptx.iter().flat_map(|(a, p)| compilers.iter().map(move |c| (*a, p.as_path(), c))).collect();
    let results: Vec<Res> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|&(arch, file, c)| {
                let cubin = stage.join(format!("polymul_kernels_{arch}.{}.cubin", c.label));
                s.spawn(move || crate::sass_diff::assemble(c, arch, file, &cubin))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a ptxas thread panicked".into())))
            .collect()
    });
    results.into_iter().collect::<Res<Vec<()>>>()?;
    let mut manifest = String::new();
    let mut names = vec!["images.txt".to_string()];
    for (arch, _) in &ptx {
        let p = format!("polymul_kernels_{arch}.ptx");
        manifest += &format!("{p} {arch} ptx PTX, JIT-compiled by the driver at load\n");
        names.push(p);
        for c in &compilers {
            let f = format!("polymul_kernels_{arch}.{}.cubin", c.label);
            manifest += &format!("{f} {arch} {} SASS from ptxas {} -arch={arch} -O3\n", c.label, c.version);
            names.push(f);
        }
    }
    std::fs::write(stage.join("images.txt"), manifest).map_err(|e| format!("images.txt: {e}"))?;
    let unpacked: u64 = names.iter().map(|n| file_len(&stage.join(n))).sum::<Res<u64>>()?;
    let out = dir.join(IMAGES_FILE);
    run(
        &format!("pack the kernel images ({}, xz -9)", mb(unpacked)),
        Command::new("tar").env("XZ_OPT", "-9 -T1").arg("-cJf").arg(&out).arg("-C").arg(&stage).args(&names),
    )
    .map_err(|e| format!("{e} (GNU tar and xz are needed for the kernel images; --no-images skips them)"))?;
    eprintln!(
        "kernel images: {} -> {} in {:.0} s",
        mb(unpacked),
        mb(file_len(&out)?),
        t0.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&stage);
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
    eprintln!("packed cubins: {} (limit {})", mb(cubins), mb(IMAGES_LIMIT));
    if cubins > IMAGES_LIMIT {
        over.push(format!("the packed cubins would be {cubins} bytes (IMAGES_LIMIT {IMAGES_LIMIT})"));
    }
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
            "{}: over BINARY_LIMIT ({BINARY_LIMIT} bytes) or IMAGES_LIMIT (xtask/src/bundle.rs) with every arch's kernels; \
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
