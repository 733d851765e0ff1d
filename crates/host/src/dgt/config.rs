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
    /// `k1=… λ1=… λ2=…` (a cluster beyond `2^63` as `2^k`: any value prints).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lambda = |k: u32| 1u64.checked_shl(k).map_or_else(|| format!("2^{k}"), |v| v.to_string());
        write!(f, "k1={} λ1={} λ2={}", self.stages1, lambda(self.log_cluster1), lambda(self.log_cluster2))
    }
}

impl DgtConfig {
    /// The passes of a transform of `M = 2^log_m` Gaussians, or why the
    /// configuration does not fit.
    ///
    /// # Errors
    /// [`Error::BadDgtConfig`] (its `n` saturates at `usize::MAX` for a
    /// `log_m` beyond the word).
    pub fn passes(&self, log_m: u32) -> Result<Vec<PassGeometry>> {
        let n = if log_m < usize::BITS - 1 { 2usize << log_m } else { usize::MAX };
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
            // λ · 2^k threads, compared in log2 (no shift can overflow).
            if g.log_cluster + g.k() > MAX_THREADS.ilog2() {
                return Err(bad("λ · 2^stages exceeds 1024 threads per block"));
            }
        }
        Ok(out)
    }

    /// Every valid configuration for `M = 2^log_m` with clusters up to
    /// `2^max_log_cluster`: the search space of `polymul-bench`'s DGT search.
    /// Empty where none is valid (`log_m` of 0 or above 20).
    pub fn all(log_m: u32, max_log_cluster: u32) -> Vec<DgtConfig> {
        let mut v = Vec::new();
        // Two passes of at most MAX_PASS_STAGES stages; a pass has at most
        // 2^log_m sets, so larger clusters are never valid.
        if log_m > 2 * MAX_PASS_STAGES {
            return v;
        }
        let max_log_cluster = max_log_cluster.min(log_m);
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

    /// The default for `M = 2^log_m`, from the configuration search on an
    /// H100 (2026-11-27, `polymul-bench bench --quick --only dgt --log-n
    /// 10,12,14,16`, 30-bit `u32` towers, docs/dgt.md): one kernel up to 10
    /// stages (N ≤ 2^11); above, a first pass of 6 stages (more where the
    /// second pass would exceed 10) with λ1 = 4 sets per block (fewer where
    /// the block would exceed 256 threads or the pass has fewer sets), and
    /// λ2 = 1, except
    /// at N = 2^12 (`log_m` = 11), where the search's best single and
    /// batched transforms both had k1 = 4, λ1 = 8 (7.74 µs and 0.1261 µs
    /// per polynomial, against 8.85 and 0.1296 for k1 = 6, λ1 = 4, λ2 = 8).
    ///
    /// The first pass stores each block's sets in the natural order, runs of
    /// λ1 consecutive words: with λ1 = 1 every warp store wrote 4 useful
    /// bytes per 32-byte sector (Nsight Compute, N = 2^16, 4 towers: L2 at
    /// 47%, the first pass 18.9 µs against 10.9 for one tower). N = 2^16,
    /// µs, one polynomial / batched per polynomial: k1 = 6, λ1 = 4, λ2 = 1
    /// 11.36 / 2.531 (the best batched; with 4 towers 16.96, the best of
    /// the search's five re-timed) against 12.30 / 3.806 for the rule
    /// before (k1 = 8, λ1 = 1, λ2 = 2); the best single, k1 = 7, λ1 = 2,
    /// 10.46 / 2.708. N = 2^14: 9.34 / 0.5534 (the best batched) against
    /// 9.44 / 0.5983. N = 2^10 keeps one pass (the best batched, 0.0234).
    /// Sizes the search did not run (N = 2^13, 2^15, 2^17 and up) follow
    /// the same rule, unmeasured.
    pub fn default_for(log_m: u32) -> DgtConfig {
        if log_m <= MAX_PASS_STAGES {
            return DgtConfig { stages1: log_m, log_cluster1: 0, log_cluster2: 0 };
        }
        if log_m == 11 {
            return DgtConfig { stages1: 4, log_cluster1: 3, log_cluster2: 0 };
        }
        // At most 10 stages in the second pass (`log_m` ≤ 20 keeps the first
        // within 10 too; beyond, `passes` refuses the configuration).
        let stages1 = FIRST_PASS_STAGES.max(log_m.saturating_sub(MAX_PASS_STAGES));
        // λ1 · 2^stages1 ≤ 256 threads, and no more sets than the pass has.
        let log_cluster1 =
            FIRST_PASS_CLUSTER.ilog2().min(8u32.saturating_sub(stages1)).min(log_m.saturating_sub(stages1));
        DgtConfig { stages1, log_cluster1, log_cluster2: 0 }
    }
}

/// Stages of the first pass of `DgtConfig::default_for` above N = 2^12.
const FIRST_PASS_STAGES: u32 = 6;
/// Sets per block (λ1) of the first pass of `DgtConfig::default_for`
/// above N = 2^12: runs of 4 consecutive words in its stores (16 bytes of
/// `u32`).
const FIRST_PASS_CLUSTER: u32 = 4;

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
        // Two passes from N = 2^12: the first stores runs of at least 4
        // words (16 bytes of u32) wherever 256-thread blocks allow it, and
        // no first-pass block of several sets exceeds 256 threads.
        for log_m in 11..=20 {
            let d = DgtConfig::default_for(log_m);
            let p = d.passes(log_m).unwrap();
            assert_eq!(p.len(), 2, "{log_m} {d}");
            assert!(p[0].log_cluster == 0 || p[0].log_cluster + p[0].k() <= 8, "{log_m} {d}");
            assert!(p[0].k() > 6 || p[0].log_cluster >= 2, "{log_m} {d}");
        }
        assert!(DgtConfig { stages1: 4, log_cluster1: 7, log_cluster2: 0 }.passes(15).is_err());
        assert!(DgtConfig { stages1: 0, log_cluster1: 0, log_cluster2: 0 }.passes(15).is_err());
    }
}
