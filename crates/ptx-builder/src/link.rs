//! The bitcode → PTX linker that rustc calls for `nvptx64-nvidia-cuda`.
//!
//! rustc (linker flavor `llbc`) passes:
//! `--export-symbol NAME`… (the kernel entries), bitcode objects `*.o`,
//! dependency `*.rlib`s (archives of bitcode objects), `-L DIR`,
//! `--target T`, `--target-cpu sm_XY`, `--target-feature F`, `-o OUT`,
//! `-O<level>` and `--debug`. This module replaces the
//! `llvm-bitcode-linker` component with six tools from `llvm-tools`:
//!
//! ```text
//! llvm-ar x  (each rlib)       → member bitcode objects
//! llvm-link  (crate objects)   → main.bc
//! llvm-link --only-needed      → linked.bc   (pull in what main.bc uses)
//! llvm-dis, rewrite, llvm-as    → global.bc   (argument-block pointers global)
//! opt internalize,globaldce,default<O3>      (only the kernels stay public)
//! llc -mcpu=sm_XY              → OUT.ptx
//! ```

use crate::{BuildError, LlvmTools};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Parsed linker command line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LinkArgs {
    /// Symbols to keep public (the kernel entry points).
    pub exports: Vec<String>,
    /// Bitcode objects of the crate itself.
    pub objects: Vec<PathBuf>,
    /// Archives of dependency bitcode.
    pub rlibs: Vec<PathBuf>,
    /// `-mcpu` for llc.
    pub target_cpu: Option<String>,
    /// `-mattr` for llc.
    pub target_features: Vec<String>,
    /// Output `.ptx` path.
    pub output: Option<PathBuf>,
    /// Optimisation level (0..=3).
    pub opt_level: Option<String>,
}

/// Parses rustc's linker arguments; unknown flags are reported, not fatal.
pub fn parse_args(args: &[String]) -> Result<LinkArgs, BuildError> {
    let mut la = LinkArgs::default();
    let mut it = args.iter();
    let missing = |flag: &str| BuildError::ToolFailed {
        cmd: "ptx linker".into(),
        detail: format!("flag {flag} needs a value"),
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--export-symbol" => la.exports.push(it.next().ok_or_else(|| missing(a))?.clone()),
            "-o" => la.output = Some(PathBuf::from(it.next().ok_or_else(|| missing(a))?)),
            "--target-cpu" => la.target_cpu = Some(it.next().ok_or_else(|| missing(a))?.clone()),
            "--target-feature" => la.target_features.push(it.next().ok_or_else(|| missing(a))?.clone()),
            "-L" | "--target" | "--bitcode-linker" | "--linker-plugin-lto" => {
                it.next();
            }
            "--debug" => {}
            s if s.starts_with("--target-feature=") => {
                la.target_features.push(s["--target-feature=".len()..].to_string())
            }
            s if s.starts_with("-O") => la.opt_level = Some(s[2..].to_string()),
            s if s.ends_with(".rlib") => la.rlibs.push(PathBuf::from(s)),
            s if s.ends_with(".o") || s.ends_with(".bc") => la.objects.push(PathBuf::from(s)),
            s => eprintln!("polymul-ptx-builder (linker): ignoring argument `{s}`"),
        }
    }
    Ok(la)
}

fn run_tool(cmd: &mut Command) -> Result<(), BuildError> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|err| BuildError::Spawn { tool: shown.clone(), err })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(BuildError::ToolFailed {
            cmd: shown,
            detail: format!("{}\n{}", out.status, String::from_utf8_lossy(&out.stderr)),
        })
    }
}

/// Extracts the bitcode members (`*.o`) of an rlib into `dir`.
fn extract_rlib(tools: &LlvmTools, rlib: &Path, dir: &Path) -> Result<Vec<PathBuf>, BuildError> {
    std::fs::create_dir_all(dir).map_err(|e| BuildError::Io(dir.to_path_buf(), e))?;
    run_tool(Command::new(tools.tool("llvm-ar")).arg("x").arg(rlib).current_dir(dir))?;
    let mut objs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| BuildError::Io(dir.to_path_buf(), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "o"))
        .collect();
    objs.sort();
    Ok(objs)
}

