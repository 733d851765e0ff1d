//! `cargo xtask nodriver` and its step of `cargo xtask test`: polymul on a
//! machine without the NVIDIA driver. The vendored `cust_raw` opens
//! `libcuda.so.1` at run time (third_party/README.md), so
//!
//! 1. no binary needs it: `readelf -d` of the `polymul` CLI and of a host
//!    test binary (those `cargo test --workspace` built) lists no `libcuda`
//!    among their `NEEDED` libraries;
//! 2. with `POLYMUL_CUDA_DRIVER` naming a file that does not exist (which
//!    behaves as a machine without the driver), the CLI multiplies on the
//!    CPU, `--cpu` and by itself with a note, bit-exact against a
//!    schoolbook product computed here, and a command that needs the GPU
//!    (`polymul tune`) fails with the no-GPU exit code and a message naming
//!    the missing library;
//! 3. where `cargo xtask python` has installed the wheel in `target/pyenv`
//!    (the step before this one in `cargo xtask test`), its extension module
//!    needs no `libcuda` either, and `import polymul` works the same way:
//!    the CPU product, and `GpuError` for `device="gpu"`.
//!    Without that environment this part is skipped (said on stderr).
//!
//! `crates/host/tests/no_driver.rs` checks the library's side in-process
//! (the bindings' error codes, `Error::NoGpu`'s detail, the CPU backend).

use crate::{Res, cargo, root};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

/// The driver library the checks are told to load: no such file.
const MISSING: &str = "/nonexistent/libcuda.so.1";
/// The variable `cust_raw` reads (third_party/cust_raw/src/loader.rs).
const DRIVER_ENV: &str = "POLYMUL_CUDA_DRIVER";
/// The CLI's exit code for `ErrorKind::NoGpu` (`RUNTIME`,
/// crates/cli/src/error.rs `known_exit_code`).
const NO_GPU_EXIT: i32 = 1;
/// An NTT-friendly prime for N = 16 (12289 = 3·2^12 + 1 ≡ 1 mod 32).
const Q: u64 = 12289;
const N: usize = 16;
const ROWS: usize = 4;

