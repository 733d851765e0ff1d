//! `cargo xtask fuzz [--seconds N] [--target NAME]`: the cargo-fuzz targets
//! of `fuzz/` (libFuzzer, AddressSanitizer, debug assertions and overflow
//! checks), each for `N` seconds (default 30) from its checked-in seeds.
//! Installs the pinned cargo-fuzz into `target/tools/cargo-fuzz` when it is
//! missing. A crash, a timeout (10 s for one input) or running out of memory
//! fails the command and names the saved input. `cargo xtask test` runs
//! [`ci`]: the fuzz crate's fmt and clippy, then every target for
//! [`CI_SECONDS`]. See docs/fuzzing.md.

use crate::{Res, cargo, flag_value, root, run};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cargo-fuzz release used (checked with the pinned nightly).
pub const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// The targets, each with the longest input libFuzzer may make
/// (`-max_len`): room for a few `.npy` rows, a wisdom file of a dozen
/// entries, the `params` record with four RNS primes, two batches of
/// three 64-coefficient polynomials, and two small limb arrays (`.npy`
/// files or their coefficients).
pub const TARGETS: [(&str, usize); 5] =
    [("npy_read", 4096), ("wisdom_read", 8192), ("params", 256), ("cpu_polymul", 4096), ("cli_limbs", 4096)];

/// Seconds per target in `cargo xtask test`.
pub const CI_SECONDS: u64 = 20;

/// Seconds per target without `--seconds`.
const DEFAULT_SECONDS: u64 = 30;

/// A single input running longer than this is reported as a hang.
const TIMEOUT_SECONDS: u64 = 10;

/// `cargo xtask fuzz [--seconds N] [--target NAME]`.
pub fn fuzz(args: &[String]) -> Res {
    let seconds = match flag_value(args, "--seconds") {
        Some(s) => s
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("--seconds {s}: expected a positive number of seconds"))?,
        None => DEFAULT_SECONDS,
    };
    let targets: Vec<(&str, usize)> = match flag_value(args, "--target") {
        Some(name) => match TARGETS.iter().find(|(t, _)| *t == name) {
            Some(&t) => vec![t],
            None => {
                let names: Vec<&str> = TARGETS.iter().map(|(t, _)| *t).collect();
                return Err(format!("no fuzz target `{name}`; the targets are {}", names.join(", ")));
            }
        },
        None => TARGETS.to_vec(),
    };
    let cargo_fuzz = ensure_cargo_fuzz()?;
    let mut build = fuzz_cmd(&cargo_fuzz, "build");
    if let [(one, _)] = targets.as_slice() {
        build.arg(one);
    }
    run("cargo fuzz build (AddressSanitizer, debug assertions)", &mut build)?;
    for (name, max_len) in targets {
        run_target(&cargo_fuzz, name, max_len, seconds)?;
    }
    eprintln!("\nfuzzing: no crash ({seconds} s per target)");
    Ok(())
}

/// The fuzz steps of `cargo xtask test`: formatting and clippy of the fuzz
/// crate (its own workspace, so the root's steps skip it), then every
/// target for [`CI_SECONDS`].
pub fn ci() -> Res {
    fmt_check()?;
    run(
        "cargo clippy (fuzz crate)",
        cargo()
            .args(["clippy", "--manifest-path", "fuzz/Cargo.toml", "--all-targets", "--target-dir"])
            .arg(root().join("target/fuzz"))
            .env("POLYMUL_PTX_CACHE_DIR", root().join("target/ptx"))
            .args(["--", "-D", "warnings"]),
    )?;
    fuzz(&["--seconds".into(), CI_SECONDS.to_string()])
}

/// Formatting of the fuzz crate (its own workspace, which the root's
/// `cargo fmt --all` skips): a step of [`ci`] and of `cargo xtask precheck`.
pub fn fmt_check() -> Res {
    run(
        "cargo fmt --check (fuzz crate)",
        cargo().args(["fmt", "--manifest-path", "fuzz/Cargo.toml", "--", "--check"]),
    )
}

