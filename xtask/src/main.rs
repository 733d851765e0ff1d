//! `cargo xtask <command>`: polymul's developer and user commands.
//!
//! ```text
//! cargo xtask build-ptx  [--arch sm_70,sm_80,sm_90] [--out DIR]   build and check the PTX
//! cargo xtask check-ptx  [--arch ...]        build-ptx + ptxas: assembles, no spills
//! cargo xtask test                           fmt, clippy, tests, docs, public-api, check-ptx, bundle size,
//!                                            publish-check, miri, fuzz, msrv, downstream, python, nodriver (what CI runs)
//! cargo xtask public-api [--check|--bless]  the public API of polymul vs crates/host/public-api.txt
//! cargo xtask miri                           the host crate's CPU-only unit tests under Miri
//! cargo xtask python     [--release] [--out DIR] [--no-test] [--sdist]  the Python wheel (maturin + auditwheel) + pytest
//! cargo xtask msrv                           check the host-side crates with the rust-version toolchain
//! cargo xtask downstream                     build and run examples/downstream on stable
//! cargo xtask nodriver                       no libcuda linked; the CLI and Python without the driver
//! cargo xtask fuzz       [--seconds N] [--target NAME]  the cargo-fuzz targets (docs/fuzzing.md)
//! cargo xtask bench      [--quick] [--cpu]   build and run the benchmark suite
//! cargo xtask tune       [--quick] [--out F]  `polymul tune`: time NTT/DGT candidates, write the wisdom file
//! cargo xtask gpu-bundle [--dir bundle]      pack the GPU check/bench binary and the CLI for a GPU machine
//! cargo xtask sass-diff  [--ptx FILE]        ptxas 12.9 vs 13.0 SASS of loops taking a product's high word
//! cargo xtask results    [--check]           docs/results index, docs/RESULTS.md, README block (docs/testing.md)
//! cargo xtask publish-check [--build-kernels]  docs.rs build + `cargo publish --dry-run` of the crates.io crates
//! ```

mod bundle;
mod downstream;
mod fuzz;
mod miri;
mod nodriver;
mod ptxas;
mod public_api;
mod publish;
mod python;
mod results;
mod sass;
mod sass_diff;

use polymul_ptx_builder::{Arch, PtxBuilder};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

type Res<T = ()> = Result<T, String>;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(root());
    c
}

fn run(what: &str, cmd: &mut Command) -> Res {
    eprintln!("\n==> {what}");
    let st = cmd.status().map_err(|e| format!("{what}: could not start: {e}"))?;
    if st.success() { Ok(()) } else { Err(format!("{what} failed ({st})")) }
}

fn flag_value(args: &[String], flag: &str) -> Option<String> {
    args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1).cloned())
}

fn archs(args: &[String]) -> Res<Vec<Arch>> {
    match flag_value(args, "--arch") {
        Some(s) => Arch::parse_list(&s).map_err(|e| e.to_string()),
        None => Ok(Arch::DEFAULTS.to_vec()),
    }
}

fn expected_kernels(arch: Arch) -> Vec<String> {
    let mut v = Vec::new();
    polymul_kernels::names::for_each_entry(arch.0, |n| v.push(n.to_string()));
    v
}

/// The kernels' register caps for `arch` (`polymul_kernels::names::for_each_register_cap`).
fn register_caps(arch: Arch) -> Vec<(String, u32)> {
    let mut caps = Vec::new();
    polymul_kernels::names::for_each_register_cap(arch.0, |n, c| caps.push((n.to_string(), c)));
    caps
}

/// Spill bytes (stores) a register-capped kernel may have: the caps trade a
/// few spilled words for one more block per SM (docs/ntt.md); more than
/// this means the code changed under the cap, which then needs measuring.
const CAPPED_SPILL_LIMIT: u32 = 256;

