//! `cargo xtask publish-check [--build-kernels]`: the crates meant for
//! crates.io package and build from their packages, and docs.rs can build
//! polymul's documentation. Nothing is published.
//!
//! - [`docs_rs`]: `cargo doc -p polymul --no-deps --offline` with `DOCS_RS`
//!   set, as docs.rs runs it: no `POLYMUL_PTX_DIR`, a kernel toolchain that
//!   does not exist (a nested kernel build would fail) and a fresh
//!   `POLYMUL_PTX_CACHE_DIR` that must stay absent, and no `.ptx` file in
//!   polymul's `OUT_DIR`.
//! - [`dry_run`]: `cargo publish --dry-run` of every crate of [`PUBLISHED`]
//!   at once (cargo ≥ 1.90 packages them in dependency order and verifies
//!   each from its `.crate`, the others coming from a local registry
//!   overlay). The forks in `third_party/` are not workspace members (so
//!   that fmt, clippy and the tests leave upstream code alone), so this runs
//!   in a copy of the repository (`target/publish/ws`, the files git knows)
//!   whose root manifest adds them as members. The verify build of `polymul`
//!   takes its kernels from `$POLYMUL_PTX_DIR` if set, else from the PTX of
//!   `cargo xtask build-ptx` (`target/ptx-out`, what `check-ptx` wrote in
//!   `cargo xtask test`), unless `--build-kernels` asks for
//!   the nested nightly build from the packaged `polymul-kernels` (one arch,
//!   sm_90: the route a crates.io user's build takes). Then the `.crate`
//!   files are checked against [`MAX_CRATE_BYTES`], and the workspace's
//!   publishable members against [`PUBLISHED`].
//!
//! docs/toolchain.md ("Publishing") has the order for a real release.

use crate::{Res, root, run};
use polymul_ptx_builder::Arch;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The crates meant for crates.io, in the order a release publishes them
/// (each after its dependencies). Every other workspace member has
/// `publish = false`; the check fails if the two disagree.
pub const PUBLISHED: [&str; 7] = [
    "polymul-cust-raw",
    "polymul-cust",
    "polymul-concrete-ntt",
    "polymul-kernels",
    "polymul-ptx-builder",
    "polymul-npy",
    "polymul",
];

/// The forks in `third_party/`, members of the scratch workspace only.
const FORKS: [&str; 3] = ["third_party/cust_raw", "third_party/cust", "third_party/concrete-ntt"];

/// The largest `.crate` the check accepts (crates.io takes 10 MB; polymul's
/// are far below, so anything near this is a file that does not belong).
pub const MAX_CRATE_BYTES: u64 = 2 << 20;

/// `cargo xtask publish-check [--build-kernels]`.
pub fn publish_check(args: &[String]) -> Res {
    docs_rs()?;
    dry_run(args.iter().any(|a| a == "--build-kernels"))
}

/// The CI step: [`docs_rs`], then [`dry_run`] on the PTX that `check-ptx`
/// wrote; prints the time each took.
pub fn ci() -> Res {
    let start = Instant::now();
    docs_rs()?;
    let docs = start.elapsed().as_secs_f64();
    dry_run(false)?;
    eprintln!(
        "publish-check: docs.rs build {docs:.0} s, publish dry run {:.0} s",
        start.elapsed().as_secs_f64() - docs
    );
    Ok(())
}

