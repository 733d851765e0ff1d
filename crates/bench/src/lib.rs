//! Library side of `polymul-bench`: the GPU check suite ([`check`]) and the
//! benchmark runner ([`bench`](mod@crate::bench)), shared by the binary and `cargo xtask`.

pub mod ablation;
pub mod bench;
pub mod check;
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
    /// Run only these sections of the GPU benchmark (`ntt`, `reductions`,
    /// `table3`, `tiles`, `fused`, `rns`, `dgt`, `anchor`, `goals`, `latency`); empty = all.
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