/// Builds the PTX for each arch into `out`; returns the files.
fn build_ptx(archs: &[Arch], out: &Path) -> Res<Vec<(Arch, PathBuf)>> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut files = Vec::new();
    for &arch in archs {
        eprintln!("building PTX for {arch} ...");
        let art = PtxBuilder::new(
            root().join("crates/kernels"),
            root().join("target/ptx").join(arch.to_string()),
            arch,
        )
        .expect_kernels(expected_kernels(arch))
        .build()
        .map_err(|e| e.to_string())?;
        let dst = out.join(format!("polymul_kernels_{arch}.ptx"));
        // The same register caps as the embedded PTX (crates/host/build.rs).
        let ptx = polymul_ptx_builder::directives::with_register_caps(&art.ptx, &register_caps(arch))?;
        std::fs::write(&dst, ptx).map_err(|e| format!("{}: {e}", dst.display()))?;
        eprintln!(
            "  {} ({} kernels, {} lines, no panic/fmt symbols)",
            dst.display(),
            art.entries.len(),
            art.ptx.lines().count()
        );
        files.push((arch, dst));
    }
    Ok(files)
}

fn check_ptx(args: &[String]) -> Res {
    let files = build_ptx(&archs(args)?, &root().join("target/ptx-out"))?;
    let ptxas = ptxas::locate()?;
    eprintln!("\nptxas: {}", ptxas.display());
    let mut all_ok = true;
    for (arch, file) in files {
        let caps = register_caps(arch);
        let report = ptxas::assemble(&ptxas, arch, &file)?;
        eprintln!("{arch}: {} kernels assembled", report.len());
        for k in &report {
            let cap = caps.iter().find(|(n, _)| *n == k.name).map(|&(_, c)| c);
            eprintln!(
                "  {:32} {:3} regs{}  {:4} B stack  {:3} B spill stores  {:3} B spill loads",
                k.name,
                k.registers,
                cap.map_or(String::new(), |c| format!(" (cap {c})")),
                k.stack,
                k.spill_stores,
                k.spill_loads
            );
            let limit = if cap.is_some() { CAPPED_SPILL_LIMIT } else { 0 };
            if k.spill_stores.max(k.spill_loads) > limit {
                all_ok = false;
            }
        }
        let want = expected_kernels(arch);
        if let Some(missing) = want.iter().find(|w| !report.iter().any(|k| &k.name == *w)) {
            return Err(format!("ptxas reported no properties for `{missing}` on {arch}"));
        }
    }
    if all_ok {
        Ok(())
    } else {
        Err(format!(
            "a kernel spills registers (see above; none may, except register-capped ones up to \
             {CAPPED_SPILL_LIMIT} B)"
        ))
    }
}

/// Under CI (`CI` set): a step's own build folders under `target/` are
/// removed once the step has passed, and the disk's free space is printed.
/// CI's machine has a few GB of disk: the whole run kept every folder came
/// to 12 GB and ran out of space in `publish-check`. Locally (no `CI`)
/// everything is kept, so reruns stay warm.
fn ci_tidy(step: &str, dirs: &[&str]) {
    if std::env::var_os("CI").is_none() {
        return;
    }
    for d in dirs {
        let p = root().join("target").join(d);
        if let Err(e) = std::fs::remove_dir_all(&p)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            eprintln!("ci: could not remove {}: {e}", p.display());
        }
    }
    let free = Command::new("df")
        .args(["-Pk"])
        .arg(root())
        .output()
        .ok()
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            let kib: u64 = text.lines().nth(1)?.split_whitespace().nth(3)?.parse().ok()?;
            Some(format!("{:.1} GiB", kib as f64 / (1u64 << 20) as f64))
        })
        .unwrap_or_else(|| "unknown".into());
    let removed =
        if dirs.is_empty() { String::new() } else { format!(" (removed target/{{{}}})", dirs.join(",")) };
    eprintln!("ci: after {step}: disk free {free}{removed}");
}

/// The first steps of `test` and of `precheck`: formatting, the results
/// index and its size, clippy on the host crates.
fn fmt_results_clippy(root: &Path) -> Res {
    run("cargo fmt --check", cargo().args(["fmt", "--all", "--", "--check"]))?;
    eprintln!("\n==> results index and size (cargo xtask results --check)");
    results::check(root)?;
    run(
        "cargo clippy (host, all targets)",
        cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]),
    )
}

