//! `cargo xtask python [--release] [--out DIR]` and the Python step of
//! `cargo xtask test`: the `polymul` Python package (crates/python) built
//! as an abi3 wheel with maturin, installed into a virtual environment
//! under `target/pyenv`, and its pytest suite run (the CPU path on a
//! machine without a GPU; the GPU tests skip there).
//!
//! The environment is made on first use with `python3 -m venv` and
//! `pip install maturin numpy pytest` from PyPI, and reused after. The test
//! build uses cargo's `dev` profile (the quickest to build; the suite runs
//! in seconds on it, and debug assertions stay on). Not `test`: `cargo rustc
//! --profile test`, which maturin runs, builds a test harness instead of the
//! extension. `--release` builds the wheel to ship
//! (`bash crates/python/make_bundle.sh` packs it for a GPU machine).

use crate::{Res, root, run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The Python packages of the build and test environment.
const PY_PACKAGES: [&str; 3] = ["maturin>=1.7,<2", "numpy", "pytest"];

fn venv() -> PathBuf {
    root().join("target/pyenv")
}

fn venv_bin(tool: &str) -> PathBuf {
    venv().join("bin").join(tool)
}

/// Creates `target/pyenv` (if missing) and installs maturin, NumPy and
/// pytest into it (if any is missing).
fn ensure_env() -> Res {
    let python = venv_bin("python");
    if !python.exists() {
        let host = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        run("python3 -m venv target/pyenv", Command::new(&host).args(["-m", "venv"]).arg(venv()))?;
    }
    let have = Command::new(&python)
        .args(["-c", "import maturin, numpy, pytest"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !have || !venv_bin("maturin").exists() {
        run(
            "pip install maturin numpy pytest (target/pyenv)",
            Command::new(&python).args(["-m", "pip", "install", "--quiet"]).args(PY_PACKAGES),
        )?;
    }
    Ok(())
}

/// Builds the wheel into `out`; returns its path.
fn build_wheel(release: bool, out: &Path) -> Res<PathBuf> {
    let _ = std::fs::remove_dir_all(out);
    let mut cmd = Command::new(venv_bin("maturin"));
    cmd.current_dir(root())
        .args(["build", "--manifest-path", "crates/python/Cargo.toml", "--interpreter"])
        .arg(venv_bin("python"))
        .arg("--out")
        .arg(out)
        // The glibc tag the extension needs (Rust's std on glibc ≥ 2.34
        // references GLIBC_2.34 symbols): Ubuntu 22.04, Debian 12, RHEL 9 on.
        // No auditwheel repair: libcuda.so.1 comes from the driver, loaded
        // at run time, and is never bundled (pyproject.toml).
        .args(["--compatibility", "manylinux_2_34"]);
    if release {
        cmd.arg("--release");
    } else {
        // The test wheel never leaves this machine: PTX only (the driver
        // would JIT it), no SASS assembled by ptxas, which saves a minute.
        cmd.args(["--profile", "dev"]).env("POLYMUL_CUBIN", "0");
    }
    run(&format!("maturin build ({})", if release { "release" } else { "dev profile" }), &mut cmd)?;
    let wheel = std::fs::read_dir(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("maturin left no wheel in {}", out.display()))?;
    Ok(wheel)
}

/// Installs `wheel` into the environment and runs the pytest suite.
fn install_and_test(wheel: &Path) -> Res {
    run(
        "pip install the wheel (target/pyenv)",
        Command::new(venv_bin("python"))
            .args(["-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall"])
            .arg(wheel),
    )?;
    // From outside the source tree, so `import polymul` is the installed wheel.
    run(
        "pytest crates/python/tests",
        Command::new(venv_bin("python"))
            .current_dir(root().join("target"))
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root().join("crates/python/tests")),
    )?;
    run(
        "crates/python/examples/polymul_demo.py",
        Command::new(venv_bin("python"))
            .current_dir(root().join("target"))
            .arg(root().join("crates/python/examples/polymul_demo.py")),
    )
}

/// The step of `cargo xtask test`: build (dev profile), install, pytest.
pub fn ci() -> Res {
    let start = Instant::now();
    ensure_env()?;
    let wheel = build_wheel(false, &root().join("target/wheels-py"))?;
    install_and_test(&wheel)?;
    eprintln!("python: wheel, install and pytest in {:.0} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// `cargo xtask python [--release] [--out DIR] [--no-test]`.
pub fn python(args: &[String]) -> Res {
    ensure_env()?;
    let release = args.iter().any(|a| a == "--release");
    // A relative --out is taken from the workspace root.
    let out =
        crate::flag_value(args, "--out").map_or_else(|| root().join("target/wheels-py"), |o| root().join(o));
    let wheel = build_wheel(release, &out)?;
    eprintln!("wheel: {}", wheel.display());
    if args.iter().any(|a| a == "--no-test") { Ok(()) } else { install_and_test(&wheel) }
}
