//! `cargo xtask public-api [--check | --bless]`: the public API of the
//! `polymul` crate (crates/host), one line per item, against the snapshot
//! `crates/host/public-api.txt`, so that every API change is deliberate.
//!
//! The approach of cargo-public-api: rustdoc JSON written by the pinned
//! nightly (`cargo rustdoc -- -Zunstable-options --output-format json`),
//! rendered by the `public-api` crate (sorted; blanket impls left out, auto
//! trait impls kept: losing `Send` is a break). The JSON format changes with
//! the nightly: `public-api` is pinned to the release that reads the format
//! the pinned nightly writes ([`rustdoc_types::FORMAT_VERSION`]), and a
//! mismatch is reported as such. A step of `cargo xtask test`.
//!
//! Types of the vendored CUDA crate (`cust`, package `polymul-cust`) and of
//! its companions `cust_raw` and `cust_core` should not appear in polymul's
//! API; lines naming one are listed as a warning
//! until [`DENY_CUST`] makes them an error.

use crate::{Res, cargo, root, run};
use std::path::PathBuf;

/// The checked-in snapshot, relative to the workspace root.
const SNAPSHOT: &str = "crates/host/public-api.txt";

/// Whether a `cust::`/`cust_raw::`/`cust_core::` path in the API is an error (`true`) or a
/// warning (`false`, while the API still exposes some).
const DENY_CUST: bool = true;

const HINT: &str = "run `cargo xtask public-api --bless` if the change is intended; add a migration \
                    note to CHANGELOG.md";

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"))
}

/// Builds the rustdoc JSON of `polymul` and renders its public API, one
/// item a line, sorted, ending with a newline.
pub fn render() -> Res<String> {
    run(
        "rustdoc JSON of polymul",
        cargo().args([
            "rustdoc",
            "-p",
            "polymul",
            "--lib",
            "--",
            "-Zunstable-options",
            "--output-format",
            "json",
        ]),
    )?;
    let json = target_dir().join("doc/polymul.json");
    let text = std::fs::read_to_string(&json).map_err(|e| format!("{}: {e}", json.display()))?;
    let version = serde_json::from_str::<serde_json::Value>(&text)
        .map_err(|e| format!("{}: {e}", json.display()))?
        .get("format_version")
        .and_then(serde_json::Value::as_u64);
    if version != Some(u64::from(rustdoc_types::FORMAT_VERSION)) {
        return Err(format!(
            "{}: rustdoc JSON format_version {version:?}, but the public-api crate of xtask reads {}: \
             pin the public-api release whose rustdoc-types matches (xtask/Cargo.toml, docs/testing.md)",
            json.display(),
            rustdoc_types::FORMAT_VERSION
        ));
    }
    let api = public_api::Builder::from_rustdoc_json(&json)
        .sorted(true)
        .omit_blanket_impls(true)
        .build()
        .map_err(|e| format!("{}: {e}", json.display()))?;
    Ok(api.to_string())
}

/// The lines of `api` that name an item of the vendored CUDA crate or its
/// companions: a path segment `cust::…`, `cust_raw::…` or `cust_core::…`
/// (cust's `DeviceCopy`), also inside a path (a re-export such as
/// `polymul::cust::…`); not `polymul_cust`, `custom::`, `my_cust::`, ….
pub fn cust_lines(api: &str) -> Vec<&str> {
    api.lines()
        .filter(|line| {
            line.match_indices("cust").any(|(i, _)| {
                let before = line[..i].chars().next_back();
                let after = &line[i + "cust".len()..];
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    && ["::", "_raw::", "_core::"].iter().any(|s| after.starts_with(s))
            })
        })
        .collect()
}

