//! `polymul tune`: time the NTT and DGT candidates on this GPU
//! ([`polymul::planner::tune::tune`]) under a progress bar, print the
//! winners and write the wisdom file that [`polymul::planner::Multiplier`]
//! reads.

use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};
use polymul::Gpu;
use polymul::planner::tune::{TuneSpec, tune};
use polymul::planner::{Winner, default_wisdom_path};

use crate::error::{CliError, Result};

/// Runs the tuner; `out`: the wisdom file (default: the user's cache).
///
/// # Errors
/// No GPU, a CUDA failure, or a wisdom file that cannot be written.
pub fn run(quick: bool, out: Option<PathBuf>) -> Result<u8> {
    let path = out.or_else(default_wisdom_path).ok_or_else(|| {
        CliError::usage("no place for the wisdom file: set POLYMUL_WISDOM or HOME, or pass --out FILE")
    })?;
    let gpu = Gpu::new().map_err(|e| CliError::runtime(format!("{e}; tuning measures a GPU")))?;
    let spec = TuneSpec {
        quick,
        log_ns: if quick { vec![10, 12, 14, 16] } else { (10..=17).collect() },
        ..TuneSpec::default()
    };
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("tuning [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut progress = |done: usize, total: usize, what: &str| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(what.to_string());
    };
    let wisdom = tune(&gpu, &spec, &mut progress).map_err(CliError::from)?;
    bar.finish_and_clear();
    let mut table = String::from(
        "| N | word | towers | batch bucket | winner | µs per polynomial | candidates |\n|---|---|---|---|---|---|---|\n",
    );
    for e in &wisdom.entries {
        let w = match e.winner {
            Winner::Ntt { kernel, radix: Some(r) } => format!("NTT {} r{r}", kernel.name()),
            Winner::Ntt { kernel, radix: None } => format!("NTT {}", kernel.name()),
            Winner::Dgt { config } => format!("DGT {config}"),
        };
        let k = &e.key;
        table += &format!(
            "| 2^{} | u{} | {} | 2^{} | {w} | {:.4} | {} |\n",
            k.log_n, k.word_bits, k.towers, k.batch_bucket, e.us_per_poly, e.candidates
        );
    }
    crate::io::print_stdout(&table);
    wisdom.save(&path).map_err(CliError::from)?;
    eprintln!("polymul: wisdom for {} written to {}", gpu.info().name, path.display());
    Ok(0)
}
