//! `cargo xtask downstream` and `cargo xtask msrv`: polymul as a dependency
//! on stable Rust, and the host-side crates on the oldest supported Rust.
//!
//! - [`downstream`] builds `examples/downstream` (a crate outside the
//!   workspace with `polymul = { path = ... }`) with the toolchain its own
//!   `rust-toolchain.toml` names (stable), in an environment emptied of
//!   everything but `PATH`, `HOME`, rustup's and cargo's homes and a few
//!   harmless variables (`USER`, `TMPDIR`, `LANG`, `TERM`, `CI`), so no
//!   variable of this workspace (nor the `.cargo/config.toml` it does not
//!   read) helps; then runs it: a CPU product checked against the schoolbook
//!   one, and the GPU's if there is one.
//! - [`msrv`] runs `cargo check` of the host-side crates with the toolchain
//!   of the workspace's `rust-version`, the kernels taken from prebuilt PTX
//!   (`POLYMUL_PTX_DIR`).
//!
//! Both are steps of `cargo xtask test`; `scripts/setup.sh` installs the two
//! toolchains. See docs/toolchain.md.

use crate::{Res, root, run};
use polymul_ptx_builder::Arch;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The host-side packages the MSRV check compiles (the Python bindings
/// too: PyO3 0.27 builds on it).
const HOST_PACKAGES: [&str; 7] = [
    "polymul",
    "polymul-npy",
    "polymul-cli",
    "polymul-bench",
    "polymul-kernels",
    "polymul-ptx-builder",
    "polymul-python",
];

/// `rustup run <toolchain> <args>` with only the variables a fresh shell has.
fn rustup_run(toolchain: &str, dir: &Path) -> Command {
    let mut c = Command::new("rustup");
    c.current_dir(dir).env_clear();
    for k in ["PATH", "HOME", "USER", "CARGO_HOME", "RUSTUP_HOME", "TMPDIR", "LANG", "TERM", "CI"] {
        if let Some(v) = std::env::var_os(k) {
            c.env(k, v);
        }
    }
    c.args(["run", toolchain]);
    c
}

/// A `key = "value"` of a TOML file (first match, any table).
fn toml_value(file: &Path, key: &str) -> Res<String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix(key)?.trim_start().strip_prefix('=')?;
            Some(rest.trim().trim_matches('"').to_string())
        })
        .ok_or_else(|| format!("{}: no `{key}`", file.display()))
}

/// The rustup toolchain of the workspace's `rust-version` (`1.88` → `1.88.0`).
pub fn msrv_toolchain() -> Res<String> {
    let v = toml_value(&root().join("Cargo.toml"), "rust-version")?;
    Ok(if v.matches('.').count() == 1 { format!("{v}.0") } else { v })
}

/// `cargo xtask msrv`: `cargo check` of the host-side crates with the
/// `rust-version` toolchain. The kernels come from `POLYMUL_PTX_DIR` (the
/// PTX of `cargo xtask build-ptx`, reused from `target/ptx-out`), which
/// tests that route of `build.rs` too: no nightly runs under this build.
pub fn msrv() -> Res {
    let tc = msrv_toolchain()?;
    let ptx_dir = root().join("target/ptx-out");
    crate::build_ptx(&Arch::DEFAULTS, &ptx_dir)?;
    let start = Instant::now();
    let mut cmd = rustup_run(&tc, &root());
    cmd.args(["cargo", "check", "--locked", "--target-dir"])
        .arg(root().join("target/msrv"))
        .env("POLYMUL_PTX_DIR", &ptx_dir)
        .env("POLYMUL_CUBIN", "0");
    for p in HOST_PACKAGES {
        cmd.args(["-p", p]);
    }
    run(&format!("cargo +{tc} check (host-side crates on the minimum supported Rust)"), &mut cmd)?;
    eprintln!("msrv: {tc} builds the host-side crates ({:.0} s)", start.elapsed().as_secs_f64());
    Ok(())
}

/// `cargo xtask downstream`: build `examples/downstream` from scratch-like
/// conditions (its own target folder, `target/downstream`) and run it.
pub fn downstream() -> Res {
    let dir = root().join("examples/downstream");
    let tc = toml_value(&dir.join("rust-toolchain.toml"), "channel")?;
    let target = root().join("target/downstream");
    let start = Instant::now();
    run(
        &format!("rustc version of the downstream crate's toolchain ({tc})"),
        rustup_run(&tc, &dir).args(["rustc", "--version"]),
    )?;
    run(
        &format!("cargo +{tc} build (examples/downstream: polymul as a path dependency, no environment)"),
        rustup_run(&tc, &dir).args(["cargo", "build", "--target-dir"]).arg(&target),
    )?;
    let built = start.elapsed().as_secs_f64();
    let exe = target.join("debug/polymul-downstream-example");
    let out = rustup_run(&tc, &dir)
        .arg(&exe)
        .output()
        .map_err(|e| format!("{}: could not start: {e}", exe.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprint!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    if !out.status.success() || !stdout.contains("downstream example: ok") {
        return Err(format!("{} failed ({})", exe.display(), out.status));
    }
    let readme = target.join("debug/readme");
    run("README's \"Use it from your crate\" code", rustup_run(&tc, &dir).arg(&readme))?;
    eprintln!(
        "downstream: built in {built:.0} s with {tc}, ran in {:.1} s",
        start.elapsed().as_secs_f64() - built
    );
    Ok(())
}
