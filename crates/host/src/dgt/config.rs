//! How a DGT runs: the stage split over kernels and the cluster sizes.

use crate::{Error, Result};
use polymul_kernels::dgt::layout::PassGeometry;

/// Most stages one pass runs: a set of `2^k` Gaussians is `2^k` threads.
pub const MAX_PASS_STAGES: u32 = 10;
/// Most threads per block.
pub const MAX_THREADS: u32 = 1024;

/// A DGT configuration (Coala's search space): `stages1` stages in the
/// first kernel and the rest in the second (no second kernel when
/// `stages1 = log2 M`), and `λ = 2^log_cluster` dependency sets per block in
/// each kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct DgtConfig {
    /// Stages of the first kernel.
    pub stages1: u32,
    /// `log2 λ` of the first kernel.
    pub log_cluster1: u32,
    /// `log2 λ` of the second kernel (ignored with one kernel).
    pub log_cluster2: u32,
}

impl std::fmt::Display for DgtConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // λ = 2^log_cluster, as a power where it does not fit (no valid configuration's does not).
        let lambda = |l: u32| 1u32.checked_shl(l).map_or_else(|| format!("2^{l}"), |v| v.to_string());
        write!(f, "k1={} λ1={} λ2={}", self.stages1, lambda(self.log_cluster1), lambda(self.log_cluster2))
    }
}

impl DgtConfig {
    /// The passes of a transform of `M = 2^log_m` Gaussians, or why the
    /// configuration does not fit.
    pub fn passes(&self, log_m: u32) -> Result<Vec<PassGeometry>> {
        // N = 2M, saturated for a log_m no N has.
        let n = 1usize.checked_shl(log_m.saturating_add(1)).unwrap_or(usize::MAX);
        let bad = |why| Error::BadDgtConfig { what: self.to_string(), n, why };
        if log_m == 0 {
            return Err(bad("N must be at least 4"));
        }
        if self.stages1 == 0 || self.stages1 > log_m {
            return Err(bad("the first kernel needs 1 to log2(N/2) stages"));
        }
        let mut out = vec![PassGeometry { log_m, s0: 0, s1: self.stages1, log_cluster: self.log_cluster1 }];
        if self.stages1 < log_m {
            out.push(PassGeometry { log_m, s0: self.stages1, s1: log_m, log_cluster: self.log_cluster2 });
        }
        for g in &out {
            if g.k() > MAX_PASS_STAGES {
                return Err(bad("a kernel runs at most 10 stages (1024 threads per block)"));
            }
            if g.log_cluster > g.log_sets() {
                return Err(bad("more sets per block than the pass has"));
            }
            // threads() = λ · 2^k compared as exponents: it overflows u32 before the later
            // pass's stage count is checked (log_cluster + k ≤ log_m here: no overflow).
            if g.log_cluster + g.k() > MAX_THREADS.ilog2() {
                return Err(bad("λ · 2^stages exceeds 1024 threads per block"));
            }
        }
        Ok(out)
    }

    /// Every valid configuration for `M = 2^log_m` with clusters up to
    /// `2^max_log_cluster`: the search space of `polymul-bench`'s DGT search.
    pub fn all(log_m: u32, max_log_cluster: u32) -> Vec<DgtConfig> {
        let mut v = Vec::new();
        for stages1 in 1..=log_m {
            for log_cluster1 in 0..=max_log_cluster {
                let two = stages1 < log_m;
                for log_cluster2 in 0..=if two { max_log_cluster } else { 0 } {
                    let c = DgtConfig { stages1, log_cluster1, log_cluster2 };
                    if c.passes(log_m).is_ok() {
                        v.push(c);
                    }
                }
            }
        }
        v
    }

    /// The default for `M = 2^log_m`: balanced stages (one kernel up to 10
    /// stages), clusters that give 256-thread blocks where possible.
    pub fn default_for(log_m: u32) -> DgtConfig {
        let stages1 = if log_m <= MAX_PASS_STAGES { log_m } else { log_m.div_ceil(2) };
        let cluster = |k: u32, sets: u32| 8u32.saturating_sub(k).min(sets);
        let c1 = cluster(stages1, log_m - stages1);
        let k2 = log_m - stages1;
        let c2 = if k2 > 0 { cluster(k2, log_m - k2) } else { 0 };
        DgtConfig { stages1, log_cluster1: c1, log_cluster2: c2 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_the_search_space_is_all_valid() {
        for log_m in 1..=20 {
            let d = DgtConfig::default_for(log_m);
            assert!(d.passes(log_m).is_ok(), "{log_m} {d}");
            let all = DgtConfig::all(log_m, 5);
            assert!(all.contains(&d) || d.log_cluster1 > 5 || d.log_cluster2 > 5);
            assert!(all.iter().all(|c| c.passes(log_m).is_ok()));
        }
        assert!(DgtConfig { stages1: 11, log_cluster1: 0, log_cluster2: 0 }.passes(15).is_err());
        assert!(DgtConfig { stages1: 4, log_cluster1: 7, log_cluster2: 0 }.passes(15).is_err());
        assert!(DgtConfig { stages1: 0, log_cluster1: 0, log_cluster2: 0 }.passes(15).is_err());
    }
}