fn test(args: &[String]) -> Res {
    let root = root();
    ci_tidy("setup", &[]);
    fmt_results_clippy(&root)?;
    run(
        "cargo clippy (kernels for nvptx64-nvidia-cuda)",
        cargo()
            .args(["clippy", "-p", "polymul-kernels", "--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core"])
            .arg("--target-dir")
            .arg(root.join("target/clippy-nvptx"))
            .args(["--", "-D", "warnings"]),
    )?;
    run(
        "cargo clippy (kernels for nvptx64-nvidia-cuda, sm_90: the cluster kernels)",
        cargo()
            .args(["clippy", "-p", "polymul-kernels", "--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core"])
            .arg("--target-dir")
            .arg(root.join("target/clippy-nvptx-sm90"))
            .env("RUSTFLAGS", "-C target-cpu=sm_90")
            .args(["--", "-D", "warnings"]),
    )?;
    ci_tidy("clippy", &["clippy-nvptx", "clippy-nvptx-sm90"]);
    run("cargo test", cargo().args(["test", "--workspace"]))?;
    ci_tidy("cargo test", &[]);
    run("cargo doc", cargo().args(["doc", "--workspace", "--no-deps"]).env("RUSTDOCFLAGS", "-D warnings"))?;
    public_api::public_api(&["--check".into()])?;
    eprintln!("\n==> PTX build + ptxas");
    check_ptx(args)?;
    ci_tidy("check-ptx", &["doc"]);
    sass_diff::sass_diff(&[])?;
    ci_tidy("sass-diff", &["sass-diff"]);
    publish::ci()?;
    ci_tidy("publish-check", &["publish", "docs-rs"]);
    bundle::ci()?;
    ci_tidy("size-check", &[]);
    miri::miri()?;
    ci_tidy("miri", &["miri"]);
    fuzz::ci()?;
    ci_tidy("fuzz", &["fuzz"]);
    downstream::msrv()?;
    ci_tidy("msrv", &["msrv"]);
    downstream::downstream()?;
    ci_tidy("downstream", &["downstream"]);
    python::ci()?;
    ci_tidy("python", &["wheels", "wheels-py", "sdist-py"]);
    nodriver::ci()?;
    eprintln!("\nall checks passed");
    Ok(())
}

