//! Building the kernels of a packaged crate (crates.io, a vendor folder).
//!
//! In polymul's repository the nested build runs on `crates/kernels` in
//! place: the workspace's `Cargo.lock` (with `--locked`) and its
//! `[profile.ptx]` apply, and cargo writes only to the target folder. A
//! packaged `polymul-kernels` is another matter: its folder (in cargo's
//! registry cache, or a vendor folder) is shared by every project on the
//! machine and may be read-only, it declares no `[profile.ptx]`, and cargo
//! would look for a workspace in the folders above it. [`standalone_copy`]
//! copies such a crate to a folder the caller owns (below its target folder)
//! and makes the copy a workspace of its own with that profile, so the
//! nested build reads and writes nothing beside the original.

use crate::BuildError;
use std::path::{Path, PathBuf};

/// The cargo profile of the nested build ([`crate::PROFILE`]), as polymul's
/// workspace `Cargo.toml` declares it (`cargo xtask test` checks that the
/// two agree); [`standalone_copy`] appends it to the copy's manifest.
/// `panic = "abort"` is required: the GPU has no unwinding.
pub const PROFILE_TOML: &str = r#"[profile.ptx]
inherits = "release"
panic = "abort"
codegen-units = 1
lto = false
debug = false
overflow-checks = false
debug-assertions = false
incremental = false
"#;

/// Whether `crate_dir` holds a packaged crate: `cargo package` writes the
/// author's manifest as `Cargo.toml.orig` beside the normalized one.
pub fn is_packaged(crate_dir: &Path) -> bool {
    crate_dir.join("Cargo.toml.orig").is_file()
}

/// Copies the crate at `src` to `<dst_root>/<folder name of src>` as a
/// workspace of its own, with [`PROFILE_TOML`], and returns the copy's
/// folder, ready for [`crate::PtxBuilder::new`].
///
/// Files already there with the same bytes are left alone (cargo decides
/// from modification times whether to rebuild), others are written through
/// a temporary file and a rename; files of the copy that `src` lacks are
/// removed. The copy gets `src`'s `Cargo.lock` (every packaged crate has
/// one), so the nested build stays `--locked` and resolves nothing; where
/// `src` has none, one is generated with the pinned nightly's cargo.
pub fn standalone_copy(src: &Path, dst_root: &Path) -> Result<PathBuf, BuildError> {
    let name = src.file_name().ok_or_else(|| BuildError::NoOutput(src.to_path_buf()))?;
    let dst = dst_root.join(name);
    let mut wanted = Vec::new();
    copy_tree(src, &dst, Path::new(""), &mut wanted)?;
    let manifest = src.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| BuildError::Io(manifest.clone(), e))?;
    write_if_changed(&dst.join("Cargo.toml"), standalone_manifest(&text).as_bytes())?;
    if !src.join("Cargo.lock").is_file() {
        wanted.push(PathBuf::from("Cargo.lock"));
        generate_lockfile(&dst)?;
    }
    remove_others(&dst, Path::new(""), &wanted)
}

/// `manifest` made a workspace of its own with the PTX profile (each only
/// where it has none).
fn standalone_manifest(manifest: &str) -> String {
    let has = |table: &str| manifest.lines().any(|l| l.trim() == table);
    let mut text = manifest.to_string();
    text.push_str("\n# Added by polymul-ptx-builder (standalone_copy): a workspace of its own.\n");
    if !has("[workspace]") {
        text.push_str("[workspace]\n\n");
    }
    if !has("[profile.ptx]") {
        text.push_str(PROFILE_TOML);
    }
    text
}

