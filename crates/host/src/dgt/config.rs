//! How a DGT runs: the stage split over kernels and the cluster sizes.

use crate::{Error, Result};
use polymul_kernels::dgt::layout::{MAX_LOG_UNIT, PassGeometry};
use polymul_kernels::dgt::pass::MAX_UNIT_THREADS;

/// Most stages one pass runs: a set of `2^k` Gaussians is `2^k` threads.
pub const MAX_PASS_STAGES: u32 = 10;
/// Most threads per block.
pub const MAX_THREADS: u32 = 1024;

/// A DGT configuration (Coala's search space, and the step kind): `stages1`
/// stages in the first kernel and the rest in the second (no second kernel
/// when `stages1 = log2 M`), `λ = 2^log_cluster` dependency sets per block
/// in each kernel, and how a kernel runs its stages: Coala's fixed access
/// (`log_unit = 0`: two threads per butterfly, a barrier per stage) or
/// radix-`2^log_unit` Gaussian units in each thread's registers
/// (`log_unit` stages per barrier, `polymul_kernels::dgt::unit`; fewer in
/// a pass of fewer stages). Both compute the same words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct DgtConfig {
    /// Stages of the first kernel.
    pub stages1: u32,
    /// `log2 λ` of the first kernel.
    pub log_cluster1: u32,
    /// `log2 λ` of the second kernel (ignored with one kernel).
    pub log_cluster2: u32,
    /// `log2` of the Gaussians a thread holds: 0 (Coala's fixed access)
    /// to 3 (radix-8 units). Absent from wisdom written before it: 0; not
    /// written when 0, so such wisdom reads as before.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub log_unit: u32,
}

/// Whether `v` is 0 (serde's `skip_serializing_if` for `log_unit`).
fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl std::fmt::Display for DgtConfig {
    /// `k1=… λ1=… λ2=…`, then ` r=…` (the unit's Gaussians) for register
    /// units (a value beyond `2^63` as `2^k`: any value prints).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lambda = |k: u32| 1u64.checked_shl(k).map_or_else(|| format!("2^{k}"), |v| v.to_string());
        write!(f, "k1={} λ1={} λ2={}", self.stages1, lambda(self.log_cluster1), lambda(self.log_cluster2))?;
        if self.log_unit > 0 {
            write!(f, " r={}", lambda(self.log_unit))?;
        }
        Ok(())
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
        if self.log_unit > MAX_LOG_UNIT {
            return Err(bad("register units hold at most 8 Gaussians (log_unit ≤ 3)"));
        }
        // A pass of fewer stages than `log_unit` takes units of its `k`.
        let pass = |s0: u32, s1: u32, log_cluster| PassGeometry {
            log_m,
            s0,
            s1,
            log_cluster,
            log_unit: self.log_unit.min(s1.saturating_sub(s0)),
        };
        let mut out = vec![pass(0, self.stages1, self.log_cluster1)];
        if self.stages1 < log_m {
            out.push(pass(self.stages1, log_m, self.log_cluster2));
        }
        for g in &out {
            if g.k() > MAX_PASS_STAGES {
                return Err(bad("a kernel runs at most 10 stages (1024 threads per block)"));
            }
            if g.log_cluster > g.log_sets() {
                return Err(bad("more sets per block than the pass has"));
            }
            // λ · 2^k threads, compared in log2 (no shift can overflow).
            if !g.units() && g.log_cluster + g.k() > MAX_THREADS.ilog2() {
                return Err(bad("λ · 2^stages exceeds 1024 threads per block"));
            }
            // λ · 2^(k − log_unit) threads with register units.
            if g.units() && g.log_cluster + g.k() - g.log_unit > MAX_UNIT_THREADS.ilog2() {
                return Err(bad("λ · 2^stages / 2^log_unit exceeds 512 threads per block"));
            }
        }
        Ok(out)
    }

    /// Every valid configuration for `M = 2^log_m` with clusters up to
    /// `2^max_log_cluster`, each with Coala's fixed access and with every
    /// register unit (up to the larger pass's stages): the search space of
    /// `polymul-bench`'s DGT search.
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
                    for log_unit in 0..=MAX_LOG_UNIT {
                        let c = DgtConfig { stages1, log_cluster1, log_cluster2, log_unit };
                        // Units larger than every pass are the same
                        // kernels as the largest that fits.
                        let fits = log_unit <= stages1.max(log_m - stages1);
                        if fits && c.passes(log_m).is_ok() {
                            v.push(c);
                        }
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
            return DgtConfig { stages1: log_m, log_cluster1: 0, log_cluster2: 0, log_unit: 0 };
        }
        if log_m == 11 {
            return DgtConfig { stages1: 4, log_cluster1: 3, log_cluster2: 0, log_unit: 0 };
        }
        // At most 10 stages in the second pass (`log_m` ≤ 20 keeps the first
        // within 10 too; beyond, `passes` refuses the configuration).
        let stages1 = FIRST_PASS_STAGES.max(log_m.saturating_sub(MAX_PASS_STAGES));
        // λ1 · 2^stages1 ≤ 256 threads, and no more sets than the pass has.
        let log_cluster1 =
            FIRST_PASS_CLUSTER.ilog2().min(8u32.saturating_sub(stages1)).min(log_m.saturating_sub(stages1));
        DgtConfig { stages1, log_cluster1, log_cluster2: 0, log_unit: 0 }
    }
}