/// `cargo xtask precheck`: the steps of `test` that catch most red CI runs
/// in a few minutes on two cores, for before a commit. Formatting (the
/// workspace and fuzz/), the results index, clippy on the host crates,
/// the host library's unit tests, rustdoc with warnings denied and the
/// public API. Not the kernels' nvptx clippy, the PTX and ptxas, the
/// integration tests, Miri, fuzzing, MSRV, the downstream crate, Python
/// or the size check: `cargo xtask test` (CI) runs those.
fn precheck() -> Res {
    fmt_results_clippy(&root())?;
    fuzz::fmt_check()?;
    run("cargo test (polymul's unit tests)", cargo().args(["test", "-p", "polymul", "--lib"]))?;
    run(
        "cargo doc (polymul, polymul-kernels)",
        cargo()
            .args(["doc", "-p", "polymul", "-p", "polymul-kernels", "--no-deps"])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;
    public_api::public_api(&["--check".into()])?;
    eprintln!("\nprecheck passed (CI runs more: cargo xtask test)");
    Ok(())
}

fn device_slug(md: &str) -> String {
    let name = md
        .lines()
        .find_map(|l| l.strip_prefix("- device: "))
        .and_then(|l| l.split(" (").next())
        .unwrap_or("gpu");
    name.to_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// `cargo xtask tune [--quick] [--out FILE]`: time the NTT and DGT
/// candidates on this machine's GPU and write the wisdom file the planner
/// and `polymul ntt | intt | mul` read: `polymul tune`, the CLI's.
fn tune(args: &[String]) -> Res {
    run("build the polymul CLI (release)", cargo().args(["build", "--release", "-p", "polymul-cli"]))?;
    let mut cmd = Command::new(bundle::release_dir().join("polymul"));
    cmd.arg("tune").args(args);
    run("polymul tune", &mut cmd)
}

fn bench(args: &[String]) -> Res {
    // `--arch sm_90`: embed only that PTX (smaller binaries, quicker builds).
    let archs = flag_value(args, "--arch");
    let cargo = || {
        let mut c = cargo();
        if let Some(a) = &archs {
            c.env("POLYMUL_PTX_ARCHS", a);
        }
        c
    };
    run("build polymul-bench (release)", cargo().args(["build", "--release", "-p", "polymul-bench"]))?;
    let out = root().join("target/bench/latest");
    let _ = std::fs::remove_dir_all(&out);
    let mut cmd = Command::new(bundle::release_dir().join("polymul-bench"));
    cmd.arg("bench").arg("--out").arg(&out);
    for f in ["--quick", "--cpu"] {
        if args.iter().any(|a| a == f) {
            cmd.arg(f);
        }
    }
    run("polymul-bench bench", &mut cmd)?;
    let gpu_md = out.join("gpu.md");
    if let Ok(md) = std::fs::read_to_string(&gpu_md) {
        let dst = root().join("docs/results").join(format!("{}-{}", report_date(&md), device_slug(&md)));
        std::fs::create_dir_all(&dst).map_err(|e| e.to_string())?;
        for e in std::fs::read_dir(&out).map_err(|e| e.to_string())?.flatten() {
            std::fs::copy(e.path(), dst.join(e.file_name())).map_err(|e| e.to_string())?;
        }
        eprintln!("GPU results copied to {}", dst.display());
    } else {
        eprintln!(
            "CPU results are in {} (not copied: keep a run by copying the folder to docs/results/<date>-cpu-…)",
            out.display()
        );
    }
    Ok(())
}

fn report_date(md: &str) -> String {
    md.lines().find_map(|l| l.strip_prefix("- date: ")).unwrap_or("undated").to_string()
}

fn sass_cmd(args: &[String]) -> Res {
    let arch = archs(args)?.into_iter().max().unwrap_or(Arch(90));
    let files = build_ptx(&[arch], &root().join("target/ptx-out"))?;
    let ptxas = ptxas::locate()?;
    let nvdisasm = sass::locate_nvdisasm()?;
    let out_dir = root().join("target/sass");
    let text = sass::disassemble(&ptxas, &nvdisasm, arch, &files[0].1, &out_dir)?;
    let file = out_dir.join(format!("polymul_kernels_{arch}.sass"));
    std::fs::write(&file, &text).map_err(|e| e.to_string())?;
    let report = sass::modmul_report(&text, arch);
    println!("{report}");
    if let Some(dst) = flag_value(args, "--out") {
        std::fs::write(&dst, &report).map_err(|e| format!("{dst}: {e}"))?;
        eprintln!("written to {dst}");
    }
    eprintln!("full SASS: {}", file.display());
    Ok(())
}

const HELP: &str = "usage: cargo xtask <command>

  build-ptx  [--arch sm_70,sm_80,sm_90] [--out DIR]  build the kernels to PTX and check them
  check-ptx  [--arch ...]     build-ptx, then ptxas: every kernel assembles with no spills
                              (register-capped kernels: at most a few hundred bytes)
  test                        fmt, clippy (host + nvptx), tests, docs, public-api --check,
                              check-ptx, bundle size, publish-check, miri, 20 s per fuzz target, msrv, downstream,
                              the Python package's wheel and pytest suite, nodriver (what CI runs)
  precheck                    before a commit, in minutes: fmt (and fuzz/), results --check, clippy (host),
                              polymul's unit tests, rustdoc -D warnings, public-api --check
  public-api [--check|--bless]  the public API of polymul (rustdoc JSON + public-api), one line
                              an item; --check: against crates/host/public-api.txt
  miri                        the host crate's CPU-only unit tests under Miri (docs/testing.md)
  msrv                        cargo check of the host-side crates with the rust-version toolchain
  downstream                  build examples/downstream (polymul as a dependency) on stable, run it
  python     [--release] [--out DIR] [--no-test] [--sdist]  build the polymul Python wheel (maturin,
                              abi3, auditwheel) into target/wheels-py (or DIR; --sdist: the sdist
                              too), install it in target/pyenv, pytest; no options: CI's step
                              (the dev wheel, then pip install of the sdist, pytest on each)
  nodriver                    no binary links libcuda; CLI (and Python) run with POLYMUL_CUDA_DRIVER=/nonexistent
  fuzz       [--seconds N] [--target NAME]  the cargo-fuzz targets of fuzz/, N s each (default 30;
                              installs cargo-fuzz; docs/fuzzing.md)
  bench      [--quick] [--cpu]  run the benchmark suite (GPU if present, else the CPU path)
  tune       [--quick] [--out FILE]  `polymul tune`: time NTT/DGT candidates on the GPU, write wisdom
                              (the planner and `polymul ntt | intt | mul` read it)
  gpu-bundle [--dir DIR] [--arch sm_90] [--no-images]  pack the GPU check + bench binary and the
                              polymul CLI (PTX embedded; `polymul tune` runs there) for a machine with
                              a GPU, with the kernel images of ptxas 12.9 and 13.0 for check-images.sh
  kernel-images [--dir DIR] [--arch sm_90]  only those images (kernel-images.tar.xz) into DIR
  sass-diff  [--ptx FILE]     sm_90 SASS of ptxas 12.9 vs 13.0 for the kernels whose loops take the
                              high word of a 64-bit product (CI step; xtask/sass-diff-allow.txt)
  size-check                  the release CLI and polymul-bench with every arch's kernels (PTX and
                              cubins of check-ptx in target/ptx-out) stay under 16 MB, the packed cubins under 6 MB (CI step)
  sass       [--arch sm_90] [--out FILE]  SASS of the kernels (ptxas + nvdisasm, no GPU) and
                              instructions per modular multiplication of each reduction
  results    [--check]        write docs/results/README.md, docs/RESULTS.md and README.md's results
                              block from the run folders; --check: compare only, and docs/results <= 3 MiB
  publish-check [--build-kernels]  polymul's docs as docs.rs builds them (DOCS_RS), then cargo publish
                              --dry-run of the crates.io crates (kernels from target/ptx-out, or built
                              from the packaged polymul-kernels for sm_90); publishes nothing";

fn main() -> ExitCode {
    polymul_ptx_builder::run_as_linker_if_requested();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let r = match args.first().map(String::as_str) {
        Some("build-ptx") => archs(rest).and_then(|a| {
            let out =
                flag_value(rest, "--out").map(PathBuf::from).unwrap_or_else(|| root().join("target/ptx-out"));
            build_ptx(&a, &out).map(|_| ())
        }),
        Some("check-ptx") => check_ptx(rest),
        Some("test") => test(rest),
        Some("precheck") => precheck(),
        Some("bench") => bench(rest),
        Some("tune") => tune(rest),
        Some("gpu-bundle") => bundle::gpu_bundle(rest),
        Some("size-check") => bundle::ci(),
        Some("kernel-images") => {
            let dir = flag_value(rest, "--dir").map(PathBuf::from).unwrap_or_else(|| root().join("bundle"));
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("{}: {e}", dir.display()))
                .and_then(|()| bundle::kernel_images(&dir, flag_value(rest, "--arch").as_deref()))
        }
        Some("sass-diff") => sass_diff::sass_diff(rest),
        Some("sass") => sass_cmd(rest),
        Some("fuzz") => fuzz::fuzz(rest),
        Some("public-api") => public_api::public_api(rest),
        Some("miri") => miri::miri(),
        Some("msrv") => downstream::msrv(),
        Some("downstream") => downstream::downstream(),
        Some("python") => python::python(rest),
        Some("nodriver") => nodriver::ci(),
        Some("results") => results::results(rest),
        Some("publish-check") => publish::publish_check(rest),
        Some("help" | "--help" | "-h") | None => {
            println!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{HELP}")),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("\nerror: {e}");
            ExitCode::FAILURE
        }
    }
}
