//! polymul's build script for the vendored `cust_raw`: finds `libcuda` for
//! the link line with no environment variable and no CUDA toolkit.
//!
//! The crates.io `cust_raw` asks `find_cuda_helper`, which only looks at
//! `$CUDA_LIBRARY_PATH` and toolkit folders (`/usr/local/cuda*/lib64`,
//! `/opt/cuda/lib64`) and panics on a machine that has the NVIDIA driver but
//! no toolkit. A crate depending on polymul cannot set that variable for a
//! dependency's build script, so this one looks, in order, at:
//!
//! 1. `$CUDA_LIBRARY_PATH` (folders separated by `:`; each folder, its
//!    `lib64` and `lib64/stubs`) and the toolkit roots `$CUDA_PATH`,
//!    `$CUDA_ROOT`, `$CUDA_TOOLKIT_ROOT_DIR`;
//! 2. where drivers and toolkits install it: the multiarch and `lib64`
//!    folders, WSL's `/usr/lib/wsl/lib`, `/usr/local/cuda*`, `/opt/cuda`;
//! 3. the folders `ldconfig -p` lists for `libcuda.so.1`.
//!
//! It takes the first folder holding `libcuda.so`; where only the driver's
//! `libcuda.so.1` exists (no development symlink), it links through a
//! `libcuda.so` symlink in `OUT_DIR`. Without either it stops the build with
//! one message saying what to install.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for var in ["CUDA_LIBRARY_PATH", "CUDA_PATH", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    if env::var_os("DOCS_RS").is_some() {
        return;
    }
    let target_os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let candidates = candidates(&target_os);
    if target_os != "linux" {
        // Windows and the rest: the toolkit's import library, as before.
        for dir in candidates.iter().filter(|d| d.is_dir()) {
            println!("cargo:rustc-link-search=native={}", dir.display());
        }
        println!("cargo:rustc-link-lib=dylib=cuda");
        return;
    }
    if let Some(dir) = candidates.iter().find(|d| d.join("libcuda.so").is_file()) {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=dylib=cuda");
        return;
    }
    if let Some(lib) = candidates.iter().map(|d| d.join("libcuda.so.1")).find(|f| f.is_file()) {
        match link_through_symlink(&lib) {
            Ok(dir) => {
                println!("cargo:rustc-link-search=native={}", dir.display());
                println!("cargo:rustc-link-lib=dylib=cuda");
                return;
            }
            Err(e) => fail(&format!("could not make a libcuda.so symlink to {}: {e}", lib.display())),
        }
    }
    let searched: Vec<String> = candidates.iter().map(|d| d.display().to_string()).collect();
    fail(&format!(
        "libcuda.so.1, the CUDA driver library, was not found. Install the NVIDIA driver (on a machine \
         without a GPU: Debian's package libcuda1 from non-free, or Ubuntu's libnvidia-compute-<version>; \
         polymul then runs on the CPU), or set CUDA_LIBRARY_PATH to the folder holding libcuda.so.\n\
         searched: {}",
        searched.join(", ")
    ));
}

fn fail(msg: &str) -> ! {
    eprintln!("\nerror: polymul-cust-raw (polymul's CUDA driver bindings): {msg}\n");
    std::process::exit(1);
}

/// Every folder to look in, in order, each once (missing folders included:
/// the callers test for the files).
fn candidates(target_os: &str) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(paths) = env::var_os("CUDA_LIBRARY_PATH") {
        for base in env::split_paths(&paths) {
            dirs.push(base.join("lib64"));
            dirs.push(base.join("lib64/stubs"));
            dirs.push(base);
        }
    }
    for var in ["CUDA_PATH", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR"] {
        if let Some(root) = env::var_os(var).map(PathBuf::from) {
            if target_os == "windows" {
                dirs.push(root.join("lib/x64"));
            } else {
                toolkit_dirs(&root, &mut dirs);
            }
        }
    }
    if target_os != "linux" {
        return dirs;
    }
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_else(|_| "x86_64".into());
    let multiarch = format!("{arch}-linux-gnu");
    for d in ["/usr/lib", "/lib"] {
        dirs.push(Path::new(d).join(&multiarch));
    }
    for d in ["/usr/lib64", "/lib64", "/usr/lib", "/usr/lib/wsl/lib"] {
        dirs.push(PathBuf::from(d));
    }
    toolkit_dirs(Path::new("/usr/local/cuda"), &mut dirs);
    toolkit_dirs(Path::new("/opt/cuda"), &mut dirs);
    if let Ok(entries) = std::fs::read_dir("/usr/local") {
        let mut versioned: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("cuda-")))
            .collect();
        versioned.sort();
        for root in versioned.iter().rev() {
            toolkit_dirs(root, &mut dirs);
        }
    }
    dirs.extend(ldconfig_dirs());
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.clone()));
    dirs
}

/// The library folders of a CUDA toolkit at `root` (the driver API stub last).
fn toolkit_dirs(root: &Path, dirs: &mut Vec<PathBuf>) {
    dirs.push(root.join("lib64"));
    dirs.push(root.join("targets/x86_64-linux/lib"));
    dirs.push(root.join("targets/sbsa-linux/lib"));
    dirs.push(root.join("lib64/stubs"));
    dirs.push(root.join("targets/x86_64-linux/lib/stubs"));
    dirs.push(root.join("targets/sbsa-linux/lib/stubs"));
}

/// Folders of `libcuda.so*` in the dynamic linker's cache.
fn ldconfig_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for ldconfig in ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"] {
        let Ok(out) = std::process::Command::new(ldconfig).arg("-p").output() else { continue };
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if !line.trim_start().starts_with("libcuda.so") {
                continue;
            }
            if let Some(dir) = line.rsplit("=> ").next().map(str::trim).map(Path::new).and_then(Path::parent)
            {
                dirs.push(dir.to_path_buf());
            }
        }
        break;
    }
    dirs
}

/// `OUT_DIR/libcuda-link/libcuda.so` → `lib`: a folder the linker can search
/// for `-lcuda` where the system has only the versioned driver library.
fn link_through_symlink(lib: &Path) -> std::io::Result<PathBuf> {
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default()).join("libcuda-link");
    std::fs::create_dir_all(&out)?;
    let link = out.join("libcuda.so");
    let _ = std::fs::remove_file(&link);
    #[cfg(unix)]
    std::os::unix::fs::symlink(lib, &link)?;
    #[cfg(not(unix))]
    std::fs::copy(lib, &link)?;
    Ok(out)
}
