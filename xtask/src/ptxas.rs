//! Offline PTX assembly with `ptxas` (from PyPI's `nvidia-cuda-nvcc-cu12`
//! wheel, installed by scripts/setup.sh; no GPU needed) and parsing of its
//! `-v` resource report.

use crate::Res;
use polymul_ptx_builder::Arch;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Resource usage of one kernel as ptxas reports it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct KernelResources {
    /// Kernel name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Stack frame bytes.
    pub stack: u32,
    /// Spill store bytes.
    pub spill_stores: u32,
    /// Spill load bytes.
    pub spill_loads: u32,
}

/// CUDA 12.9's ptxas as scripts/setup.sh installs it, under `target/tools`.
pub const WHEEL_12: &str = "nvcc/nvidia/cuda_nvcc/bin/ptxas";

/// `$PTXAS`, else the wheel installed by setup, else `ptxas` on `PATH`.
pub fn locate() -> Res<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Ok(PathBuf::from(p));
    }
    let wheel = crate::root().join("target/tools").join(WHEEL_12);
    if wheel.is_file() {
        return Ok(wheel);
    }
    if Command::new("ptxas").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Ok(PathBuf::from("ptxas"));
    }
    Err("ptxas not found: run scripts/setup.sh (installs PyPI's nvidia-cuda-nvcc-cu12 into target/tools) \
         or set PTXAS=/path/to/ptxas"
        .into())
}

/// Assembles `ptx` for `arch`; returns each kernel's resources. The cubin
/// goes beside it (`<ptx>.cubin`: the CI step of xtask/src/bundle.rs
/// weighs it).
pub fn assemble(ptxas: &Path, arch: Arch, ptx: &Path) -> Res<Vec<KernelResources>> {
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg("-o")
        .arg(ptx.with_extension("cubin"))
        .arg(ptx)
        .output()
        .map_err(|e| format!("could not run {}: {e}", ptxas.display()))?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("ptxas rejected {} for {arch}:\n{log}", ptx.display()));
    }
    Ok(parse(&log))
}

fn num_before(s: &str, unit: &str) -> u32 {
    s.split(',')
        .find(|p| p.contains(unit))
        .and_then(|p| p.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Parses `ptxas -v` output.
pub fn parse(log: &str) -> Vec<KernelResources> {
    let mut v: Vec<KernelResources> = Vec::new();
    for line in log.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            v.push(KernelResources { name: rest.trim().to_string(), ..Default::default() });
        } else if let Some(k) = v.last_mut() {
            if line.contains("stack frame") {
                k.stack = num_before(line, "stack frame");
                k.spill_stores = num_before(line, "spill stores");
                k.spill_loads = num_before(line, "spill loads");
            } else if let Some(rest) = line.split("Used ").nth(1) {
                k.registers = rest.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0);
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ptxas_report() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'k_u64' for 'sm_90'\n\
ptxas info    : Function properties for k_u64\n\
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 24 registers, 400 bytes cmem[0]\n";
        let r = parse(log);
        assert_eq!(
            r,
            vec![KernelResources {
                name: "k_u64".into(),
                registers: 24,
                stack: 8,
                spill_stores: 4,
                spill_loads: 12
            }]
        );
    }
}
