//! The host library's modules form layers: no top-level module of
//! `crates/host/src` uses a module that uses it back, directly or through
//! others (docs/architecture.md draws the layers). Read from the sources:
//! every `crate::…` path in code (comments and string literals do not
//! count), with the crate root's re-exports (`crate::Error`,
//! `crate::NttPlan`, …) resolved to the module that defines them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `src` without comments and string or character literals.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let (mut out, mut i) = (String::with_capacity(src.len()), 0);
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'r' && b[i..].starts_with(b"r#\"") {
            let end = src[i + 3..].find("\"#").map_or(b.len(), |e| i + 3 + e + 2);
            i = end;
            out.push_str("\"\"");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn ident_at(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The first path segment of every item `text` names after each `prefix`
/// (`crate::a::b` → `a`; `crate::{a, b::c}` → `a`, `b`).
fn roots_after(text: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start) = (0, 0);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.push(ident_at(group[start..].trim_start()).to_string());
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident_at(group[start..].trim_start()).to_string());
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident_at(rest).to_string());
        }
    }
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Top-level module → the top-level modules it uses.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let top_of = |p: &Path| -> String {
        let rel = p.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
        first.trim_end_matches(".rs").to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|p| top_of(p)).filter(|m| m != "lib").collect();
    // The root's re-exports: `pub use gpu::{Gpu, …};` names `Gpu` → `gpu`.
    let lib = code_only(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut reexport: BTreeMap<String, String> = BTreeMap::new();
    for stmt in lib.split(';') {
        let stmt = stmt.trim();
        let Some(path) = stmt.strip_prefix("pub use ") else { continue };
        let m = ident_at(path).to_string();
        if !modules.contains(&m) {
            continue;
        }
        let names = path[m.len()..].trim_start_matches("::");
        let names = names.trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',') {
            let last = name.trim().rsplit("::").next().unwrap_or("").trim();
            let alias = last.rsplit(" as ").next().unwrap_or(last).trim();
            reexport.insert(alias.to_string(), m.clone());
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> =
        modules.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for p in &files {
        let top = top_of(p);
        if top == "lib" {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(p).unwrap());
        let mut used = roots_after(&code, "crate::");
        // `super::` in a top-level module's own file is the crate root.
        let rel = p.strip_prefix(&src).unwrap();
        if rel.components().count() == 1 || rel.ends_with(format!("{top}/mod.rs")) {
            used.extend(roots_after(&code, "super::"));
        }
        for u in used {
            let m = if modules.contains(&u) { Some(u) } else { reexport.get(&u).cloned() };
            if let Some(m) = m.filter(|m| *m != top) {
                graph.get_mut(&top).unwrap().insert(m);
            }
        }
    }
    graph
}

/// A cycle through `start`, if any.
fn cycle_from(
    g: &BTreeMap<String, BTreeSet<String>>,
    start: &str,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    for next in &g[path.last().unwrap().as_str()] {
        if next == start {
            let mut c = path.clone();
            c.push(next.clone());
            return Some(c);
        }
        if !path.contains(next) {
            path.push(next.clone());
            if let Some(c) = cycle_from(g, start, path) {
                return Some(c);
            }
            path.pop();
        }
    }
    None
}

#[test]
fn the_scanner_sees_code_and_not_comments() {
    let code =
        code_only("use crate::{a, b::c}; // crate::d\n/* crate::e */ let s = \"crate::f\"; crate::g::h();");
    assert_eq!(roots_after(&code, "crate::"), ["a", "b", "g"]);
}

#[test]
fn no_module_uses_a_module_that_uses_it_back() {
    let g = module_graph();
    assert!(g.len() >= 8, "found only {g:?}");
    assert!(g["planner"].contains("plan"), "the scanner missed an import: {g:?}");
    let cycles: Vec<String> =
        g.keys().filter_map(|m| cycle_from(&g, m, &mut vec![m.clone()])).map(|c| c.join(" → ")).collect();
    let shown: Vec<String> = g.iter().map(|(m, d)| format!("{m} → {d:?}")).collect();
    assert!(cycles.is_empty(), "module cycles:\n{}\n\nthe graph:\n{}", cycles.join("\n"), shown.join("\n"));
    // `cargo test -p polymul --test layers -- --nocapture` prints the graph.
    println!("{}", shown.join("\n"));
}
