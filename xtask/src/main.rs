//! `cargo xtask <command>`: see `cargo xtask help`.
fn main() {
    polymul_ptx_builder::run_as_linker_if_requested();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let arch = polymul_ptx_builder::Arch(90);
    let art = polymul_ptx_builder::PtxBuilder::new(root.join("crates/kernels"), root.join("target/ptx/sm_90"), arch).build();
    match art { Ok(a) => println!("{} {:?}", a.path.display(), a.entries), Err(e) => { eprintln!("{e}"); std::process::exit(1) } }
}
