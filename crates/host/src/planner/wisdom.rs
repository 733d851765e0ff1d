//! Wisdom: the measured winners of `polymul tune`, as JSON in the user's
//! cache directory (FFTW's idea), keyed by device, N, word size, towers and
//! batch bucket.

use crate::dgt::DgtConfig;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file format version this build reads and writes.
pub const WISDOM_VERSION: u32 = 1;

/// `ceil(log2(batch))`: the batch bucket of a key (0 for one polynomial
/// and for 0; `usize::BITS` above `2^(usize::BITS − 1)`).
pub fn batch_bucket(batch: usize) -> u32 {
    batch.max(1).checked_next_power_of_two().map_or(usize::BITS, usize::trailing_zeros)
}

/// What a wisdom entry is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct WisdomKey {
    /// Device name as the driver reports it.
    pub device: String,
    /// `log2 N`.
    pub log_n: u32,
    /// 32 or 64.
    pub word_bits: u32,
    /// RNS towers (1 for one modulus).
    pub towers: usize,
    /// [`batch_bucket`] of the polynomials per tower.
    pub batch_bucket: u32,
}

/// The transform a wisdom entry (or the rule) chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "transform", rename_all = "lowercase")]
pub enum Choice {
    /// An NTT plan: kernel by [`crate::plan::NttKernel::name`], largest radix
    /// (`None` = the automatic rule's).
    Ntt {
        /// The kernel.
        kernel: crate::plan::NttKernel,
        /// Largest radix, or the rule's.
        radix: Option<usize>,
    },
    /// A DGT plan with this configuration.
    Dgt {
        /// The configuration.
        config: DgtConfig,
    },
}

impl std::fmt::Display for Choice {
    /// `NTT 2d r8`, `NTT auto`, `DGT k1=… λ1=… λ2=…`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Choice::Ntt { kernel, radix: Some(r) } => write!(f, "NTT {} r{r}", kernel.name()),
            Choice::Ntt { kernel, radix: None } => write!(f, "NTT {}", kernel.name()),
            Choice::Dgt { config } => write!(f, "DGT {config}"),
        }
    }
}

/// One measured winner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WisdomEntry {
    /// What was measured.
    pub key: WisdomKey,
    /// The fastest candidate.
    pub winner: Choice,
    /// Its polymul time, µs per polynomial (per tower).
    pub us_per_poly: f64,
    /// Candidates timed.
    pub candidates: usize,
}

/// A set of wisdom entries.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Wisdom {
    /// [`WISDOM_VERSION`].
    pub version: u32,
    /// The entries, at most one per key.
    pub entries: Vec<WisdomEntry>,
}

/// Where wisdom lives: `$POLYMUL_WISDOM`, else
/// `$XDG_CACHE_HOME/polymul/wisdom.json`, else `$HOME/.cache/polymul/wisdom.json`.
/// `None` if none of these variables is set.
pub fn default_wisdom_path() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(p) = var("POLYMUL_WISDOM") {
        return Some(p);
    }
    let cache = var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))?;
    Some(cache.join("polymul").join("wisdom.json"))
}

impl Wisdom {
    /// No entries.
    pub fn new() -> Self {
        Self { version: WISDOM_VERSION, entries: Vec::new() }
    }

    /// Parses wisdom JSON. Errors ([`Error::Wisdom`]): not JSON, not this
    /// format, another version.
    pub fn from_json(text: &str, origin: &Path) -> Result<Self> {
        let w: Wisdom = serde_json::from_str(text)
            .map_err(|e| Error::Wisdom { path: origin.to_path_buf(), why: e.to_string() })?;
        if w.version != WISDOM_VERSION {
            let why = format!("version {} (this build reads {WISDOM_VERSION})", w.version);
            return Err(Error::Wisdom { path: origin.to_path_buf(), why });
        }
        Ok(w)
    }

