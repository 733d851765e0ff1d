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

    let archs = match std::env::var("POLYMUL_PTX_ARCHS") {
        Ok(s) => Arch::parse_list(&s).map_err(|e| e.to_string())?,
        Err(_) => Arch::DEFAULTS.to_vec(),
    };
    let target_root = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target"))
        .join("ptx");
    let expected: Vec<String> = polymul_kernels::names::entries()
        .map(|parts| parts.iter().filter(|p| !p.is_empty()).copied().collect::<Vec<_>>().join("_"))
        .collect();

    let mut index = String::from("/// PTX of `polymul-kernels` by SM version, built by build.rs.\n");
    index.push_str("pub(crate) static PTX_MODULES: &[(u32, &str)] = &[\n");
    for arch in archs {
        let art = PtxBuilder::new(&kernels, target_root.join(arch.to_string()), arch)
            .expect_kernels(expected.iter().cloned())
            .quiet(true)
            .build()
            .map_err(|e| e.to_string())?;
        let file = format!("polymul_kernels_{arch}.ptx");
        std::fs::write(out_dir.join(&file), &art.ptx).map_err(|e| e.to_string())?;
        index
            .push_str(&format!("    ({}, include_str!(concat!(env!(\"OUT_DIR\"), \"/{file}\"))),\n", arch.0));
    }
    index.push_str("];\n");
    std::fs::write(out_dir.join("ptx_modules.rs"), index).map_err(|e| e.to_string())
}