/// Copies the files below `src/rel` to `dst/rel` (but the top manifest),
/// noting each in `wanted`.
fn copy_tree(src: &Path, dst: &Path, rel: &Path, wanted: &mut Vec<PathBuf>) -> Result<(), BuildError> {
    let dir = src.join(rel);
    let entries = std::fs::read_dir(&dir).map_err(|e| BuildError::Io(dir.clone(), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| BuildError::Io(dir.clone(), e))?;
        let rel = rel.join(entry.file_name());
        let from = src.join(&rel);
        let meta = std::fs::metadata(&from).map_err(|e| BuildError::Io(from.clone(), e))?;
        if meta.is_dir() {
            copy_tree(src, dst, &rel, wanted)?;
        } else if meta.is_file() && rel != Path::new("Cargo.toml") {
            // (The manifest is written by the caller, made standalone.)
            let bytes = std::fs::read(&from).map_err(|e| BuildError::Io(from.clone(), e))?;
            write_if_changed(&dst.join(&rel), &bytes)?;
            wanted.push(rel);
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` unless it holds them already.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), BuildError> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| BuildError::Io(dir.to_path_buf(), e))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(|e| BuildError::Io(tmp.clone(), e))?;
    std::fs::rename(&tmp, path).map_err(|e| BuildError::Io(path.to_path_buf(), e))
}

/// Removes the files below `dst/rel` that are not in `wanted` (but another
/// build's temporary files); returns `dst`.
fn remove_others(dst: &Path, rel: &Path, wanted: &[PathBuf]) -> Result<PathBuf, BuildError> {
    let dir = dst.join(rel);
    let entries = std::fs::read_dir(&dir).map_err(|e| BuildError::Io(dir.clone(), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| BuildError::Io(dir.clone(), e))?;
        let rel = rel.join(entry.file_name());
        let path = dst.join(&rel);
        if path.is_dir() {
            remove_others(dst, &rel, wanted)?;
        } else if !wanted.contains(&rel)
            && rel != Path::new("Cargo.toml")
            && !rel.to_string_lossy().ends_with(".tmp")
        {
            std::fs::remove_file(&path).map_err(|e| BuildError::Io(path.clone(), e))?;
        }
    }
    Ok(dst.to_path_buf())
}

/// `cargo generate-lockfile` in `dir` with the pinned nightly's cargo.
fn generate_lockfile(dir: &Path) -> Result<(), BuildError> {
    let toolchain = crate::Toolchain::pinned()?;
    let cargo = toolchain.cargo();
    let out = std::process::Command::new(cargo)
        .current_dir(dir)
        .arg("generate-lockfile")
        .env("RUSTUP_TOOLCHAIN", toolchain.name())
        .output()
        .map_err(|err| BuildError::Spawn { tool: cargo.display().to_string(), err })?;
    if out.status.success() {
        return Ok(());
    }
    Err(BuildError::ToolFailed {
        cmd: format!("cargo +{} generate-lockfile (in {})", toolchain.name(), dir.display()),
        detail: format!("{}\n{}", out.status, String::from_utf8_lossy(&out.stderr)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ptxb-standalone-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn manifest_gets_a_workspace_and_the_profile_once() {
        let m = "[package]\nname = \"k\"\nversion = \"0.1.0\"\n";
        let once = standalone_manifest(m);
        assert!(once.starts_with(m));
        assert_eq!(once.lines().filter(|l| *l == "[workspace]").count(), 1);
        assert!(once.ends_with(PROFILE_TOML));
        // A manifest that has both keeps its own.
        let twice = standalone_manifest(&once);
        assert_eq!(twice.lines().filter(|l| *l == "[workspace]").count(), 1);
        assert_eq!(twice.lines().filter(|l| *l == "[profile.ptx]").count(), 1);
    }

    #[test]
    fn copy_mirrors_the_package_and_keeps_unchanged_files() {
        let root = scratch("copy");
        let src = root.join("polymul-kernels-9.9.9");
        std::fs::create_dir_all(src.join("src/ntt")).unwrap();
        std::fs::write(src.join("Cargo.toml"), "[package]\nname = \"polymul-kernels\"\n").unwrap();
        std::fs::write(src.join("Cargo.toml.orig"), "orig").unwrap();
        std::fs::write(src.join("Cargo.lock"), "# lock").unwrap();
        std::fs::write(src.join("src/lib.rs"), "pub mod ntt;").unwrap();
        std::fs::write(src.join("src/ntt/mod.rs"), "").unwrap();
        assert!(is_packaged(&src));
        assert!(!is_packaged(&root));

        let out = root.join("out");
        let dst = standalone_copy(&src, &out).unwrap();
        assert_eq!(dst, out.join("polymul-kernels-9.9.9"));
        assert_eq!(std::fs::read_to_string(dst.join("src/lib.rs")).unwrap(), "pub mod ntt;");
        assert_eq!(std::fs::read_to_string(dst.join("Cargo.lock")).unwrap(), "# lock");
        let manifest = std::fs::read_to_string(dst.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]") && manifest.contains("[profile.ptx]"));

        // A second copy rewrites nothing; a changed file is rewritten and a
        // file the package no longer has disappears from the copy.
        let mtime = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        let before = (mtime(&dst.join("src/lib.rs")), mtime(&dst.join("Cargo.toml")));
        std::fs::write(dst.join("stale.rs"), "").unwrap();
        std::fs::write(src.join("src/ntt/mod.rs"), "// changed").unwrap();
        standalone_copy(&src, &out).unwrap();
        assert_eq!((mtime(&dst.join("src/lib.rs")), mtime(&dst.join("Cargo.toml"))), before);
        assert_eq!(std::fs::read_to_string(dst.join("src/ntt/mod.rs")).unwrap(), "// changed");
        assert!(!dst.join("stale.rs").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