/// Links bitcode to PTX as described in the module docs.
pub fn run(args: &[String]) -> Result<(), BuildError> {
    let la = parse_args(args)?;
    let tools = LlvmTools::locate()?;
    let out = la.output.clone().ok_or_else(|| BuildError::ToolFailed {
        cmd: "ptx linker".into(),
        detail: "no -o OUTPUT given".into(),
    })?;
    if la.objects.is_empty() {
        return Err(BuildError::ToolFailed {
            cmd: "ptx linker".into(),
            detail: "no bitcode objects given".into(),
        });
    }
    let work = out.with_extension("linkdir");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| BuildError::Io(work.clone(), e))?;

    let main_bc = work.join("main.bc");
    run_tool(Command::new(tools.tool("llvm-link")).args(&la.objects).arg("-o").arg(&main_bc))?;

    let mut deps = Vec::new();
    for (i, rlib) in la.rlibs.iter().enumerate() {
        deps.extend(extract_rlib(&tools, rlib, &work.join(format!("rlib{i}")))?);
    }
    let linked_bc = if deps.is_empty() {
        main_bc
    } else {
        let linked = work.join("linked.bc");
        run_tool(
            Command::new(tools.tool("llvm-link"))
                .arg(&main_bc)
                .arg("--only-needed")
                .args(&deps)
                .arg("-o")
                .arg(&linked),
        )?;
        linked
    };

    let linked_bc = global_kernel_pointers(&tools, &linked_bc, &work)?;
    let opt_bc = work.join("opt.bc");
    let level = match la.opt_level.as_deref() {
        Some("0") => "O0",
        Some("1") => "O1",
        Some("2") | Some("s") | Some("z") => "O2",
        _ => "O3",
    };
    run_tool(
        Command::new(tools.tool("opt"))
            .arg(format!("-passes=internalize,globaldce,default<{level}>,globaldce"))
            .arg(format!("-internalize-public-api-list={}", la.exports.join(",")))
            .arg(format!("-unroll-threshold={}", crate::UNROLL_THRESHOLD))
            .arg(&linked_bc)
            .arg("-o")
            .arg(&opt_bc),
    )?;

    let mut llc = Command::new(tools.tool("llc"));
    llc.arg(format!("-{level}"));
    if let Some(cpu) = &la.target_cpu {
        llc.arg(format!("-mcpu={cpu}"));
    }
    if !la.target_features.is_empty() {
        llc.arg(format!("-mattr={}", la.target_features.join(",")));
    }
    run_tool(llc.arg(&opt_bc).arg("-o").arg(&out))?;
    if std::env::var_os("POLYMUL_PTX_KEEP_LINKDIR").is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    Ok(())
}

/// Kernels left with generic pointers by [`rewrite_kernel_pointers`]
/// (prefixes of their symbols): Coala's DGT pass kernels ran 5–11% slower
/// with global accesses on an H100 (both as explicit `ld.global` and as
/// LLVM's own, runs 38 and 42 in
/// docs/results/2026-11-25-nvidia-h100-issue17-closeout), while the NTT
/// kernels ran the same or up to 2% faster.
pub const GENERIC_POINTER_KERNELS: [&str; 3] = ["@dgt_forward_", "@dgt_inverse_", "@dgt_polymul_"];

/// Rewrites the linked module so that every pointer a kernel reads from
/// its argument block is a global-memory pointer to LLVM (see
/// [`rewrite_kernel_pointers`]), and returns the rewritten bitcode.
fn global_kernel_pointers(tools: &LlvmTools, bc: &Path, work: &Path) -> Result<PathBuf, BuildError> {
    let (ll, out_ll, out_bc) = (work.join("linked.ll"), work.join("global.ll"), work.join("global.bc"));
    run_tool(Command::new(tools.tool("llvm-dis")).arg(bc).arg("-o").arg(&ll))?;
    let text = std::fs::read_to_string(&ll).map_err(|e| BuildError::Io(ll.clone(), e))?;
    let rewritten = rewrite_kernel_pointers(&text);
    std::fs::write(&out_ll, rewritten).map_err(|e| BuildError::Io(out_ll.clone(), e))?;
    run_tool(Command::new(tools.tool("llvm-as")).arg(&out_ll).arg("-o").arg(&out_bc))?;
    Ok(out_bc)
}

/// Every kernel takes one by-value `#[repr(C)]` argument block, which rustc
/// passes as an array of integers (`[K x i64]`), so the block's pointers
/// reach LLVM as `inttoptr`s of its elements: generic pointers, accessed
/// with generic `ld`/`st` unless the kernel spells out each access
/// (`polymul_kernels::gmem`). The host passes only device allocations (or
/// null) there, so each such `%p = inttoptr i64 %x to ptr`, with `%x` an
/// element of a `ptx_kernel` function's parameter, becomes
/// `inttoptr … to ptr addrspace(1)` followed by an `addrspacecast` to the
/// generic space: what LLVM's own lowering does for pointer parameters.
/// LLVM's address-space inference then turns the plain accesses through
/// them into `ld.global`/`st.global` (the code they had when kernels took
/// their pointers as separate parameters). Other lines are unchanged.
pub fn rewrite_kernel_pointers(ll: &str) -> String {
    let mut out = String::with_capacity(ll.len() + ll.len() / 64);
    // The kernel's parameter names and the values extracted from them.
    let mut params: Vec<String> = Vec::new();
    let mut elements: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut fresh = 0usize;
    for line in ll.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        if body.starts_with("define ") {
            params.clear();
            elements.clear();
            if body.contains(" ptx_kernel ") && !GENERIC_POINTER_KERNELS.iter().any(|k| body.contains(k)) {
                params = kernel_params(body);
            }
        } else if !params.is_empty() {
            let t = body.trim_start();
            if let Some((lhs, rhs)) = t.split_once(" = ") {
                if let Some(rest) = rhs.strip_prefix("extractvalue ") {
                    // `extractvalue [K x i64] %0, j`
                    if let Some((_, arg)) = rest.split_once("] ")
                        && let Some((name, _)) = arg.split_once(',')
                        && params.iter().any(|p| p == name)
                    {
                        elements.insert(lhs.to_string());
                    }
                } else if let Some(rest) = rhs.strip_prefix("inttoptr i64 ")
                    && let Some((src, ty)) = rest.split_once(" to ")
                    && ty.trim_end() == "ptr"
                    && elements.contains(src)
                {
                    let indent = &body[..body.len() - t.len()];
                    let g = format!("%polymul.global.{fresh}");
                    fresh += 1;
                    out.push_str(&format!("{indent}{g} = inttoptr i64 {src} to ptr addrspace(1)\n"));
                    out.push_str(&format!("{indent}{lhs} = addrspacecast ptr addrspace(1) {g} to ptr\n"));
                    continue;
                }
            }
        }
        out.push_str(line);
    }
    out
}