/// The step of `cargo xtask test` (and `cargo xtask nodriver`).
pub fn ci() -> Res {
    eprintln!("\n==> without the NVIDIA driver ({DRIVER_ENV}={MISSING})");
    let start = Instant::now();
    let (cli, test_bin) = binaries()?;
    for bin in [&cli, &test_bin] {
        let needed = needed_libraries(bin)?;
        if let Some(lib) = needed.iter().find(|l| l.contains("libcuda")) {
            return Err(format!("{} needs {lib}: the driver must be loaded at run time", bin.display()));
        }
        eprintln!("  {}: NEEDED {}", bin.display(), needed.join(", "));
    }
    let dir = root().join("target/nodriver");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    cli_product(&cli, &dir)?;
    cli_gpu_command(&cli, &dir)?;
    python()?;
    eprintln!(
        "nodriver: no libcuda linked; CLI and library work without it ({:.0} s)",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The `polymul` CLI and the host's `no_driver` test binary that
/// `cargo test --workspace` builds (the same command, so nothing is rebuilt
/// after that step).
fn binaries() -> Res<(PathBuf, PathBuf)> {
    let what = "cargo test --workspace --no-run (the binaries to inspect)";
    eprintln!("  {what}");
    let out = cargo()
        .args(["test", "--workspace", "--no-run", "--message-format=json-render-diagnostics"])
        .output()
        .map_err(|e| format!("{what}: could not start: {e}"))?;
    if !out.status.success() {
        return Err(format!("{what} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr)));
    }
    let (mut cli, mut test_bin) = (None, None);
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let Some(exe) = msg["executable"].as_str() else { continue };
        let kind = &msg["target"]["kind"][0];
        let name = &msg["target"]["name"];
        if kind == "bin" && name == "polymul" && msg["profile"]["test"] == false {
            cli = Some(PathBuf::from(exe));
        } else if kind == "test" && name == "no_driver" {
            test_bin = Some(PathBuf::from(exe));
        }
    }
    match (cli, test_bin) {
        (Some(c), Some(t)) => Ok((c, t)),
        _ => Err(format!("{what}: no `polymul` CLI binary or `no_driver` test binary in its output")),
    }
}

/// The `NEEDED` entries of `bin`'s dynamic section (`readelf -d`).
fn needed_libraries(bin: &Path) -> Res<Vec<String>> {
    let out = Command::new("readelf")
        .arg("-d")
        .arg(bin)
        .output()
        .map_err(|e| format!("readelf (binutils) could not start: {e}"))?;
    if !out.status.success() {
        return Err(format!("readelf -d {} failed ({})", bin.display(), out.status));
    }
    let libs: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split_once('[')?.1.split_once(']')?.0.to_string()))
        .collect();
    // Every dynamically linked Rust binary needs libc: no entries at all
    // means the output was not understood, not that nothing is needed.
    if !libs.iter().any(|l| l.starts_with("libc.")) {
        return Err(format!("readelf -d {}: no NEEDED libc among {libs:?}", bin.display()));
    }
    Ok(libs)
}

/// Runs `cmd` without the driver; its output.
fn run_without_driver(what: &str, cmd: &mut Command) -> Res<Output> {
    cmd.env(DRIVER_ENV, MISSING).output().map_err(|e| format!("{what}: could not start: {e}"))
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// `polymul mul` on the CPU (`--cpu`, and the default GPU request that
/// falls back with a note) equals the schoolbook product.
fn cli_product(cli: &Path, dir: &Path) -> Res {
    let (a, b) = operands();
    let (pa, pb) = (dir.join("a.npy"), dir.join("b.npy"));
    write_npy_u32(&pa, &a)?;
    write_npy_u32(&pb, &b)?;
    let want: Vec<u64> = (0..ROWS).flat_map(|r| negacyclic(&a[r * N..][..N], &b[r * N..][..N])).collect();
    for (label, cpu) in [("--cpu", true), ("no GPU: the CPU by itself", false)] {
        let out_file = dir.join(if cpu { "c_cpu.npy" } else { "c_auto.npy" });
        let mut cmd = Command::new(cli);
        cmd.arg("mul").arg(&pa).arg(&pb).args(["--q", &Q.to_string(), "--no-wisdom", "--out"]).arg(&out_file);
        if cpu {
            cmd.arg("--cpu");
        }
        let what = format!("polymul mul ({label})");
        let out = run_without_driver(&what, &mut cmd)?;
        if !out.status.success() {
            return Err(format!("{what} failed ({}): {}", out.status, text(&out)));
        }
        if !cpu {
            let note = String::from_utf8_lossy(&out.stderr);
            if !(note.contains("no CUDA GPU") && note.contains("libcuda.so.1") && note.contains(MISSING)) {
                return Err(format!("{what}: no note naming the missing driver library on stderr: {note}"));
            }
        }
        let got = read_npy(&out_file)?;
        if got != want {
            return Err(format!("{what}: the product differs from the schoolbook product"));
        }
        eprintln!("  {what}: {ROWS}×{N} product mod {Q} equals the schoolbook product");
    }
    Ok(())
}

/// `polymul tune` needs a GPU: the no-GPU exit code and the reason.
fn cli_gpu_command(cli: &Path, dir: &Path) -> Res {
    let what = "polymul tune (needs a GPU)";
    let wisdom = dir.join("wisdom.json");
    let out = run_without_driver(what, Command::new(cli).args(["tune", "--quick", "--out"]).arg(&wisdom))?;
    let msg = String::from_utf8_lossy(&out.stderr);
    if out.status.code() != Some(NO_GPU_EXIT) {
        return Err(format!("{what}: exit {} instead of {NO_GPU_EXIT} (no GPU): {}", out.status, text(&out)));
    }
    for want in ["no CUDA GPU available", "libcuda.so.1", MISSING, "install the NVIDIA driver"] {
        if !msg.contains(want) {
            return Err(format!("{what}: the message does not say `{want}`: {msg}"));
        }
    }
    eprintln!("  {what}: exit {NO_GPU_EXIT}, {}", msg.trim());
    Ok(())
}

/// The Python check, where `target/pyenv` has the wheel installed.
fn python() -> Res {
    let py = root().join("target/pyenv/bin/python");
    let installed = Command::new(&py)
        .args(["-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('polymul') is None)"])
        .current_dir(root().join("target"))
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        eprintln!("  python: no polymul wheel in target/pyenv (cargo xtask python installs it): skipped");
        return Ok(());
    }
    // The installed extension module links no libcuda either.
    for ext in extension_modules(&root().join("target/pyenv/lib"))? {
        let needed = needed_libraries(&ext)?;
        if let Some(lib) = needed.iter().find(|l| l.contains("libcuda")) {
            return Err(format!("{} needs {lib}: the driver must be loaded at run time", ext.display()));
        }
        eprintln!("  {}: NEEDED {}", ext.display(), needed.join(", "));
    }
    let script = format!(
        r#"
import numpy as np, polymul
assert not polymul.gpu_available(), "a GPU without the driver"
assert polymul.backend().startswith("CPU"), polymul.backend()
plan = polymul.NttPlan({N}, q={Q}, word=32)
rng = np.random.default_rng(7)
a = rng.integers(0, {Q}, ({ROWS}, {N}), dtype=np.uint32)
b = rng.integers(0, {Q}, ({ROWS}, {N}), dtype=np.uint32)
c = plan.polymul(a, b)
assert [list(map(int, r)) for r in c] == [polymul.negacyclic_reference(x, y, {Q}) for x, y in zip(a, b)]
try:
    polymul.NttPlan({N}, q={Q}, word=32, device="gpu")
except polymul.GpuError as e:
    assert "libcuda.so.1" in str(e) and "{MISSING}" in str(e), str(e)
else:
    raise AssertionError('device="gpu" without the driver gave a plan')
print("  python: import polymul, the CPU product, GpuError for device='gpu': ok")
"#
    );
    let what = "python without the driver";
    // From outside the source tree, so `import polymul` is the installed wheel.
    let out =
        run_without_driver(what, Command::new(&py).args(["-c", &script]).current_dir(root().join("target")))?;
    if !out.status.success() {
        return Err(format!("{what} failed ({}): {}", out.status, text(&out)));
    }
    eprint!("{}", String::from_utf8_lossy(&out.stdout));
    Ok(())
}

/// The `polymul/_polymul*.so` files under `lib` (`lib/python3.X/site-packages`); at least one.
fn extension_modules(lib: &Path) -> Res<Vec<PathBuf>> {
    let read = |d: &Path| std::fs::read_dir(d).map_err(|e| format!("{}: {e}", d.display()));
    let mut found = Vec::new();
    for py in read(lib)?.flatten() {
        let pkg = py.path().join("site-packages/polymul");
        let Ok(entries) = read(&pkg) else { continue };
        for f in entries.flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.starts_with("_polymul") && name.ends_with(".so") {
                found.push(f.path());
            }
        }
    }
    if found.is_empty() {
        return Err(format!("no polymul/_polymul*.so under {}", lib.display()));
    }
    Ok(found)
}