    /// Reads a wisdom file; `Ok(None)` if it does not exist.
    pub fn load(path: &Path) -> Result<Option<Self>> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::from_json(&text, path).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::Wisdom { path: path.to_path_buf(), why: e.to_string() }),
        }
    }

    /// Reads the wisdom file at [`default_wisdom_path`] (where `polymul
    /// tune` writes it): `Ok(None)` if no such variable is set or the file
    /// does not exist; a file that exists but cannot be read or parsed is
    /// an error ([`Error::Wisdom`]) rather than silently ignored. Only this
    /// call reads the environment: planning never does on its own.
    pub fn load_default() -> Result<Option<Self>> {
        match default_wisdom_path() {
            Some(p) => Self::load(&p),
            None => Ok(None),
        }
    }

    /// The JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into())
    }

    /// Writes the file atomically (a temporary file in the same folder,
    /// then a rename), creating the folder.
    pub fn save(&self, path: &Path) -> Result<()> {
        let io = |during, e: std::io::Error| Error::Io { during, path: path.to_path_buf(), source: e };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io("creating the wisdom folder", e))?;
        }
        let tmp = path.with_extension(format!("json.tmp{}", std::process::id()));
        std::fs::write(&tmp, self.to_json()).map_err(|e| io("writing wisdom", e))?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io("replacing the wisdom file", e)
        })
    }

    /// The entries as a Markdown table (what `tune` prints).
    pub fn markdown_table(&self) -> String {
        let mut t = String::from(
            "| N | word | towers | batch bucket | winner | µs per polynomial | candidates |\n\
             |---|---|---|---|---|---|---|\n",
        );
        for e in &self.entries {
            let k = &e.key;
            t += &format!(
                "| 2^{} | u{} | {} | 2^{} | {} | {:.4} | {} |\n",
                k.log_n, k.word_bits, k.towers, k.batch_bucket, e.winner, e.us_per_poly, e.candidates
            );
        }
        t
    }

    /// Adds or replaces the entry of `e.key`.
    pub fn insert(&mut self, e: WisdomEntry) {
        self.entries.retain(|x| x.key != e.key);
        self.entries.push(e);
    }

    /// The entry for `key`, else the same device, N, word and towers with
    /// the nearest batch bucket.
    pub fn lookup(&self, key: &WisdomKey) -> Option<&WisdomEntry> {
        self.entries.iter().find(|e| e.key == *key).or_else(|| {
            self.entries
                .iter()
                .filter(|e| {
                    let k = &e.key;
                    k.device == key.device
                        && k.log_n == key.log_n
                        && k.word_bits == key.word_bits
                        && k.towers == key.towers
                })
                .min_by_key(|e| e.key.batch_bucket.abs_diff(key.batch_bucket))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(bucket: u32) -> WisdomKey {
        WisdomKey { device: "GPU X".into(), log_n: 12, word_bits: 64, towers: 1, batch_bucket: bucket }
    }

    #[test]
    fn round_trip_lookup_and_bad_files() {
        let mut w = Wisdom::new();
        let ntt = Choice::Ntt { kernel: crate::plan::NttKernel::TwoD, radix: Some(8) };
        let dgt =
            Choice::Dgt { config: DgtConfig { stages1: 5, log_cluster1: 2, log_cluster2: 1, log_unit: 0 } };
        w.insert(WisdomEntry { key: key(0), winner: ntt, us_per_poly: 10.0, candidates: 3 });
        w.insert(WisdomEntry { key: key(10), winner: dgt, us_per_poly: 0.1, candidates: 9 });
        w.insert(WisdomEntry { key: key(10), winner: ntt, us_per_poly: 0.05, candidates: 9 });
        assert_eq!(w.entries.len(), 2);
        let back = Wisdom::from_json(&w.to_json(), Path::new("x")).unwrap();
        assert_eq!(back, w);
        assert_eq!(back.lookup(&key(9)).unwrap().key.batch_bucket, 10);
        assert_eq!(back.lookup(&key(2)).unwrap().key.batch_bucket, 0);
        assert!(back.lookup(&WisdomKey { towers: 2, ..key(0) }).is_none());
        assert!(matches!(Wisdom::from_json("{ not json", Path::new("x")), Err(Error::Wisdom { .. })));
        let old = w.to_json().replace("\"version\": 1", "\"version\": 0");
        assert!(matches!(Wisdom::from_json(&old, Path::new("x")), Err(Error::Wisdom { .. })));
        assert_eq!(batch_bucket(1), 0);
        assert_eq!(batch_bucket(3), 2);
        assert_eq!(batch_bucket(512), 9);
    }

    #[test]
    fn save_and_load_atomically() {
        let dir = std::env::temp_dir().join(format!("polymul-wisdom-{}", std::process::id()));
        let path = dir.join("sub").join("wisdom.json");
        assert_eq!(Wisdom::load(&path).unwrap(), None);
        let mut w = Wisdom::new();
        let winner = Choice::Ntt { kernel: crate::plan::NttKernel::Auto, radix: None };
        w.insert(WisdomEntry { key: key(1), winner, us_per_poly: 1.0, candidates: 1 });
        w.save(&path).unwrap();
        assert_eq!(Wisdom::load(&path).unwrap(), Some(w));
        std::fs::write(&path, b"garbage").unwrap();
        assert!(matches!(Wisdom::load(&path), Err(Error::Wisdom { .. })));
        let _ = std::fs::remove_dir_all(dir);
    }
}
