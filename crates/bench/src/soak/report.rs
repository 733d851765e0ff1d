//! The soak's counters, its progress line and its summary.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counts of the whole run, shared by the threads.
#[derive(Debug, Default)]
pub struct Counters {
    /// Calls (cases) run.
    pub calls: AtomicU64,
    /// Result words compared with a reference.
    pub coeffs: AtomicU64,
    /// Results that differ from their reference, and broken promises after
    /// an error (inputs changed, an output neither a result nor untouched).
    pub mismatches: AtomicU64,
    /// Calls that failed with `OutOfMemory` while a fault was active.
    pub oom_expected: AtomicU64,
    /// Calls retried after such a failure that then succeeded and were
    /// right.
    pub recovered: AtomicU64,
    /// Calls whose retries all met another fault (not verified).
    pub unverified: AtomicU64,
    /// Post-error checks passed (inputs intact, outputs leading parts).
    pub post_error_checks: AtomicU64,
    /// Calls that ran above one launch's limit.
    pub big: AtomicU64,
    /// Unexpected errors by kind (and `OutOfMemory` outside a fault).
    pub unexpected: Mutex<BTreeMap<String, u64>>,
}

impl Counters {
    /// Records an unexpected error of class `what`.
    pub fn unexpected(&self, what: String) {
        let mut m = self.unexpected.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry(what).or_default() += 1;
    }

    /// Unexpected errors in all.
    pub fn unexpected_total(&self) -> u64 {
        self.unexpected.lock().unwrap_or_else(|e| e.into_inner()).values().sum()
    }

    /// One progress line.
    pub fn progress(&self, elapsed: f64) -> String {
        format!(
            "soak: {:>7.1} s, {} calls, {} coefficients, {} mismatches, errors: {} expected (OOM under a fault), {} unexpected",
            elapsed,
            self.calls.load(Ordering::Relaxed),
            self.coeffs.load(Ordering::Relaxed),
            self.mismatches.load(Ordering::Relaxed),
            self.oom_expected.load(Ordering::Relaxed),
            self.unexpected_total()
        )
    }

    /// The unexpected errors by kind, one line.
    pub fn unexpected_line(&self) -> String {
        let m = self.unexpected.lock().unwrap_or_else(|e| e.into_inner());
        if m.is_empty() {
            return "none".into();
        }
        m.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join(", ")
    }
}

/// MiB, one decimal.
pub fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}
