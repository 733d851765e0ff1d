//! [`GpuOptions`]: the switches a [`crate::Gpu`] is created with.

use std::path::PathBuf;

/// How a [`crate::Gpu`] launches the kernels, fixed when it is created
/// ([`crate::Gpu::with_options`]). The defaults are what polymul measured
/// fastest; the other settings exist for comparing variants in one process
/// (the benchmark runner maps its `POLYMUL_*` environment variables onto
/// them; the library itself never reads the environment for these).
///
/// ```no_run
/// use polymul::{Gpu, GpuOptions};
/// let plain = Gpu::with_options(0, GpuOptions { pdl: false, ..GpuOptions::default() })?;
/// # Ok::<(), polymul::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GpuOptions {
    /// Launch the lazy kernels' passes as programmatic dependents (PDL:
    /// a pass starts while its predecessor finishes), where the device and
    /// kernels have it (sm_90 PTX and `cuLaunchKernelEx`); elsewhere this
    /// does nothing. Default `true`; `false` launches every pass plainly
    /// (what `POLYMUL_PDL=0` did).
    pub pdl: bool,
    /// With [`GpuOptions::pdl`], also launch dependents while a stream
    /// captures a graph (H100, graph replays ×100: `u64` N = 2^16 forward
    /// 6.88 → 6.60 µs with programmatic edges; docs/latency.md). Default
    /// `true`; `false`: plain launches while capturing (what
    /// `POLYMUL_PDL_GRAPH=0` did).
    pub pdl_graph: bool,
    /// Load the kernels from this file instead of the embedded ones: a
    /// cubin or PTX file with every kernel of the embedded module (e.g. the
    /// embedded PTX after `ptxas` with other options), for trying code
    /// generation options on a GPU machine without Rust. Default `None`
    /// (what an unset `POLYMUL_KERNEL_IMAGE` did). A file that cannot be
    /// read or loaded is [`crate::Error::KernelImage`].
    pub kernel_image: Option<PathBuf>,
    /// Most pinned staging buffers the GPU keeps for large host ↔ device
    /// copies (host-slice calls above a few MiB, RNS limb copies): as many
    /// host threads copy at once, the next waits for a buffer. Default 4;
    /// 1 is the single buffer that every thread's large copies took turns
    /// on before issue 33 (kept for comparing the two); 0 counts as 1.
    pub staging_buffers: usize,
}

impl Default for GpuOptions {
    fn default() -> Self {
        Self { pdl: true, pdl_graph: true, kernel_image: None, staging_buffers: super::staging::MAX_BUFFERS }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_measured_ones() {
        let o = GpuOptions::default();
        assert!(o.pdl && o.pdl_graph && o.kernel_image.is_none() && o.staging_buffers == 4);
    }

    /// The switches are options ([`GpuOptions`], [`crate::expert::PlanOptions`]),
    /// not the environment: no source file of the library reads an
    /// environment variable, but the wisdom file's lookup, which runs on
    /// request ([`crate::planner::Wisdom::load_default`]).
    #[test]
    fn only_the_wisdom_lookup_reads_the_environment() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).expect("read src") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        assert!(files.len() > 20, "found only {files:?}");
        let allowed = src.join("planner").join("wisdom.rs");
        let needle = ["env::", "var"].concat();
        let mut readers = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).expect("read a source file");
            if text.contains(&needle) {
                readers.push(f.strip_prefix(&src).unwrap_or(f).display().to_string());
            }
        }
        readers.sort();
        assert_eq!(readers, vec![allowed.strip_prefix(&src).unwrap().display().to_string()]);
    }
}