impl DgtConfig {
    /// The configuration for batches (a plan's [`DgtPlan::with_batched`](super::DgtPlan::with_batched),
    /// from [`BATCHED_FROM_COEFFS`](super::BATCHED_FROM_COEFFS) coefficients per polymul call):
    /// [`DgtConfig::default_for`]'s stage split with radix-8 register units
    /// (fewer in a pass of fewer stages) and `λ` sets per block for about
    /// 128 threads (`λ · 2^(k − 3)`, at most the pass's sets) in the first
    /// pass, one set in the second. H100, 2026-11-27, `bench --quick --only
    /// dgt --log-n 14,16`, 30-bit `u32` towers, forward µs per polynomial at
    /// 2^24 coefficients:
    /// N = 2^16 k1 = 6, λ1 = 16, λ2 = 1, r = 8: 1.346 (the best of the
    /// search; Coala's best 2.517, the default), N = 2^14 the same shape
    /// 0.318 against 0.556.
    pub fn batched_for(log_m: u32) -> DgtConfig {
        let d = Self::default_for(log_m);
        let Ok(passes) = d.passes(log_m) else { return d };
        let first = &passes[0];
        // λ1 · 2^(k − unit) threads, about BATCHED_THREADS.
        let unit = MAX_LOG_UNIT.min(first.k());
        let log_cluster1 = BATCHED_THREADS.ilog2().saturating_sub(first.k() - unit).min(first.log_sets());
        // One set per second-pass block: the search's best at N = 2^14 and
        // 2^16 had λ2 = 1 (2^16: 1.346 µs per polynomial, 1.362 with λ2 = 2).
        let c = DgtConfig { log_cluster1, log_cluster2: 0, log_unit: MAX_LOG_UNIT, ..d };
        if c.passes(log_m).is_ok() { c } else { d }
    }
}

/// Threads per block [`DgtConfig::batched_for`] aims its first pass at.
const BATCHED_THREADS: u32 = 128;

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
        assert!(DgtConfig { stages1: 11, log_cluster1: 0, log_cluster2: 0, log_unit: 0 }.passes(15).is_err());
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
        assert!(DgtConfig { stages1: 4, log_cluster1: 7, log_cluster2: 0, log_unit: 0 }.passes(15).is_err());
        // The batched configuration: valid, the default's stage split,
        // register units in every pass, at most 128 threads per block.
        for log_m in 1..=20 {
            let (d, b) = (DgtConfig::default_for(log_m), DgtConfig::batched_for(log_m));
            let (pd, pb) = (d.passes(log_m).unwrap(), b.passes(log_m).unwrap());
            assert_eq!(pd.len(), pb.len(), "{log_m}");
            for (x, y) in pd.iter().zip(&pb) {
                assert_eq!((x.s0, x.s1), (y.s0, y.s1), "{log_m}");
                assert!(y.units() && y.threads() <= 128, "{log_m} {b}");
            }
        }
        // Register units: at most radix 8, at most 512 threads per block.
        assert!(DgtConfig { stages1: 6, log_cluster1: 0, log_cluster2: 0, log_unit: 4 }.passes(15).is_err());
        // Wisdom: `log_unit` written only where not 0, read back either way.
        let coala = DgtConfig::default_for(15);
        let json = serde_json::to_string(&coala).unwrap();
        assert!(!json.contains("log_unit"), "{json}");
        assert_eq!(serde_json::from_str::<DgtConfig>(&json).unwrap(), coala);
        let units = DgtConfig::batched_for(15);
        let json = serde_json::to_string(&units).unwrap();
        assert!(json.contains("\"log_unit\":3"), "{json}");
        assert_eq!(serde_json::from_str::<DgtConfig>(&json).unwrap(), units);
        let c = |log_unit| DgtConfig { stages1: 10, log_cluster1: 1, log_cluster2: 0, log_unit }.passes(11);
        assert!(c(0).is_err() && c(1).is_err() && c(2).is_ok() && c(3).is_ok());
        assert!(DgtConfig { stages1: 0, log_cluster1: 0, log_cluster2: 0, log_unit: 0 }.passes(15).is_err());
    }
}
