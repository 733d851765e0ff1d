//! The developers' `POLYMUL_*` switches, read from the environment here
//! and nowhere else: the library takes them as options ([`GpuOptions`],
//! [`PlanOptions`]) and never reads the environment for them, so that the
//! benchmark runner (and the `polymul` tool, which uses this module) can
//! keep the variables that scripts set for comparing variants in one build:
//!
//! | variable | option | values |
//! | --- | --- | --- |
//! | `POLYMUL_PDL` | [`GpuOptions::pdl`] | `0` off, else on |
//! | `POLYMUL_PDL_GRAPH` | [`GpuOptions::pdl_graph`] | `0` off, else on |
//! | `POLYMUL_KERNEL_IMAGE` | [`GpuOptions::kernel_image`] | a cubin or PTX file |
//! | `POLYMUL_LATENCY_KERNELS` | [`PlanOptions::latency_kernels`] | `0` off, else on |
//! | `POLYMUL_LATENCY_RADIX` | [`PlanOptions::latency_radix`] | `4`, `8` or `16` |
//! | `POLYMUL_LAZY_FUSED` | [`PlanOptions::lazy_fused`] | `0` [`LazyFused::Off`], `one` [`LazyFused::OnePolyPerBlock`], `always` [`LazyFused::Always`], else [`LazyFused::Auto`] |
//! | `POLYMUL_GRAPH_CACHE` | [`PlanOptions::graph_cache`] (and [`DgtPlan::set_graph_cache`]) | `0` off, else on |
//! | `POLYMUL_ROW_TWIDDLES` | [`PlanOptions::row_twiddles`] | `tables` [`RowTwiddles::Tables`], `computed` [`RowTwiddles::Computed`], else [`RowTwiddles::Auto`] |
//!
//! An unset variable leaves the option as the code chose it (the library's
//! default, or what a section or check sets). The environment is read once
//! per process; a value that is not understood is reported once on stderr
//! and ignored.

use polymul::dgt::DgtPlan;
use polymul::expert::{LazyFused, PlanOptions, RowTwiddles};
use polymul::{Coeff, Gpu, GpuOptions};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The switches set in an environment: `None` where a variable is unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvSwitches {
    /// `POLYMUL_PDL`.
    pub pdl: Option<bool>,
    /// `POLYMUL_PDL_GRAPH`.
    pub pdl_graph: Option<bool>,
    /// `POLYMUL_KERNEL_IMAGE`.
    pub kernel_image: Option<PathBuf>,
    /// `POLYMUL_LATENCY_KERNELS`.
    pub latency_kernels: Option<bool>,
    /// `POLYMUL_LATENCY_RADIX`.
    pub latency_radix: Option<usize>,
    /// `POLYMUL_LAZY_FUSED`.
    pub lazy_fused: Option<LazyFused>,
    /// `POLYMUL_GRAPH_CACHE`.
    pub graph_cache: Option<bool>,
    /// `POLYMUL_ROW_TWIDDLES`.
    pub row_twiddles: Option<RowTwiddles>,
    /// Values that were not understood (`VARIABLE=value: why`), ignored.
    pub ignored: Vec<String>,
}

impl EnvSwitches {
    /// Reads the switches through `var` (the environment, or a table in
    /// tests). An empty value counts as unset.
    pub fn read(var: impl Fn(&str) -> Option<OsString>) -> Self {
        let get = |k: &str| var(k).filter(|v| !v.is_empty());
        let on = |k: &str| get(k).map(|v| v != "0");
        let mut ignored = Vec::new();
        let latency_radix = get("POLYMUL_LATENCY_RADIX").and_then(|v| {
            match v.to_str().and_then(|s| s.parse::<usize>().ok()).filter(|r| [4, 8, 16].contains(r)) {
                Some(r) => Some(r),
                None => {
                    ignored.push(format!("POLYMUL_LATENCY_RADIX={}: choose 4, 8 or 16", v.to_string_lossy()));
                    None
                }
            }
        });
        let lazy_fused = get("POLYMUL_LAZY_FUSED").map(|v| match v.to_str() {
            Some("0") => LazyFused::Off,
            Some("one") => LazyFused::OnePolyPerBlock,
            Some("always") => LazyFused::Always,
            _ => LazyFused::Auto,
        });
        let row_twiddles = get("POLYMUL_ROW_TWIDDLES").map(|v| match v.to_str() {
            Some("tables") => RowTwiddles::Tables,
            Some("computed") => RowTwiddles::Computed,
            _ => RowTwiddles::Auto,
        });
        Self {
            pdl: on("POLYMUL_PDL"),
            pdl_graph: on("POLYMUL_PDL_GRAPH"),
            kernel_image: get("POLYMUL_KERNEL_IMAGE").map(PathBuf::from),
            latency_kernels: on("POLYMUL_LATENCY_KERNELS"),
            latency_radix,
            lazy_fused,
            graph_cache: on("POLYMUL_GRAPH_CACHE"),
            row_twiddles,
            ignored,
        }
    }

