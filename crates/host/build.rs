//! Builds `polymul-kernels` to PTX for every requested arch and embeds it.
//!
//! Set `POLYMUL_PTX_ARCHS=sm_70,sm_90` to choose the archs (default: sm_70,
//! sm_80, sm_90). The nested build lives in `<target>/ptx/<arch>` so that
//! `cargo build`, `cargo test` and `cargo clippy` share it.

use polymul_ptx_builder::{Arch, PtxBuilder};
use std::path::PathBuf;

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
    let kernels = manifest.join("../kernels");
    println!("cargo:rerun-if-changed={}", kernels.join("src").display());
    println!("cargo:rerun-if-changed={}", kernels.join("Cargo.toml").display());
    println!("cargo:rerun-if-env-changed=POLYMUL_PTX_ARCHS");
    println!("cargo:rerun-if-env-changed=POLYMUL_CUBIN");
    println!("cargo:rerun-if-env-changed=PTXAS");
    println!("cargo:rerun-if-env-changed=POLYMUL_CUBIN_PTXAS");

    let archs = match std::env::var("POLYMUL_PTX_ARCHS") {
        Ok(s) => Arch::parse_list(&s).map_err(|e| e.to_string())?,
        Err(_) => Arch::DEFAULTS.to_vec(),
    };
    let target_root = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target"))
        .join("ptx");
    let expected = |arch: u32| {
        let mut v: Vec<String> = Vec::new();
        polymul_kernels::names::for_each_entry(arch, |n| v.push(n.to_string()));
        v
    };

    let mut index = String::from("/// PTX of `polymul-kernels` by SM version, built by build.rs.\n");
    index.push_str("pub(crate) static PTX_MODULES: &[(u32, &str)] = &[\n");
    let ptxas =
        if std::env::var("POLYMUL_CUBIN").is_ok_and(|v| v == "0") { None } else { locate_ptxas(&manifest) };
    if ptxas.is_none() {
        println!(
            "cargo:warning=ptxas not found (scripts/setup.sh installs it): embedding PTX only, which the \
             driver JIT-compiles on every fresh machine (about 10 s)"
        );
    }
    let mut cubins =
        String::from("/// SASS (cubin) of `polymul-kernels` by SM version, built by build.rs.\n");
    cubins.push_str("pub(crate) static CUBIN_MODULES: &[(u32, &[u8])] = &[\n");
    for arch in archs {
        let art = PtxBuilder::new(&kernels, target_root.join(arch.to_string()), arch)
            .expect_kernels(expected(arch.0))
            .quiet(true)
            .build()
            .map_err(|e| e.to_string())?;
        let ptx = polymul_ptx_builder::directives::with_register_caps(&art.ptx, &register_caps())?;
        let file = format!("polymul_kernels_{arch}.ptx");
        std::fs::write(out_dir.join(&file), &ptx).map_err(|e| e.to_string())?;
        index
            .push_str(&format!("    ({}, include_str!(concat!(env!(\"OUT_DIR\"), \"/{file}\"))),\n", arch.0));
        if let Some(ptxas) = &ptxas {
            let cubin = format!("polymul_kernels_{arch}.cubin");
            let out = std::process::Command::new(ptxas)
                .arg(format!("-arch={arch}"))
                .arg("-O3")
                .arg("-o")
                .arg(out_dir.join(&cubin))
                .arg(out_dir.join(&file))
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
                continue;
            }
            cubins.push_str(&format!(
                "    ({}, include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{cubin}\"))),\n",
                arch.0
            ));
        }
    }
    index.push_str("];\n");
    cubins.push_str("];\n");
    index.push_str(&cubins);
    std::fs::write(out_dir.join("ptx_modules.rs"), index).map_err(|e| e.to_string())
}

/// The `ptxas` that makes the embedded cubins: `$POLYMUL_CUBIN_PTXAS`, the
/// CUDA 13.0 copy scripts/setup.sh installs (the same compiler as the 13.0
/// driver's JIT), `$PTXAS`, the CUDA 12.9 copy, or one on `PATH`.
/// The register caps of the kernels (`polymul_kernels::ntt::lazy::max_regs`).
fn register_caps() -> Vec<(String, u32)> {
    let mut caps = Vec::new();
    polymul_kernels::names::for_each_register_cap(|n, c| caps.push((n.to_string(), c)));
    caps
}

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
