//! `cargo xtask sass`: assemble the PTX with `ptxas`, disassemble with
//! `nvdisasm` (both from PyPI wheels, no GPU needed) and count the machine
//! instructions per modular multiplication in each microbenchmark kernel's
//! loop — the evidence behind the reduction timings.

use crate::Res;
use polymul_ptx_builder::Arch;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `$NVDISASM`, else the wheel installed by setup.
pub fn locate_nvdisasm() -> Res<PathBuf> {
    if let Some(p) = std::env::var_os("NVDISASM") {
        return Ok(PathBuf::from(p));
    }
    let wheel = crate::root().join("target/tools/nvdisasm/nvidia/cu13/bin/nvdisasm");
    if wheel.is_file() {
        Ok(wheel)
    } else {
        Err("nvdisasm not found: run scripts/setup.sh (installs PyPI's nvidia-cuda-nvdisasm) or set NVDISASM"
            .into())
    }
}

/// SASS text of every kernel in `ptx` for `arch`.
pub fn disassemble(ptxas: &Path, nvdisasm: &Path, arch: Arch, ptx: &Path, out_dir: &Path) -> Res<String> {
    std::fs::create_dir_all(out_dir).map_err(|e| e.to_string())?;
    let cubin = out_dir.join(format!("polymul_kernels_{arch}.cubin"));
    let st = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-o")
        .arg(&cubin)
        .arg(ptx)
        .status()
        .map_err(|e| format!("ptxas: {e}"))?;
    if !st.success() {
        return Err(format!("ptxas failed on {}", ptx.display()));
    }
    let out = Command::new(nvdisasm).arg("-c").arg(&cubin).output().map_err(|e| format!("nvdisasm: {e}"))?;
    if !out.status.success() {
        return Err(format!("nvdisasm failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// One SASS instruction's opcode (with modifiers), if `line` holds one.
fn opcode(line: &str) -> Option<&str> {
    opcode_predicated(line).map(|(op, _)| op)
}

/// One SASS instruction's opcode (with modifiers) and whether it is
/// predicated (`@P0 ...`), if `line` holds one.
pub fn opcode_predicated(line: &str) -> Option<(&str, bool)> {
    let rest = line.trim_start().strip_prefix("/*")?;
    let rest = rest.split_once("*/")?.1.trim_start();
    let (pred, rest) = match rest.strip_prefix('@') {
        Some(r) => (true, r.split_once(' ')?.1.trim_start()),
        None => (false, rest),
    };
    rest.split([' ', ';']).next().filter(|s| !s.is_empty()).map(|op| (op, pred))
}

/// A `BRA` line's target label (`` BRA `(.L_x_2) ``).
pub fn branch_target(line: &str) -> Option<&str> {
    line.split_once("`(")?.1.split_once(')').map(|(t, _)| t)
}

/// Kernel name → its SASS lines.
pub fn kernels(sass: &str) -> BTreeMap<String, Vec<String>> {
    let mut map = BTreeMap::new();
    let mut cur: Option<String> = None;
    for line in sass.lines() {
        if let Some(name) = line.strip_prefix(".text.").and_then(|l| l.strip_suffix(':')) {
            cur = Some(name.to_string());
            map.insert(name.to_string(), Vec::new());
        } else if let Some(v) = cur.as_ref().and_then(|k| map.get_mut(k)) {
            v.push(line.to_string());
        }
    }
    map
}

/// The opcodes of the innermost loop: from the label a backward `BRA`
/// jumps to, up to that `BRA`. The longest such loop if there are several.
pub fn loop_body(lines: &[String]) -> Vec<String> {
    let mut best: Vec<String> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(op) = opcode(l) else { continue };
        if !op.starts_with("BRA") {
            continue;
        }
        let Some(target) = branch_target(l) else {
            continue;
        };
        if let Some(start) = lines[..i].iter().position(|x| x.trim() == format!("{target}:")) {
            let body: Vec<String> =
                lines[start..i].iter().filter_map(|x| opcode(x).map(str::to_string)).collect();
            if body.len() > best.len() {
                best = body;
            }
        }
    }
    best
}

/// A Markdown table: per microbenchmark kernel, SASS instructions per
/// modular multiplication in the loop, and the multiply-type ones.
pub fn modmul_report(sass: &str, arch: Arch) -> String {
    let ks = kernels(sass);
    let mut s = format!(
        "## SASS per modular multiplication ({arch}, from `cargo xtask sass`)\n\n\
         Loop body of each `modmul_bench_if_*` kernel divided by its 4 chains. `IMAD*` counts every integer \
         multiply(-add) instruction: Hopper has no 64-bit multiplier, so one 64×64 product half is several \
         32-bit IMADs.\n\n| kernel | instructions / modmul | IMAD* / modmul | shifts+selects / modmul |\n|---|---|---|---|\n"
    );
    for (name, lines) in ks.iter().filter(|(n, _)| n.starts_with("modmul_bench_if_")) {
        let body = loop_body(lines);
        let per = |f: &dyn Fn(&str) -> bool| body.iter().filter(|o| f(o)).count() as f64 / 4.0;
        let _ = writeln!(
            s,
            "| {name} | {:.2} | {:.2} | {:.2} |",
            body.len() as f64 / 4.0,
            per(&|o| o.starts_with("IMAD")),
            per(&|o| o.starts_with("SHF")
                || o.starts_with("SEL")
                || o.starts_with("SHL")
                || o.starts_with("SHR"))
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = ".text.modmul_bench_if_x_u64:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_1:
        /*0010*/                   IMAD.WIDE.U32 R6, R3, 0x20, R6 ;
        /*0020*/               @P0 SEL R2, R2, R3, P1 ;
        /*0030*/                   IMAD.HI.U32 R6, R3, R2, RZ ;
        /*0040*/              @!P0 BRA `(.L_x_1) ;
        /*0050*/                   EXIT ;
";

    #[test]
    fn finds_the_loop_and_counts() {
        let ks = kernels(SAMPLE);
        let body = loop_body(&ks["modmul_bench_if_x_u64"]);
        assert_eq!(body, vec!["IMAD.WIDE.U32", "SEL", "IMAD.HI.U32"]);
        let r = modmul_report(SAMPLE, Arch(90));
        assert!(r.contains("| modmul_bench_if_x_u64 | 0.75 | 0.50 | 0.25 |"), "{r}");
    }
}