/// A line diff of `old` → `new`: the removed (`-`) and added (`+`) lines,
/// in hunks headed by their line numbers (longest common subsequence).
pub fn diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (x, y) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    // lcs[i][j]: the longest common subsequence of x[i..] and y[j..].
    let w = y.len() + 1;
    let mut lcs = vec![0u32; (x.len() + 1) * w];
    for i in (0..x.len()).rev() {
        for j in (0..y.len()).rev() {
            lcs[i * w + j] = if x[i] == y[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j, mut out, mut in_hunk) = (0, 0, String::new(), false);
    while i < x.len() || j < y.len() {
        if i < x.len() && j < y.len() && x[i] == y[j] {
            (i, j, in_hunk) = (i + 1, j + 1, false);
            continue;
        }
        if !in_hunk {
            out += &format!("@@ snapshot line {}, current line {} @@\n", pre + i + 1, pre + j + 1);
            in_hunk = true;
        }
        if j == y.len() || (i < x.len() && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            out += &format!("-{}\n", x[i]);
            i += 1;
        } else {
            out += &format!("+{}\n", y[j]);
            j += 1;
        }
    }
    out
}

/// `cargo xtask public-api [--check | --bless]`: print the API, compare it
/// with the snapshot, or rewrite the snapshot.
pub fn public_api(args: &[String]) -> Res {
    let api = render()?;
    let snapshot = root().join(SNAPSHOT);
    let cust = cust_lines(&api);
    if !cust.is_empty() {
        let list: String = cust.iter().map(|l| format!("  {l}\n")).collect();
        let msg = format!(
            "{} line(s) of polymul's public API name the vendored `cust` (or `cust_core`, `cust_raw`):\n{list}",
            cust.len()
        );
        if DENY_CUST {
            return Err(msg);
        }
        eprintln!("\nwarning: {msg}(an error once xtask/src/public_api.rs sets DENY_CUST)");
    }
    if args.iter().any(|a| a == "--bless") {
        std::fs::write(&snapshot, &api).map_err(|e| format!("{}: {e}", snapshot.display()))?;
        eprintln!("{} written ({} items)", SNAPSHOT, api.lines().count());
    } else if args.iter().any(|a| a == "--check") {
        let old = std::fs::read_to_string(&snapshot).unwrap_or_default();
        if old != api {
            return Err(format!(
                "the public API of polymul differs from {SNAPSHOT} (- snapshot, + current):\n{}\n{HINT}",
                diff(&old, &api)
            ));
        }
        eprintln!("public API of polymul matches {SNAPSHOT} ({} items)", api.lines().count());
    } else {
        print!("{api}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cust_paths_are_found() {
        let api = "pub fn polymul::gpu::Gpu::context(&self) -> &cust::context::Context\n\
                   pub fn polymul::f(x: cust_raw::CUresult)\n\
                   impl core::convert::From<cust::error::CudaError> for polymul::Error\n\
                   pub mod polymul::custom\n\
                   pub fn polymul::custom::f(polymul_cust::X)\n\
                   pub fn polymul::g(my_cust::Y, cust, custard::Z)\n\
                   pub use polymul::cust::memory::DeviceBuffer\n\
                   pub trait polymul::Coeff: cust_core::_hidden::DeviceCopy + core::marker::Send\n\
                   pub struct polymul::Cust\n";
        assert_eq!(
            cust_lines(api),
            [
                "pub fn polymul::gpu::Gpu::context(&self) -> &cust::context::Context",
                "pub fn polymul::f(x: cust_raw::CUresult)",
                "impl core::convert::From<cust::error::CudaError> for polymul::Error",
                "pub use polymul::cust::memory::DeviceBuffer",
                "pub trait polymul::Coeff: cust_core::_hidden::DeviceCopy + core::marker::Send",
            ]
        );
        assert!(cust_lines("pub mod polymul\npub fn polymul::custom::f()\n").is_empty());
    }

    #[test]
    fn diff_lists_removed_and_added_lines() {
        assert_eq!(diff("a\nb\nc\n", "a\nb\nc\n"), "");
        assert_eq!(
            diff("a\nb\nc\nd\n", "a\nc\nd\ne\n"),
            "@@ snapshot line 2, current line 2 @@\n-b\n@@ snapshot line 5, current line 4 @@\n+e\n"
        );
        assert_eq!(diff("a\nx\nc\n", "a\ny\nc\n"), "@@ snapshot line 2, current line 2 @@\n-x\n+y\n");
        assert_eq!(diff("", "a\n"), "@@ snapshot line 1, current line 1 @@\n+a\n");
    }
}