/// `cargo fuzz <sub>` with the build options every call shares: debug
/// assertions and overflow checks on (besides the default release build and
/// AddressSanitizer), the build in `target/fuzz`, the kernels' nested build
/// in `target/ptx` (shared with the root's builds, not rebuilt).
fn fuzz_cmd(cargo_fuzz: &Path, sub: &str) -> Command {
    let mut c = Command::new(cargo_fuzz);
    c.current_dir(root())
        .args(["fuzz", sub, "--debug-assertions", "--target-dir"])
        .arg(root().join("target/fuzz"))
        .env("POLYMUL_PTX_CACHE_DIR", root().join("target/ptx"))
        // A release build, but no binary to ship: the kernel images packed
        // quickly (build.rs would take zstd level 19, about a minute).
        .env("POLYMUL_ZSTD_LEVEL", "3");
    c
}

/// `target/tools/cargo-fuzz/bin/cargo-fuzz` at [`CARGO_FUZZ_VERSION`],
/// installed with `cargo install --locked` if missing or another version.
fn ensure_cargo_fuzz() -> Res<PathBuf> {
    let dir = root().join("target/tools/cargo-fuzz");
    let bin = dir.join("bin/cargo-fuzz");
    if version(&bin).as_deref() == Some(CARGO_FUZZ_VERSION) {
        return Ok(bin);
    }
    run(
        &format!("cargo install cargo-fuzz {CARGO_FUZZ_VERSION} (into {})", dir.display()),
        cargo()
            .args(["install", "cargo-fuzz", "--locked", "--version", CARGO_FUZZ_VERSION, "--root"])
            .arg(&dir),
    )?;
    match version(&bin) {
        Some(v) if v == CARGO_FUZZ_VERSION => Ok(bin),
        other => Err(format!("{} reports version {other:?}, not {CARGO_FUZZ_VERSION}", bin.display())),
    }
}

/// The version `cargo-fuzz --version` prints (`cargo-fuzz 0.13.2`).
fn version(bin: &Path) -> Option<String> {
    let out = Command::new(bin).args(["fuzz", "--version"]).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    out.status.success().then(|| text.split_whitespace().last().map(str::to_owned)).flatten()
}

/// Files in `dir` (none if it does not exist).
fn listing(dir: &Path) -> BTreeSet<PathBuf> {
    std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default()
}

/// Runs one target for `seconds` from its seeds (`fuzz/seeds/<name>`),
/// adding what it finds to `fuzz/corpus/<name>`; on failure, names the
/// inputs libFuzzer saved in `fuzz/artifacts/<name>` and how to replay them.
fn run_target(cargo_fuzz: &Path, name: &str, max_len: usize, seconds: u64) -> Res {
    let fuzz_dir = root().join("fuzz");
    let corpus = fuzz_dir.join("corpus").join(name);
    let seeds = fuzz_dir.join("seeds").join(name);
    let artifacts = fuzz_dir.join("artifacts").join(name);
    std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let before = listing(&artifacts);
    let mut cmd = fuzz_cmd(cargo_fuzz, "run");
    cmd.arg(name).arg(&corpus).arg(&seeds).arg("--").args([
        format!("-max_total_time={seconds}"),
        format!("-max_len={max_len}"),
        format!("-timeout={TIMEOUT_SECONDS}"),
        "-print_final_stats=1".into(),
    ]);
    let Err(e) = run(&format!("fuzz target {name} for {seconds} s"), &mut cmd) else {
        return Ok(());
    };
    let saved: Vec<String> =
        listing(&artifacts).difference(&before).map(|p| p.display().to_string()).collect();
    if saved.is_empty() {
        return Err(format!("{e}; no input was saved (see the output above)"));
    }
    Err(format!(
        "fuzz target `{name}` failed; the input that did it:\n  {}\nreplay it with\n  {} fuzz run \
         --debug-assertions --target-dir target/fuzz {name} {}",
        saved.join("\n  "),
        cargo_fuzz.display(),
        saved[0]
    ))
}