/// `ROWS` rows each of `a` and `b`: pseudo-random coefficients below `Q`,
/// then the edges (all `Q − 1`; `X^(N−1)` times itself, which wraps to
/// `−X^(N−2)`).
fn operands() -> (Vec<u64>, Vec<u64>) {
    let mut s = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (s >> 33) % Q
    };
    let mut a: Vec<u64> = (0..2 * N).map(|_| next()).collect();
    let mut b: Vec<u64> = (0..2 * N).map(|_| next()).collect();
    a.extend(std::iter::repeat_n(Q - 1, N));
    b.extend(std::iter::repeat_n(Q - 1, N));
    let monomial = (0..N).map(|i| u64::from(i == N - 1));
    a.extend(monomial.clone());
    b.extend(monomial);
    (a, b)
}

/// The schoolbook product `a·b mod (X^N + 1, Q)`.
fn negacyclic(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut c = vec![0u64; N];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let p = x * y % Q;
            let k = (i + j) % N;
            c[k] = if i + j < N { (c[k] + p) % Q } else { (c[k] + Q - p) % Q };
        }
    }
    c
}

/// `data` (`ROWS × N`, each below 2^32) as a `<u4` `.npy` file of shape `(ROWS, N)`.
fn write_npy_u32(path: &Path, data: &[u64]) -> Res {
    let mut header = format!("{{'descr': '<u4', 'fortran_order': False, 'shape': ({ROWS}, {N}), }}");
    // Magic (6) + version (2) + length (2) + header + '\n', a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    for &v in data {
        bytes.extend(u32::try_from(v).map_err(|_| format!("{v} does not fit a u32"))?.to_le_bytes());
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The words of a `.npy` file of shape `(ROWS, N)`, `<u4` or `<u8`.
fn read_npy(path: &Path) -> Res<Vec<u64>> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let bad = |why: &str| format!("{}: {why}", path.display());
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file"));
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        _ => {
            let l = bytes.get(8..12).ok_or_else(|| bad("truncated header"))?;
            (u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize, 12)
        }
    };
    let header =
        String::from_utf8_lossy(bytes.get(start..start + len).ok_or_else(|| bad("truncated header"))?);
    if !header.contains(&format!("'shape': ({ROWS}, {N})")) {
        return Err(bad(&format!("shape is not ({ROWS}, {N}): {header}")));
    }
    let width = if header.contains("'descr': '<u4'") {
        4
    } else if header.contains("'descr': '<u8'") {
        8
    } else {
        return Err(bad(&format!("not <u4 or <u8: {header}")));
    };
    let data = &bytes[start + len..];
    if data.len() != ROWS * N * width {
        return Err(bad(&format!("{} data bytes, expected {}", data.len(), ROWS * N * width)));
    }
    Ok(data
        .chunks_exact(width)
        .map(|w| w.iter().rev().fold(0u64, |acc, &byte| (acc << 8) | u64::from(byte)))
        .collect())
}