/// polymul's documentation as docs.rs builds it: offline, `DOCS_RS` set, no
/// kernels built or read (see the module docs for how that is checked).
pub fn docs_rs() -> Res {
    let target = root().join("target/docs-rs");
    let cache = target.join("ptx-cache-must-stay-absent");
    let _ = std::fs::remove_dir_all(&cache);
    let mut cmd = crate::cargo();
    cmd.args(["doc", "-p", "polymul", "--no-deps", "--offline", "--target-dir"])
        .arg(&target)
        .env("DOCS_RS", "1")
        .env("RUSTDOCFLAGS", "--cfg docsrs -D warnings")
        .env("POLYMUL_KERNEL_TOOLCHAIN", "polymul-no-such-toolchain")
        .env("POLYMUL_PTX_CACHE_DIR", &cache)
        .env_remove("POLYMUL_PTX_DIR")
        .env_remove("POLYMUL_PTX_ARCHS")
        .env_remove("POLYMUL_CUBIN");
    run("cargo doc -p polymul with DOCS_RS=1 (as docs.rs: offline, no kernels, no nightly)", &mut cmd)?;
    if cache.exists() {
        return Err(format!("DOCS_RS build: the kernel build cache {} was created", cache.display()));
    }
    let build = target.join("debug/build");
    let entries = std::fs::read_dir(&build).map_err(|e| format!("{}: {e}", build.display()))?;
    let mut outs = 0;
    for e in entries.flatten() {
        let out = e.path().join("out");
        if !e.file_name().to_string_lossy().starts_with("polymul-") || !out.is_dir() {
            continue;
        }
        outs += 1;
        let files = std::fs::read_dir(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        if let Some(ptx) = files.flatten().find(|f| f.path().extension().is_some_and(|x| x == "ptx")) {
            return Err(format!("DOCS_RS build wrote kernels: {}", ptx.path().display()));
        }
    }
    if outs == 0 {
        return Err(format!("no polymul build script output below {}", build.display()));
    }
    let index = target.join("doc/polymul/index.html");
    if !index.is_file() {
        return Err(format!("DOCS_RS build: no {}", index.display()));
    }
    eprintln!("docs.rs build: {} (no kernels built or read)", index.display());
    Ok(())
}

/// `cargo publish --dry-run` of [`PUBLISHED`] in the scratch workspace.
pub fn dry_run(build_kernels: bool) -> Res {
    let root = root();
    let scratch = root.join("target/publish");
    let ws = scratch.join("ws");
    // cargo verifies each package against the others unpacked from a local
    // registry in `<build dir>/package/tmp-registry`, into cargo's home
    // (`registry/src/-<hash of that path>/`), and reuses an unpacked
    // `name-version` folder as it finds it: a second run in the same build
    // folder would verify against the first run's sources. So each run gets
    // its own build folder `run-*` (removed by the next run), its unpacked
    // folders are removed after it, and its `debug` is a link to one shared
    // folder, so the compiled crates.io dependencies are reused.
    for e in std::fs::read_dir(&scratch).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with("run-") {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let target = scratch.join(format!("run-{stamp}-{}", std::process::id()));
    let shared = scratch.join("debug");
    std::fs::create_dir_all(&shared).map_err(|e| format!("{}: {e}", shared.display()))?;
    std::fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    #[cfg(unix)]
    std::os::unix::fs::symlink(&shared, target.join("debug"))
        .map_err(|e| format!("{}: {e}", target.display()))?;
    copy_checkout(&root, &ws)?;
    let manifest = ws.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    std::fs::write(&manifest, with_forks_as_members(&text)?)
        .map_err(|e| format!("{}: {e}", manifest.display()))?;
    check_publishable_set(&ws)?;

    let mut cmd = crate::cargo();
    cmd.current_dir(&ws)
        .args(["publish", "--dry-run", "--target-dir"])
        .arg(&target)
        .arg("--config")
        .arg(format!("build.build-dir = {:?}", target.display().to_string()))
        .env("POLYMUL_CUBIN", "0")
        .env_remove("POLYMUL_PTX_CACHE_DIR");
    for p in PUBLISHED {
        cmd.args(["-p", p]);
    }
    let what = if build_kernels {
        // The nested nightly build from the packaged polymul-kernels: one
        // arch keeps it to a few minutes.
        cmd.env_remove("POLYMUL_PTX_DIR")
            .env("POLYMUL_PTX_ARCHS", Arch(90).to_string())
            .env("POLYMUL_PTX_CACHE_DIR", scratch.join("ptx"));
        "cargo publish --dry-run (polymul's kernels built from the packaged polymul-kernels, sm_90)"
    } else if let Some(dir) = std::env::var_os("POLYMUL_PTX_DIR") {
        // The caller's prebuilt PTX (and its POLYMUL_PTX_ARCHS, if any).
        cmd.env("POLYMUL_PTX_DIR", dir);
        "cargo publish --dry-run (polymul's kernels from $POLYMUL_PTX_DIR)"
    } else {
        let ptx_dir = root.join("target/ptx-out");
        crate::build_ptx(&Arch::DEFAULTS, &ptx_dir)?;
        cmd.env("POLYMUL_PTX_DIR", &ptx_dir).env_remove("POLYMUL_PTX_ARCHS");
        "cargo publish --dry-run (polymul's kernels from target/ptx-out)"
    };
    let start = Instant::now();
    let before = unpacked_dirs();
    let result = run(what, &mut cmd);
    remove_new_unpacked(&before);
    result?;
    eprintln!("publish dry run: {:.0} s", start.elapsed().as_secs_f64());
    // `cargo publish --dry-run` of several packages leaves the `.crate`
    // files in `package/tmp-crate` (`cargo package`: in `package`).
    crate_sizes(&target.join("package/tmp-crate"))
}

/// cargo's folder of unpacked registry sources.
fn registry_src() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo"));
    home.join("registry/src")
}

/// The folders of `registry/src` that belong to nameless registries (local
/// ones, such as cargo's `tmp-registry`: `-<hash>`).
fn unpacked_dirs() -> Vec<PathBuf> {
    let entries = std::fs::read_dir(registry_src()).into_iter().flatten().flatten();
    entries.filter(|e| e.file_name().to_string_lossy().starts_with('-')).map(|e| e.path()).collect()
}

/// Removes the nameless-registry folders that appeared since `before` and
/// hold only packages of [`PUBLISHED`] (this run's `tmp-registry`).
fn remove_new_unpacked(before: &[PathBuf]) {
    for dir in unpacked_dirs().into_iter().filter(|d| !before.contains(d)) {
        let ours = std::fs::read_dir(&dir).into_iter().flatten().flatten().all(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            PUBLISHED.iter().any(|p| {
                name.strip_prefix(p).and_then(|v| v.strip_prefix('-')).is_some_and(|v| {
                    v.starts_with(|c: char| c.is_ascii_digit())
                        && !v.contains(|c: char| c.is_ascii_alphabetic())
                })
            })
        });
        if ours {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// The root manifest with the forks added to `members` and `third_party`
/// dropped from `exclude`.
fn with_forks_as_members(manifest: &str) -> Res<String> {
    let mut out = String::new();
    let (mut members, mut excluded) = (false, false);
    for line in manifest.lines() {
        if let Some(rest) = line.strip_prefix("members = [") {
            let forks: Vec<String> = FORKS.iter().map(|f| format!("\"{f}\"")).collect();
            out.push_str(&format!("members = [{}, {rest}\n", forks.join(", ")));
            members = true;
        } else if line.starts_with("exclude = [") && line.contains("\"third_party\"") {
            let kept = line.replace("\"third_party\", ", "").replace(", \"third_party\"", "");
            out.push_str(&kept);
            out.push('\n');
            excluded = true;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !members || !excluded {
        return Err("Cargo.toml: no one-line `members = [` or `exclude = [... \"third_party\" ...]` \
                    to edit (xtask/src/publish.rs)"
            .into());
    }
    Ok(out)
}

/// Copies the files git knows (tracked, and new ones it does not ignore)
/// from `root` to `ws`, replacing what `ws` held.
fn copy_checkout(root: &Path, ws: &Path) -> Res {
    let out = Command::new("git")
        .current_dir(root)
        .args(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        .output()
        .map_err(|e| format!("git ls-files: {e}"))?;
    if !out.status.success() {
        return Err(format!("git ls-files failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let _ = std::fs::remove_dir_all(ws);
    for rel in out.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let rel = PathBuf::from(String::from_utf8_lossy(rel).into_owned());
        let from = root.join(&rel);
        if !from.is_file() {
            continue; // deleted in the working tree
        }
        let to = ws.join(&rel);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::copy(&from, &to).map_err(|e| format!("{}: {e}", from.display()))?;
    }
    Ok(())
}

/// Every workspace member (forks included) is in [`PUBLISHED`] or has
/// `publish = false`, and every crate of [`PUBLISHED`] is a member that
/// may be published.
fn check_publishable_set(ws: &Path) -> Res {
    let out = crate::cargo()
        .current_dir(ws)
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let packages = meta["packages"].as_array().ok_or("cargo metadata: no packages")?;
    let mut publishable = Vec::new();
    for p in packages {
        let name = p["name"].as_str().unwrap_or_default().to_string();
        // `publish`: null = any registry, [] = publish = false.
        if p["publish"].is_null() || p["publish"].as_array().is_some_and(|r| !r.is_empty()) {
            publishable.push(name);
        }
    }
    publishable.sort();
    let mut want: Vec<String> = PUBLISHED.iter().map(|s| s.to_string()).collect();
    want.sort();
    if publishable != want {
        return Err(format!(
            "publishable workspace members {publishable:?} differ from xtask/src/publish.rs PUBLISHED \
             {want:?}: give a new crate `publish = false` or add it to PUBLISHED (and docs/toolchain.md)"
        ));
    }
    Ok(())
}

/// Prints each `.crate`'s size; fails above [`MAX_CRATE_BYTES`].
fn crate_sizes(dir: &Path) -> Res {
    let mut found = 0;
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "crate") {
            continue;
        }
        found += 1;
        let bytes = e.metadata().map_err(|e| format!("{}: {e}", path.display()))?.len();
        eprintln!("  {:40} {:7.1} KiB", e.file_name().to_string_lossy(), bytes as f64 / 1024.0);
        if bytes > MAX_CRATE_BYTES {
            return Err(format!(
                "{} is {bytes} bytes, over {MAX_CRATE_BYTES}: narrow its `include`",
                path.display()
            ));
        }
    }
    if found < PUBLISHED.len() {
        return Err(format!("{}: {found} .crate files, expected {}", dir.display(), PUBLISHED.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `[profile.ptx]` lines of the workspace manifest (comments and
    /// blank lines dropped).
    fn profile_lines(text: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let mut inside = false;
        for l in text.lines().map(str::trim) {
            if l.starts_with('[') {
                inside = l == "[profile.ptx]";
            }
            if inside && !l.is_empty() && !l.starts_with('#') {
                lines.push(l.to_string());
            }
        }
        lines
    }

    /// A packaged polymul-kernels is built with the profile the
    /// ptx-builder appends to its copy; it must be the workspace's.
    #[test]
    fn standalone_profile_is_the_workspace_profile() {
        let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
        let ws = profile_lines(&text);
        assert!(ws.len() > 2, "no [profile.ptx] in Cargo.toml");
        assert_eq!(ws, profile_lines(polymul_ptx_builder::standalone::PROFILE_TOML));
    }

    #[test]
    fn the_scratch_manifest_has_the_forks_as_members() {
        let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
        let edited = with_forks_as_members(&text).unwrap();
        let members = edited.lines().find(|l| l.starts_with("members = [")).unwrap();
        for f in FORKS {
            assert!(members.contains(&format!("\"{f}\"")), "{members}");
        }
        assert!(members.contains("\"crates/host\""), "{members}");
        let exclude = edited.lines().find(|l| l.starts_with("exclude = [")).unwrap();
        assert!(!exclude.contains("third_party") && exclude.contains("\"fuzz\""), "{exclude}");
        assert!(with_forks_as_members("[workspace]\n").is_err());
    }
}
