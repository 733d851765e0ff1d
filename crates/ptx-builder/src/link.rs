//! The bitcode → PTX linker that rustc calls for `nvptx64-nvidia-cuda`.
//!
//! rustc (linker flavor `llbc`) passes:
//! `--export-symbol NAME`… (the kernel entries), bitcode objects `*.o`,
//! dependency `*.rlib`s (archives of bitcode objects), `-L DIR`,
//! `--target T`, `--target-cpu sm_XY`, `--target-feature F`, `-o OUT`,
//! `-O<level>` and `--debug`. This module replaces the
//! `llvm-bitcode-linker` component with four tools from `llvm-tools`:
//!
//! ```text
//! llvm-ar x  (each rlib)       → member bitcode objects
//! llvm-link  (crate objects)   → main.bc
//! llvm-link --only-needed      → linked.bc   (pull in what main.bc uses)
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
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