    /// `base` with the plan-level switches that are set.
    pub fn plan_options(&self, base: PlanOptions) -> PlanOptions {
        PlanOptions {
            latency_kernels: self.latency_kernels.unwrap_or(base.latency_kernels),
            latency_radix: self.latency_radix.or(base.latency_radix),
            lazy_fused: self.lazy_fused.unwrap_or(base.lazy_fused),
            graph_cache: self.graph_cache.unwrap_or(base.graph_cache),
            row_twiddles: self.row_twiddles.unwrap_or(base.row_twiddles),
            ..base
        }
    }

    /// `base` with the GPU-level switches that are set.
    pub fn gpu_options(&self, base: GpuOptions) -> GpuOptions {
        GpuOptions {
            pdl: self.pdl.unwrap_or(base.pdl),
            pdl_graph: self.pdl_graph.unwrap_or(base.pdl_graph),
            kernel_image: self.kernel_image.clone().or(base.kernel_image),
            ..base
        }
    }
}

/// This process's switches, read from the environment on first use.
pub fn env() -> &'static EnvSwitches {
    static ENV: OnceLock<EnvSwitches> = OnceLock::new();
    ENV.get_or_init(|| {
        let e = EnvSwitches::read(|k| std::env::var_os(k));
        for why in &e.ignored {
            eprintln!("polymul: note: ignoring {why}");
        }
        e
    })
}

/// `base` with the environment's plan-level switches.
pub fn plan_options_from_env(base: PlanOptions) -> PlanOptions {
    env().plan_options(base)
}

/// The default plan options with the environment's switches: what the
/// benchmark sections and checks start from instead of
/// `PlanOptions::default()`.
pub fn plan_options() -> PlanOptions {
    plan_options_from_env(PlanOptions::default())
}

/// The default GPU options with the environment's switches.
pub fn gpu_options_from_env() -> GpuOptions {
    env().gpu_options(GpuOptions::default())
}

/// The first GPU, created with [`gpu_options_from_env`]: every `Gpu` the
/// benchmark runner and the `polymul` tool use comes from here.
pub fn gpu() -> polymul::Result<Gpu> {
    Gpu::with_options(0, gpu_options_from_env())
}

/// `plan` with the environment's `POLYMUL_GRAPH_CACHE` (a DGT plan takes no
/// [`PlanOptions`]).
pub fn dgt_plan<W: Coeff>(mut plan: DgtPlan<W>) -> DgtPlan<W> {
    if let Some(on) = env().graph_cache {
        plan.set_graph_cache(on);
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> EnvSwitches {
        EnvSwitches::read(|k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v)))
    }

    #[test]
    fn unset_keeps_the_base() {
        let e = read(&[]);
        assert_eq!(e, EnvSwitches::default());
        let base = PlanOptions { latency_kernels: false, graph_cache: false, ..PlanOptions::default() };
        assert_eq!(e.plan_options(base), base);
        assert_eq!(e.plan_options(PlanOptions::default()), PlanOptions::default());
        assert_eq!(e.gpu_options(GpuOptions::default()), GpuOptions::default());
    }

    #[test]
    fn each_variable_sets_its_option() {
        let e = read(&[
            ("POLYMUL_PDL", "0"),
            ("POLYMUL_PDL_GRAPH", "0"),
            ("POLYMUL_KERNEL_IMAGE", "k.cubin"),
            ("POLYMUL_LATENCY_KERNELS", "0"),
            ("POLYMUL_LATENCY_RADIX", "16"),
            ("POLYMUL_LAZY_FUSED", "one"),
            ("POLYMUL_GRAPH_CACHE", "0"),
            ("POLYMUL_ROW_TWIDDLES", "computed"),
        ]);
        let p = e.plan_options(PlanOptions::default());
        assert!(!p.latency_kernels && !p.graph_cache);
        assert_eq!((p.latency_radix, p.lazy_fused), (Some(16), LazyFused::OnePolyPerBlock));
        assert_eq!(p.row_twiddles, RowTwiddles::Computed);
        let g = e.gpu_options(GpuOptions::default());
        assert!(!g.pdl && !g.pdl_graph);
        assert_eq!(g.kernel_image, Some(PathBuf::from("k.cubin")));
        assert_eq!(read(&[("POLYMUL_LAZY_FUSED", "0")]).lazy_fused, Some(LazyFused::Off));
        assert_eq!(read(&[("POLYMUL_LAZY_FUSED", "yes")]).lazy_fused, Some(LazyFused::Auto));
        // Set to anything but 0: on, over a base that had it off.
        let on = read(&[("POLYMUL_GRAPH_CACHE", "1"), ("POLYMUL_LATENCY_KERNELS", "1")]);
        let p = on.plan_options(PlanOptions {
            graph_cache: false,
            latency_kernels: false,
            ..PlanOptions::default()
        });
        assert!(p.graph_cache && p.latency_kernels);
    }

    #[test]
    fn bad_radix_is_ignored_and_reported() {
        let e = read(&[("POLYMUL_LATENCY_RADIX", "2")]);
        assert_eq!(e.latency_radix, None);
        assert_eq!(e.ignored.len(), 1);
        assert!(read(&[("POLYMUL_LATENCY_RADIX", "x")]).ignored[0].contains("4, 8 or 16"));
    }
}
