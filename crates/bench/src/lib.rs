//! Library side of `polymul-bench`: the GPU check suite ([`check`]) and the
//! benchmark runner ([`bench`](mod@crate::bench)), shared by the binary and `cargo xtask`.

pub mod ablation;
pub mod bench;
pub mod check;
pub mod ciphertext;
pub mod cpu_anchor;
pub mod cpu_backend;
pub mod dgt;
pub mod env_options;
pub mod fused;
pub mod goals;
mod host_ext;
pub mod latency;
pub mod plot;
pub mod reductions;
pub mod report;
pub mod rns;
pub mod scaling;
pub mod soak;
pub mod split;
pub mod staging;
pub mod tiles;

use std::path::PathBuf;

/// Command-line options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Fewer sizes and repetitions.
    pub quick: bool,
    /// Benchmark the CPU path even if a GPU is present.
    pub force_cpu: bool,
    /// Folder for the result files.
    pub out: Option<PathBuf>,
    /// The command line, recorded in the results.
    pub command_line: String,
    /// Run only these sections of the benchmark ([`SECTIONS`]); empty =
    /// all. `check`: these suites.
    pub only: Vec<String>,
    /// `check`: the suite's seed (default: from the clock; printed either way).
    pub seed: Option<u64>,
    /// `check`: how many random cases the `props` suite draws.
    pub cases: Option<usize>,
    /// `check`: the `log2 N` values of the word suite (default: every size
    /// of the suite; 13 adds the narrower primes) and of the DGT suite,
    /// e.g. to split a slow sanitizer run into processes; `bench`: the
    /// sizes of the DGT section's configuration search.
    pub log_n: Option<Vec<u32>>,
}

/// Every section of `polymul-bench bench` that `--only` selects: the GPU
/// run's (`goals` … `scaling`), then the CPU run's (`cpu-backend`,
/// `cpu-scaling`, `cpu-reference`; `anchor` runs in both). The CLI's
/// `polymul bench --only` takes exactly these.
pub const SECTIONS: [&str; 16] = [
    "goals",
    "ciphertext",
    "latency",
    "ntt",
    "reductions",
    "table3",
    "tiles",
    "fused",
    "rns",
    "anchor",
    "dgt",
    "split",
    "scaling",
    "cpu-backend",
    "cpu-scaling",
    "cpu-reference",
];

impl Options {
    /// Whether the benchmark section `name` runs.
    pub fn runs(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| o == name)
    }
}

/// The (word, prime bits) configurations every suite covers.
pub const WORD_CONFIGS: [(u32, u32); 2] = [(32, 30), (64, 62)];

/// `log2 N` values of the suite.
pub fn log_ns(quick: bool) -> Vec<u32> {
    if quick { vec![10, 12, 14, 16, 17] } else { (10..=17).collect() }
}

/// `(warm-up runs, timed repetitions)` for one timing: many for a single
/// polynomial (microseconds each), few for a batch; fewer with `--quick`.
pub fn repetitions(batch: usize, quick: bool) -> (usize, usize) {
    match (batch, quick) {
        (1, false) => (20, 200),
        (1, true) => (10, 50),
        (_, false) => (3, 20),
        (_, true) => (2, 5),
    }
}

#[cfg(test)]
mod tests {
    use super::SECTIONS;

    /// Every section name the runner tests for (`opts.runs("…")` in the
    /// GPU run, `want("…")` in the CPU run) is in [`SECTIONS`], and every
    /// entry of it is named in the runner: one list, never two.
    #[test]
    fn sections_are_the_runners_own() {
        let src = include_str!("bench.rs");
        let mut named = Vec::new();
        for pat in ["opts.runs(\"", "want(\""] {
            for (i, _) in src.match_indices(pat) {
                let rest = &src[i + pat.len()..];
                named.push(&rest[..rest.find('"').unwrap_or(0)]);
            }
        }
        assert!(named.len() >= 10, "{named:?}");
        for n in &named {
            assert!(SECTIONS.contains(n), "bench.rs runs section {n:?}, missing from SECTIONS");
        }
        // (The CPU run also takes its names from a table: `want(section)`.)
        for s in SECTIONS {
            let literal = format!("\"{s}\"");
            assert!(src.contains(&literal), "SECTIONS names {s:?}, which bench.rs never runs");
        }
    }
}