/// The parameter names (`%0`, …) of a `define … @name(T %0, …)` line.
fn kernel_params(define: &str) -> Vec<String> {
    let Some(open) = define.find("@").and_then(|at| define[at..].find('(').map(|o| at + o)) else {
        return Vec::new();
    };
    let mut depth = 0i32;
    let mut names = Vec::new();
    let mut current = String::new();
    for c in define[open + 1..].chars() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' if depth > 0 => depth -= 1,
            ')' => break,
            _ => {}
        }
        if c == ',' && depth == 0 {
            names.extend(current.split_whitespace().last().filter(|w| w.starts_with('%')).map(String::from));
            current.clear();
        } else {
            current.push(c);
        }
    }
    names.extend(current.split_whitespace().last().filter(|w| w.starts_with('%')).map(String::from));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_block_pointers_become_global() {
        let ll = "define ptx_kernel void @k([3 x i64] %0) unnamed_addr #5 {\n  %2 = extractvalue [3 x i64] %0, 0\n  %3 = extractvalue [3 x i64] %0, 2\n  %4 = inttoptr i64 %2 to ptr\n  %5 = add i64 %3, 1\n  %6 = inttoptr i64 %5 to ptr\n  ret void\n}\ndefine void @f(i64 %0) {\n  %2 = inttoptr i64 %0 to ptr\n  ret void\n}\n";
        let out = rewrite_kernel_pointers(ll);
        let dgt = ll.replace("@k(", "@dgt_forward_u32(");
        assert_eq!(rewrite_kernel_pointers(&dgt), dgt);
        assert!(out.contains("  %polymul.global.0 = inttoptr i64 %2 to ptr addrspace(1)\n"));
        assert!(out.contains("  %4 = addrspacecast ptr addrspace(1) %polymul.global.0 to ptr\n"));
        // A pointer computed from an element, and one outside a kernel, stay.
        assert!(out.contains("  %6 = inttoptr i64 %5 to ptr\n"));
        assert!(out.contains("  %2 = inttoptr i64 %0 to ptr\n"));
        assert_eq!(out.matches("addrspacecast").count(), 1);
        assert_eq!(
            kernel_params("define ptx_kernel void @k([3 x i64] %0, { i32, i32 } %1) #0 {"),
            ["%0", "%1"]
        );
    }

    #[test]
    fn parses_what_rustc_passes() {
        let args: Vec<String> = [
            "--export-symbol",
            "k1",
            "--export-symbol",
            "k2",
            "/t/deps/k.k.cgu.0.rcgu.o",
            "/t/deps/libcore-1.rlib",
            "-L",
            "/x",
            "--target",
            "nvptx64-nvidia-cuda",
            "--target-cpu",
            "sm_90",
            "--target-feature=+ptx80",
            "-o",
            "/t/k.ptx",
            "-O3",
            "--debug",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let la = parse_args(&args).unwrap();
        assert_eq!(la.exports, vec!["k1", "k2"]);
        assert_eq!(la.objects, vec![PathBuf::from("/t/deps/k.k.cgu.0.rcgu.o")]);
        assert_eq!(la.rlibs, vec![PathBuf::from("/t/deps/libcore-1.rlib")]);
        assert_eq!(la.target_cpu.as_deref(), Some("sm_90"));
        assert_eq!(la.target_features, vec!["+ptx80"]);
        assert_eq!(la.output, Some(PathBuf::from("/t/k.ptx")));
        assert_eq!(la.opt_level.as_deref(), Some("3"));
    }

    #[test]
    fn missing_flag_value_is_an_error() {
        assert!(parse_args(&["-o".to_string()]).is_err());
    }
}
